package rbapi

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	bolt "go.etcd.io/bbolt"

	"stationdex/internal/fold"
	"stationdex/internal/format"
	"stationdex/query/core"
)

// Substring matching for the Radio Browser API (upstream: LIKE '%text%'),
// without a scan of the stations. A name holds text when its folded form
// (fold.String: case and accents aside) does: the stations whose names
// hold every gram of the folded text (format.BucketNameGrams) are the
// candidates, exact when the text is one gram, checked against their
// names when it is longer. The other fields have a small vocabulary
// (labels, tags, codecs): the keys of their buckets that hold the text
// are found by walking the keys, and their lists united.

// Contains says which fields must hold which text; "" is no condition.
// Tags holds several texts, each of which a tag of the station must hold
// (tagList), a tag as the source writes it, lower-cased; Codec the
// source's codec, lower-cased (codecs.go).
type Contains struct {
	Name, Country, State, Language, Codec string
	Tags                                  []string
}

// containsField is a vocabulary field: its bucket and how a text is
// keyed to compare with the bucket's keys.
type containsField struct {
	text   func(c *Contains) string
	bucket []byte
	key    func(string) string
}

var containsFields = [...]containsField{
	{func(c *Contains) string { return c.Country }, format.BucketRBAPICountries, format.FacetKey},
	{func(c *Contains) string { return c.State }, format.BucketLocations, format.FacetKey},
	{func(c *Contains) string { return c.Language }, format.BucketLangLabels, format.FacetKey},
}

// narrowContains is m narrowed by every condition of c.
func narrowContains(s *core.Search, m core.Set, c *Contains) (core.Set, error) {
	var err error
	for _, f := range containsFields {
		if t := f.text(c); t != "" && !m.Empty() {
			m, err = narrowKeysHolding(s, m, f.bucket, f.key(t))
		}
		if err != nil {
			return m, err
		}
	}
	if c.Codec != "" && !m.Empty() {
		if m, err = narrowSourceCodec(s, m, codecHolds(c.Codec)); err != nil {
			return m, err
		}
	}
	for _, t := range c.Tags {
		if t == "" {
			continue // held by every tag list, as LIKE '%%'
		}
		if m, err = narrowSourceTag(s, m, tagHolds(t)); err != nil || m.Empty() {
			return m, err
		}
	}
	if c.Name != "" && !m.Empty() {
		return narrowName(s, m, fold.String(c.Name))
	}
	return m, nil
}

// narrowKeysHolding keeps the stations of m filed under a key of bucket
// that holds text. A text that keys to nothing ("-" as a tag) is held by
// every key, as LIKE '%%' matches every value: it keeps m.
func narrowKeysHolding(s *core.Search, m core.Set, bucket []byte, text string) (core.Set, error) {
	if text == "" {
		return m, nil
	}
	v, err := vocabularyOf(s.Index, s.Tx, bucket)
	if err != nil {
		return m, err
	}
	return narrowUnion(s, m, v.listsHolding(s.Work.RawLists[:0], text))
}

// vocabulary is a bucket's keys and their lists, and each key filed
// under the grams of three bytes it holds, made once per index: a
// substring of a tag, a state or a country label walked every key of its
// bucket on every request (a fifth of the node's time on the upstream
// stage's traffic), where the keys holding a gram of the text are few.
type vocabulary struct {
	keys  []string
	lists [][]byte // in the mapping, which lasts as long as the index
	grams map[string][]int32
}

const vocabularyGram = 3

// vocabularyOf reads bucket's in tx the first time.
func vocabularyOf(ix *core.Index, tx *bolt.Tx, bucket []byte) (*vocabulary, error) {
	v, err := ix.Derived("query: vocabulary of "+string(bucket), func(ix *core.Index) (any, error) {
		v := &vocabulary{grams: map[string][]int32{}}
		err := func() error {
			b := tx.Bucket(bucket)
			if b == nil {
				return nil
			}
			return b.ForEach(func(k, list []byte) error {
				id, key := int32(len(v.keys)), string(k)
				v.keys, v.lists = append(v.keys, key), append(v.lists, list)
				for i := 0; i+vocabularyGram <= len(key); i++ {
					g := key[i : i+vocabularyGram]
					if ids := v.grams[g]; len(ids) == 0 || ids[len(ids)-1] != id {
						v.grams[g] = append(ids, id)
					}
				}
				return nil
			})
		}()
		return v, err
	})
	voc, _ := v.(*vocabulary)
	return voc, err
}

// listsHolding appends the lists of the keys that hold text: those of
// the rarest of its grams checked, or every key for a shorter text.
func (v *vocabulary) listsHolding(lists [][]byte, text string) [][]byte {
	if len(text) < vocabularyGram {
		for id, k := range v.keys {
			if strings.Contains(k, text) {
				lists = append(lists, v.lists[id])
			}
		}
		return lists
	}
	var fewest []int32
	for i := 0; i+vocabularyGram <= len(text); i++ {
		ids := v.grams[text[i:i+vocabularyGram]]
		if len(ids) == 0 {
			return lists
		}
		if fewest == nil || len(ids) < len(fewest) {
			fewest = ids
		}
	}
	for _, id := range fewest {
		if strings.Contains(v.keys[id], text) {
			lists = append(lists, v.lists[id])
		}
	}
	return lists
}

