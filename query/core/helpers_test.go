package core

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"stationdex/indexer"
	"stationdex/internal/format"
)

// station is one Radio Browser record for hand-built test sets; only the
// fields the indexer reads are set.
type station struct {
	n                             int // becomes the UUID's last digits
	name, cc, country, state      string
	language, languageCodes, tags string
}

func (s station) uuid() format.UUID {
	u, err := format.ParseUUID(fmt.Sprintf("00000000-0000-4000-8000-%012d", s.n))
	if err != nil {
		panic(err)
	}
	return u
}

func (s station) json() string {
	b, _ := json.Marshal(map[string]any{
		"stationuuid": s.uuid().String(), "name": s.name,
		"countrycode": s.cc, "country": s.country, "state": s.state,
		"language": s.language, "languagecodes": s.languageCodes, "tags": s.tags,
		"bitrate": 128, "homepage": "https://example.org/", "url": "https://stream.example.org/" + s.name,
		"lastchecktime": "2025-01-01 00:00:00",
	})
	return string(b)
}

func ndjson(stations []station) string {
	var b strings.Builder
	for _, s := range stations {
		b.WriteString(s.json())
		b.WriteByte('\n')
	}
	return b.String()
}

var testSnapshot = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)

// buildIndex writes an index of the NDJSON text into a temporary file.
func buildIndex(tb testing.TB, text string) string {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "test.idx")
	in := indexer.Input{Name: "test.ndjson", R: strings.NewReader(text)}
	if _, err := indexer.Build(context.Background(), path, indexer.Options{SnapshotAt: testSnapshot, Sections: format.SectionRBAPI}, in); err != nil {
		tb.Fatalf("build test index: %v", err)
	}
	return path
}

func openIndex(tb testing.TB, path string) *Index {
	tb.Helper()
	ix, err := Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ix.Close() })
	return ix
}

// readRecords loads the cleaned records of the NDJSON text the way the
// indexer reads them, for the oracle.
func readRecords(tb testing.TB, in indexer.Input) []format.Record {
	tb.Helper()
	var recs []format.Record
	_, err := indexer.ReadRecords(context.Background(), func(r *format.Record) error {
		recs = append(recs, *r)
		return nil
	}, in)
	if err != nil {
		tb.Fatalf("read records: %v", err)
	}
	return recs
}

func ids(recs []format.Record) []format.UUID {
	out := make([]format.UUID, len(recs))
	for i := range recs {
		out[i] = recs[i].ID
	}
	return out
}

// filters is the Filters of a country, language and genre ("" for none)
// and any codecs: the shape most tests write.
func filters(country, language, genre string, codecs ...string) Filters {
	var f Filters
	for d, v := range map[Dim]string{DimCountry: country, DimLanguage: language, DimGenre: genre} {
		if v != "" {
			f[d] = []string{v}
		}
	}
	if len(codecs) > 0 {
		f[DimCodec] = codecs
	}
	return f
}

// threeFacets are the facets the memo holds.
var threeFacets = DimsOf(DimCountry, DimLanguage, DimGenre)

// one is the value of a single-valued filter, or "".
func one(f Filters, d Dim) string {
	if len(f[d]) == 0 {
		return ""
	}
	return f[d][0]
}

// dimOfFacet is the dimension of an oracle facet name.
func dimOfFacet(name string) Dim {
	for d := range NumDims {
		if d.Name() == name {
			return d
		}
	}
	panic("no dimension " + name)
}
