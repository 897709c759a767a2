// Package engines puts stationdex's query engine and its peers (MariaDB with
// the upstream statement, SQLite FTS5, Bleve) behind one interface, so the
// suite asks each the same queries with the same filters and page size.
//
// File map:
//   - engines.go: this comment; Engine, the records the peers load (read
//     with the indexer's own reader) and the keys they index and query by
//   - stationdex.go: our engine, opened on an index file, and the mix's
//     query converted to its own
//   - sqlite.go: the SQLite FTS5 peer, rowids in our rank order
//   - bleve.go: the Bleve peer, on disk
//   - mariadb.go: the MariaDB peer: the upstream directory's own table and
//     search statement, on a mariadbd of its own
//   - page.go: Pager, the rows of a page for the peers' HTTP fronts
//   - util.go: the background context and a dump opened through package
//     raw
package engines

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"stationdex/bench/internal/mix"
	"stationdex/indexer"
	"stationdex/internal/fold"
	"stationdex/internal/format"
	"stationdex/internal/iso"
)

// Engine answers searches of the mix.
type Engine interface {
	Name() string
	// Search runs q and returns the total (-1 when the engine does not
	// count) and the ids of the page when ids is true (for the agreement
	// check; timed runs pass false).
	Search(q mix.Query, ids bool) (total int, page []string, err error)
	Close() error
}

// Records reads the cleaned records of an NDJSON dump with the indexer's own
// reader, in rank order (name key, folded name, id): the order the engine
// assigns record numbers in, so peers that sort by record number sort the
// same way.
func Records(path string) ([]format.Record, error) {
	rc, err := openDump(path)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	var recs []format.Record
	_, err = readRecords(func(r *format.Record) error {
		recs = append(recs, *r)
		return nil
	}, indexer.Input{Name: path, R: rc})
	if err != nil {
		return nil, fmt.Errorf("read records of %s: %w", path, err)
	}
	keys := make([]string, len(recs))
	folded := make([]string, len(recs))
	for i := range recs {
		keys[i], folded[i] = fold.Key(recs[i].Name), fold.String(recs[i].Name)
	}
	idx := make([]int, len(recs))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool {
		i, j := idx[a], idx[b]
		if keys[i] != keys[j] {
			return keys[i] < keys[j]
		}
		if folded[i] != folded[j] {
			return folded[i] < folded[j]
		}
		return string(recs[i].ID[:]) < string(recs[j].ID[:])
	})
	out := make([]format.Record, len(recs))
	for k, i := range idx {
		out[k] = recs[i]
	}
	return out, nil
}

// readRecords turns the stub's panic (while the indexer is being written)
// into an error, so the suite fails with a message instead of a trace.
func readRecords(fn func(*format.Record) error, in indexer.Input) (sk format.Skipped, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("indexer.ReadRecords: %v", p)
		}
	}()
	return indexer.ReadRecords(contextBackground(), fn, in)
}

// Keys are what the peers index for one record: the same tokens and filter
// keys the stationdex engine derives, computed with the same fold and iso
// packages, so differences in results come from the engines, not from
// tokenisation.
type Keys struct {
	NameKey    string
	NameTokens []string
	AllTokens  []string // name, country label, code and English name, location, languages, genres
	Country    string   // upper case
	Langs      []string // folded labels and ISO codes
	Genres     []string // folded tags
}

// KeysOf derives the Keys of r.
func KeysOf(r *format.Record) Keys {
	k := Keys{NameKey: fold.Key(r.Name), NameTokens: fold.Tokens(r.Name), Country: strings.ToUpper(r.CountryCode)}
	all := append([]string(nil), k.NameTokens...)
	for _, s := range []string{r.Country, r.CountryCode, iso.CountryName(r.CountryCode), r.Location} {
		all = fold.AppendTokens(all, s)
	}
	for _, l := range r.Languages {
		all = fold.AppendTokens(all, l)
		k.Langs = append(k.Langs, format.FacetKey(l))
	}
	for _, c := range r.LanguageCodes {
		k.Langs = append(k.Langs, strings.ToLower(c))
	}
	for _, g := range r.Genres {
		all = fold.AppendTokens(all, g)
		k.Genres = append(k.Genres, format.GenreKey(g))
	}
	k.AllTokens = uniq(all)
	k.Langs = uniq(k.Langs)
	k.Genres = uniq(k.Genres)
	return k
}

func uniq(s []string) []string {
	sort.Strings(s)
	out := s[:0]
	for i, v := range s {
		if v != "" && (i == 0 || v != s[i-1]) {
			out = append(out, v)
		}
	}
	return out
}

// QueryKeys is the peers' reading of a search: query words folded and cut
// like index tokens; the language filter as the keys it may match (the
// folded label, and the ISO code it resolves to).
type QueryKeys struct {
	Words    []string
	Key      string // name key of q, for the exact-name tier
	Country  string
	Langs    []string
	Genre    string
	Language bool // a language filter was given
}

// QueryKeysOf reads q.
func QueryKeysOf(q mix.Query) QueryKeys {
	k := QueryKeys{Words: uniq(fold.Tokens(q.Q)), Key: fold.Key(q.Q), Country: strings.ToUpper(q.Country)}
	if q.Language != "" {
		k.Language = true
		k.Langs = append(k.Langs, format.FacetKey(q.Language))
		if c, ok := iso.LanguageCode(q.Language); ok {
			k.Langs = append(k.Langs, c)
		}
		k.Langs = uniq(k.Langs)
	}
	if q.Genre != "" {
		k.Genre = format.GenreKey(q.Genre)
	}
	return k
}

// ErrNotAvailable: a peer's program is not installed.
var ErrNotAvailable = errors.New("not available")

// Record is the cleaned record type the peers load.
type Record = format.Record
