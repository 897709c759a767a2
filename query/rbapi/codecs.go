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

// The Radio Browser API's codecs and tags are the source's values, as
// upstream groups and filters its Codec column (UNKNOWN, "AAC,H.264", FLV
// beside MP3) and its tags (each of the comma list, trimmed and lower
// cased, as upstream's tag cache has them), where the engine files the
// six codecs it knows and each tag's folded key (spellings merged, the
// first 64 of a station). The index stores no list of them, but each
// station's stored object holds its codec and tags: the values and their
// stations are read from the objects once per index (a few milliseconds
// a 10,000 stations), for /json/codecs and /json/tags, the codec filter
// (upstream: LOWER(Codec)=LOWER(value)), bycodec (a substring of the
// lower-cased codec) and the tag filters (a tag, or a substring of one).

// sourceValues are the source's values of a field in byte order and the
// stations of each.
type sourceValues struct {
	names    []string
	stations []*roaring.Bitmap
}

// sourceField is a field of the stored object read as source values:
// its key, and how its text is made values.
type sourceField struct {
	key    []byte
	values func(text string) []string
}

var (
	codecField = sourceField{[]byte(`,"codec":`), func(codec string) []string {
		if codec == "" {
			return nil // upstream lists no empty codec
		}
		return []string{codec}
	}}
	tagsField = sourceField{[]byte(`,"tags":`), func(tags string) []string {
		var out []string
		for _, t := range strings.Split(tags, ",") {
			if t = strings.ToLower(strings.TrimSpace(t)); t != "" {
				out = append(out, t)
			}
		}
		return out
	}}
)

// sourceValuesOf reads the values of f in tx the first time.
func sourceValuesOf(ix *core.Index, tx *bolt.Tx, f sourceField) (*sourceValues, error) {
	v, err := ix.Derived("query: the source's values of "+string(f.key), func(ix *core.Index) (any, error) {
		byName := map[string]*roaring.Bitmap{}
		rr := ix.Located(tx, format.BucketRBAPIJSON)
		for n := range uint32(ix.Meta().Stations) {
			js, err := rr.Get(n)
			if err != nil {
				return nil, fmt.Errorf("upstream object %d: %w", n, err)
			}
			text, err := storedString(js, f.key)
			if err != nil {
				return nil, fmt.Errorf("%w: upstream object %d: %v", format.ErrCorrupt, n, err)
			}
			for _, name := range f.values(text) {
				if byName[name] == nil {
					byName[name] = roaring.New()
				}
				byName[name].Add(n)
			}
		}
		c := &sourceValues{}
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
	c, _ := v.(*sourceValues)
	return c, err
}

// storedString is a string field of a stored object: the JSON string
// after its key (the object's fields are in upstream's fixed order, each
// once, the string fields never null).
func storedString(js, key []byte) (string, error) {
	at := bytes.Index(js, key)
	if at < 0 {
		return "", fmt.Errorf("no %s", key)
	}
	rest := js[at+len(key):]
	end := 1
	for end < len(rest) && rest[end] != '"' {
		if rest[end] == '\\' {
			end++
		}
		end++
	}
	var text string
	if end >= len(rest) || rest[0] != '"' {
		return "", fmt.Errorf("%s not a string", key)
	}
	err := json.Unmarshal(rest[:end+1], &text)
	return text, err
}

// matching is the union of the stations of the values keep takes.
func (c *sourceValues) matching(keep func(name string) bool) *roaring.Bitmap {
	out := roaring.New()
	for i, name := range c.names {
		if keep(name) {
			out.Or(c.stations[i])
		}
	}
	return out
}

// narrowSourceCodec keeps the stations of m whose source codec keep
// takes, narrowSourceTag those with a tag keep takes.
func narrowSourceCodec(s *core.Search, m core.Set, keep func(name string) bool) (core.Set, error) {
	return narrowSource(s, m, codecField, keep)
}

func narrowSourceTag(s *core.Search, m core.Set, keep func(name string) bool) (core.Set, error) {
	return narrowSource(s, m, tagsField, keep)
}

func narrowSource(s *core.Search, m core.Set, f sourceField, keep func(name string) bool) (core.Set, error) {
	c, err := sourceValuesOf(s.Index, s.Tx, f)
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

// tagIs and tagHolds are the tag conditions: a tag is the text, lower
// cased (tagExact), or holds it.
func tagIs(text string) func(string) bool {
	text = strings.ToLower(text)
	return func(name string) bool { return name == text }
}

func tagHolds(text string) func(string) bool {
	text = strings.ToLower(text)
	return func(name string) bool { return strings.Contains(name, text) }
}

// sourceCounts lists the source's values of f with their stations,
// within ok when given (hidebroken).
func sourceCounts(ix *core.Index, tx *bolt.Tx, f sourceField, ok *roaring.Bitmap) ([]Count, error) {
	c, err := sourceValuesOf(ix, tx, f)
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
