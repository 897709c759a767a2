package format

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strconv"
)

// The Radio Browser API's orders (upstream's order parameter) other than
// name (the record order) and random (a shuffle per request), stored as
// permutations of the record numbers in BucketRBAPIOrders:
//
//	upstream_orders RBAPIOrderKey(s, c) -> chunk c of the permutation
//	            of RBAPISorts[s]: record numbers c*OrderChunkLen
//	            onward of it (fewer in the last chunk), each 4 bytes
//	            little-endian
//
// A permutation lists every record once, sorted by the field's value
// (AppendRBAPISortKey) and then by record number, so that equal
// values go by name: a total order, so that pages never overlap (upstream
// has no tie-breaker). The reader walks a permutation against the
// filter's bitmap, as it walks the record order for name.

// BucketRBAPIOrders holds the permutations (see above).
var BucketRBAPIOrders = []byte("upstream_orders")

// RBAPISort is an order stored as a permutation.
type RBAPISort struct {
	Name    string // upstream's order value
	Field   string // the field of the stored upstream object it sorts by
	Numeric bool   // the field is a whole number; else a text (times too)
}

// RBAPISorts are the stored orders; the index of one is its key's
// first byte. Texts sort by their bytes, times as their text
// (YYYY-MM-DD HH:MM:SS sorts as the time).
var RBAPISorts = [...]RBAPISort{
	{"url", "url", false}, {"homepage", "homepage", false}, {"favicon", "favicon", false},
	{"tags", "tags", false}, {"country", "country", false}, {"state", "state", false},
	{"language", "language", false}, {"votes", "votes", true}, {"codec", "codec", false},
	{"bitrate", "bitrate", true}, {"lastcheckok", "lastcheckok", true},
	{"lastchecktime", "lastchecktime", false}, {"clicktimestamp", "clicktimestamp", false},
	{"clickcount", "clickcount", true}, {"clicktrend", "clicktrend", true},
	{"changetimestamp", "lastchangetime", false},
}

// OrderChunkLen is the record numbers of one value of
// BucketRBAPIOrders: 64 KiB, so that a page reads one or two values
// and a walk of the whole order a few hundred.
const OrderChunkLen = 16384

// RBAPIOrderKey is the key of chunk c of the permutation of
// RBAPISorts[s].
func RBAPIOrderKey(s int, c uint32) []byte {
	return binary.BigEndian.AppendUint32([]byte{byte(s)}, c)
}

// AppendRBAPISortKey appends the value of the field of RBAPISorts[s]
// in the stored upstream object js (stationjson.Upstream.AppendStored)
// as a byte string that sorts, under bytes.Compare, as the order sorts
// the values: a number as 8 bytes big-endian with the sign bit flipped,
// a text as appendOrderedString writes it. The writer sorts by it, and
// the reader and Check compare with it.
func AppendRBAPISortKey(dst, js []byte, s int) ([]byte, error) {
	sort := RBAPISorts[s]
	raw, ok := StoredField(js, sort.Field)
	if !ok {
		return dst, fmt.Errorf("no field %s", sort.Field)
	}
	if sort.Numeric {
		n, err := strconv.ParseInt(string(raw), 10, 64)
		return binary.BigEndian.AppendUint64(dst, uint64(n)^(1<<63)), err
	}
	if len(raw) < 2 || raw[0] != '"' {
		return dst, fmt.Errorf("field %s is not a text", sort.Field)
	}
	if bytes.IndexByte(raw, '\\') < 0 {
		return appendOrderedString(dst, string(raw[1:len(raw)-1])), nil
	}
	var text string
	if err := json.Unmarshal(raw, &text); err != nil {
		return dst, err
	}
	return appendOrderedString(dst, text), nil
}

// StoredField is the raw JSON value of the field name in a stored
// upstream object. The object is the encoder's, every key once and none
// first, so `,"name":` is the key: inside a string a quote is escaped and
// cannot follow the comma.
func StoredField(js []byte, name string) ([]byte, bool) {
	key := `,"` + name + `":`
	i := bytes.Index(js, []byte(key))
	if i < 0 {
		return nil, false
	}
	v := js[i+len(key):]
	if len(v) == 0 || v[0] != '"' {
		end := bytes.IndexAny(v, ",}")
		return v[:max(end, 0)], end >= 0
	}
	for j := 1; j < len(v); j++ {
		switch v[j] {
		case '\\':
			j++
		case '"':
			return v[:j+1], true
		}
	}
	return nil, false
}