// narrowUnion is m within the union of the stored lists.
func narrowUnion(s *core.Search, m core.Set, lists [][]byte) (core.Set, error) {
	union, err := s.Work.UnionRaw(lists)
	clear(lists)
	s.Work.RawLists = lists[:0]
	if err != nil {
		return m, err
	}
	return s.Work.And(m, union), nil
}

// narrowName keeps the stations of m whose folded name holds text
// (folded too; see format.AppendNameGrams): for a text of at most a
// gram, the union of the grams starting with it; for a longer one, the
// names with every gram of it, each then read to see that it holds it.
func narrowName(s *core.Search, m core.Set, text string) (core.Set, error) {
	switch n := utf8.RuneCountInString(text); {
	case n == 0:
		return m, nil // held by every name, as LIKE '%%'
	case n <= format.NameGramRunes:
		return narrowUnion(s, m, gramsStarting(s, text))
	}
	for _, g := range format.AppendTextGrams(nil, text) {
		list, err := s.Get(format.BucketNameGrams, s.KeyOf(g))
		if err != nil {
			return m, err
		}
		if m = s.Work.And(m, list); m.Empty() {
			return m, nil
		}
	}
	return namesHolding(s, m, text)
}

// gramsStarting is the stored lists of the grams that start with text,
// a range of keys.
func gramsStarting(s *core.Search, text string) [][]byte {
	lists := s.Work.RawLists[:0]
	b := s.Bucket(format.BucketNameGrams)
	if !b.OK {
		return lists
	}
	for k, v := b.Cur.Seek([]byte(text)); k != nil && bytes.HasPrefix(k, []byte(text)); k, v = b.Cur.Next() {
		lists = append(lists, v)
	}
	return lists
}

// namesHolding keeps the stations of m whose folded name holds text
// (folded), from the names folded once per index (foldedNames): decoding
// each candidate's record and folding its name was half of the node's
// time on upstream-style traffic.
func namesHolding(s *core.Search, m core.Set, text string) (core.Set, error) {
	out := s.Work.Scratch()
	folded, err := foldedNamesOf(s.Index, s.Tx)
	if err != nil {
		return out, err
	}
	found := s.Work.GroupIDs[:0]
	defer func() { s.Work.GroupIDs = found[:0] }()
	err = core.EachBatch(s, m.BM, func(batch []uint32) error {
		found = found[:0]
		for _, n := range batch {
			name, err := folded.of(n)
			if err != nil {
				return err
			}
			if strings.Contains(name, text) {
				found = append(found, n)
			}
		}
		out.BM.AddMany(found)
		return nil
	})
	return out, err
}

// foldedNames are every station's folded name, by record number, in
// one string: a name substring checks many candidates (the 25,000 names
// with the grams of "radio" on the real snapshot), and reading each one's
// record and folding its name cost the most of the node's time on the
// upstream stage's traffic. About the names' length a station (20 bytes
// on the real snapshot) and 4 bytes, made once per index on first use (or
// in Warm for a -compat index).
type foldedNames struct {
	names string
	ends  []uint32 // ends[n] is where record n's name ends in names
}

// foldedNamesOf reads them in tx the first time.
func foldedNamesOf(ix *core.Index, tx *bolt.Tx) (*foldedNames, error) {
	v, err := ix.Derived("query: folded names", func(ix *core.Index) (any, error) {
		f := &foldedNames{ends: make([]uint32, 0, ix.Meta().Stations)}
		var names strings.Builder
		rr := ix.Located(tx, format.BucketStations)
		for n := range uint32(ix.Meta().Stations) {
			v, err := rr.Get(n)
			if err != nil {
				return nil, err
			}
			name, err := format.RecordName(v)
			if err != nil {
				return nil, fmt.Errorf("record %d: %w", n, err)
			}
			names.WriteString(fold.String(name))
			f.ends = append(f.ends, uint32(names.Len()))
		}
		f.names = names.String()
		return f, nil
	})
	f, _ := v.(*foldedNames)
	return f, err
}

// of is record n's folded name.
func (f *foldedNames) of(n uint32) (string, error) {
	if int(n) >= len(f.ends) {
		return "", fmt.Errorf("%w: record %d past the names", format.ErrCorrupt, n)
	}
	start := uint32(0)
	if n > 0 {
		start = f.ends[n-1]
	}
	return f.names[start:f.ends[n]], nil
}

// Warm reads, in the background, what the first substring match of a name
// and the first codec or tag list or filter otherwise read: every
// station's folded name, and the source's codecs and tags (Index.Warm in
// package query calls it).
func Warm(ix *core.Index) error {
	if !ix.Has(format.SectionRBAPI) {
		return nil
	}
	return ix.View(func(tx *bolt.Tx) error {
		if _, err := foldedNamesOf(ix, tx); err != nil {
			return err
		}
		for _, f := range []sourceField{codecField, tagsField} {
			if _, err := sourceValuesOf(ix, tx, f); err != nil {
				return err
			}
		}
		return nil
	})
}
