package rbapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/RoaringBitmap/roaring/v2"
	bolt "go.etcd.io/bbolt"

	"stationdex/internal/format"
	"stationdex/query/core"
)

// The Radio Browser API's codecs are the source's values, as upstream
// groups and filters its Codec column (UNKNOWN, "AAC,H.264", FLV beside
// MP3), where the engine files the six codecs it knows. The index stores
// no list of them, but each station's stored object holds its codec: the
// values and their stations are read from the objects once per index (a
// few milliseconds a 10,000 stations), for /json/codecs, the codec
// filter (upstream: LOWER(Codec)=LOWER(value)) and bycodec (a substring
// of the lower-cased codec).

// sourceCodecs are the source's codec values in byte order and the
// stations of each.
type sourceCodecs struct {
	names    []string
	stations []*roaring.Bitmap
}

var codecField = []byte(`,"codec":`)

// sourceCodecsOf reads them in tx the first time.
func sourceCodecsOf(ix *core.Index, tx *bolt.Tx) (*sourceCodecs, error) {
	v, err := ix.Derived("query: the source's codecs", func(ix *core.Index) (any, error) {
		byName := map[string]*roaring.Bitmap{}
		rr := ix.Located(tx, format.BucketRBAPIJSON)
		for n := range uint32(ix.Meta().Stations) {
			js, err := rr.Get(n)
			if err != nil {
				return nil, fmt.Errorf("upstream object %d: %w", n, err)
			}
			codec, err := storedCodec(js)
			if err != nil {
				return nil, fmt.Errorf("%w: upstream object %d: %v", format.ErrCorrupt, n, err)
			}
			if codec == "" {
				continue // upstream lists no empty codec
			}
			if byName[codec] == nil {
				byName[codec] = roaring.New()
			}
			byName[codec].Add(n)
		}
		c := &sourceCodecs{}
		for _, name := range slices.Sorted(func(yield func(string) bool) {
			for k := range byName {
				if !yield(k) {
					return
				}
			}
		}) {
			c.names, c.stations = append(c.names, name), append(c.stations, byName[name])
		}
		return c, nil
	})
	c, _ := v.(*sourceCodecs)
	return c, err
}

// storedCodec is the codec of a stored object: the JSON string after
// its "codec" key (the object's fields are in upstream's fixed order, the
// codec a string bounded at index time).
func storedCodec(js []byte) (string, error) {
	at := bytes.Index(js, codecField)
	if at < 0 {
		return "", fmt.Errorf("no codec")
	}
	rest := js[at+len(codecField):]
	end := 1
	for end < len(rest) && rest[end] != '"' {
		if rest[end] == '\\' {
			end++
		}
		end++
	}
	var codec string
	if end >= len(rest) {
		return "", fmt.Errorf("codec not a string")
	}
	err := json.Unmarshal(rest[:end+1], &codec)
	return codec, err
}

// matching is the union of the stations of the codecs keep takes.
func (c *sourceCodecs) matching(keep func(name string) bool) *roaring.Bitmap {
	out := roaring.New()
	for i, name := range c.names {
		if keep(name) {
			out.Or(c.stations[i])
		}
	}
	return out
}

// narrowSourceCodec keeps the stations of m whose source codec keep
// takes.
func narrowSourceCodec(s *core.Search, m core.Set, keep func(name string) bool) (core.Set, error) {
	c, err := sourceCodecsOf(s.Index, s.Tx)
	if err != nil {
		return m, err
	}
	out := s.Work.Scratch()
	out.BM.Or(m.BM)
	out.BM.And(c.matching(keep))
	return out, nil
}

// codecHolds is bycodec's condition: the lower-cased codec holds the
// lower-cased text (the codec filter's, equality ignoring case, is in
// matches).
func codecHolds(text string) func(string) bool {
	text = strings.ToLower(text)
	return func(name string) bool { return strings.Contains(strings.ToLower(name), text) }
}

// codecCounts lists the source's codecs with their stations, within ok
// when given (hidebroken).
func codecCounts(ix *core.Index, tx *bolt.Tx, ok *roaring.Bitmap) ([]Count, error) {
	c, err := sourceCodecsOf(ix, tx)
	if err != nil {
		return nil, err
	}
	var out []Count
	for i, name := range c.names {
		if n := countIn(c.stations[i], ok); n > 0 {
			out = append(out, Count{Key: name, Label: name, Stations: n})
		}
	}
	return out, nil
}
