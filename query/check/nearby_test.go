package check

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"

	"stationdex/internal/format"
	"stationdex/query/internal/testindex"
)

// nearbyInput is eight stations, seven with coordinates (two sharing
// one) and the last without.
func nearbyInput() string {
	var b strings.Builder
	for n := range 8 {
		rec := map[string]any{
			"stationuuid": testindex.Station{N: n}.UUID().String(), "name": fmt.Sprintf("Station %d", n),
			"url": fmt.Sprintf("https://stream.example.org/%d", n), "lastchecktime": "2025-01-01 00:00:00",
		}
		if n < 7 {
			rec["geo_lat"], rec["geo_long"] = 48.2+float64(n/2)*0.1, 16.3+float64(n)*0.01
		}
		line, _ := json.Marshal(rec)
		b.Write(append(line, '\n'))
	}
	return b.String()
}

// TestCheckFindsDamagedNearby: a nearby bucket whose lists are not each
// station's nearest (in another order, another station, one for a
// station without coordinates, cut short) or whose blocks are not one
// per block of records is refused by Check, even with checksums to
// match; the index as built passes.
func TestCheckFindsDamagedNearby(t *testing.T) {
	path := testindex.Build(t, nearbyInput())
	if _, err := Check(path); err != nil {
		t.Fatalf("Check of the index as built: %v", err)
	}
	block := func(change func(v []byte) []byte) func(tx *bolt.Tx) error {
		return func(tx *bolt.Tx) error {
			b := tx.Bucket(format.BucketNearby)
			return b.Put(format.BlockKey(0), change(bytes.Clone(b.Get(format.BlockKey(0)))))
		}
	}
	for _, tt := range []struct {
		name   string
		damage func(tx *bolt.Tx) error
		want   string
	}{
		{"two stations swapped", block(func(v []byte) []byte {
			a, b := bytes.Clone(v[1:5]), bytes.Clone(v[5:9])
			copy(v[1:5], b)
			copy(v[5:9], a)
			return v
		}), "corrupt index: record 0 lists nearby stations"},
		{"another station", block(func(v []byte) []byte { binary.BigEndian.PutUint32(v[1:], 7); return v }),
			"corrupt index: record 0 lists nearby stations [7 "},
		{"a list for a station without coordinates", block(func(v []byte) []byte {
			return append(v[:len(v)-1], format.AppendNearby(nil, []uint32{0})...)
		}), "corrupt index: record 7 lists nearby stations [0], its nearest are []"},
		{"a list cut short", block(func(v []byte) []byte { return v[:len(v)-3] }), "nearby slot"},
		{"bytes after the last record", block(func(v []byte) []byte { return append(v, 0) }),
			"corrupt index: nearby block 0 has 1 bytes after its last record"},
		{"a count over the bound", block(func(v []byte) []byte { v[0] = format.NearbyPerStation + 1; return v }),
			"corrupt index: nearby slot 0 claims 6 stations"},
		{"a block more", func(tx *bolt.Tx) error {
			return tx.Bucket(format.BucketNearby).Put(format.BlockKey(1), []byte{0})
		}, "corrupt index: 2 nearby blocks for 8 stations"},
	} {
		t.Run(tt.name, func(t *testing.T) { checkRefusesDamage(t, path, tt.damage, tt.want) })
	}
}
