package core

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"testing"
	"time"

	"stationdex/internal/format"
)

// TestETagIsHashOfParts: etag is the SHA-256 of its parts, each followed
// by a 0 byte, as it has always been defined: tags a client holds stay
// valid whatever the implementation. Long parts (past etag's stack buffer)
// included.
func TestETagIsHashOfParts(t *testing.T) {
	metas := []format.Meta{
		{SnapshotAt: time.Date(2025, 2, 27, 12, 38, 23, 0, time.UTC), Source: "Radio Browser", Stations: 50662, BuiltBy: "stationdex test"},
		{SnapshotAt: time.Date(2024, 1, 2, 3, 4, 5, 678, time.FixedZone("x", 3600)), Source: "", Stations: 0, SchemaVersion: "1.1"},
	}
	resources := []string{"", "/api/stations?q=radio&limit=20&offset=0", "/stations/" + strings.Repeat("é", 400)}
	for _, m := range metas {
		for _, base := range []string{"http://127.0.0.1:8080", "https://radio.example/dex"} {
			for _, res := range resources {
				h := sha256.New()
				for _, part := range []string{etagVersion, SchemaVersion(m), m.SnapshotAt.UTC().Format(time.RFC3339Nano), m.Source,
					strconv.Itoa(m.Stations), m.BuiltBy, base, res} {
					h.Write([]byte(part))
					h.Write([]byte{0})
				}
				want := `"` + hex.EncodeToString(h.Sum(nil)[:16]) + `"`
				if got := etag(m, base, res); got != want {
					t.Errorf("etag(%v, %q, %.40q) = %s, want %s", m.SnapshotAt, base, res, got, want)
				}
			}
		}
	}
}
