package engines

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/whitespace"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search/query"

	"stationdex/bench/internal/mix"
	"stationdex/internal/format"
)

// Bleve is the Bleve v2 peer (scorch, on disk under dir, reopened after the
// load so queries see merged, persisted segments). Text fields hold the same
// folded tokens our engine indexes, split on white space; filters are
// keyword fields; every query word is a PrefixQuery; results are sorted by
// the name key, then by document id (our record number, zero-padded).
// Bleve has no way to sort by our name-match tiers, so its pages are purely
// alphabetical; totals are comparable.
type Bleve struct{ ix bleve.Index }

var bleveFields = []string{"id", "dname", "country", "location", "languages", "genres", "stream"}

func bleveMapping() (*mapping.IndexMappingImpl, error) {
	im := bleve.NewIndexMapping()
	if err := im.AddCustomAnalyzer("ws", map[string]any{"type": custom.Name, "tokenizer": whitespace.Name}); err != nil {
		return nil, err
	}
	text := func() *mapping.FieldMapping {
		f := bleve.NewTextFieldMapping()
		f.Analyzer, f.Store, f.IncludeTermVectors, f.IncludeInAll, f.DocValues = "ws", false, false, false, false
		return f
	}
	kw := func(docValues bool) *mapping.FieldMapping {
		f := bleve.NewTextFieldMapping()
		f.Analyzer, f.Store, f.IncludeTermVectors, f.IncludeInAll, f.DocValues = keyword.Name, false, false, false, docValues
		return f
	}
	stored := func() *mapping.FieldMapping {
		f := bleve.NewTextFieldMapping()
		f.Index, f.Store, f.IncludeInAll, f.DocValues = false, true, false, false
		return f
	}
	dm := bleve.NewDocumentStaticMapping()
	dm.AddFieldMappingsAt("name", text())
	dm.AddFieldMappingsAt("all", text())
	dm.AddFieldMappingsAt("cc", kw(false))
	dm.AddFieldMappingsAt("lang", kw(false))
	dm.AddFieldMappingsAt("genre", kw(false))
	dm.AddFieldMappingsAt("key", kw(true))
	for _, f := range bleveFields {
		dm.AddFieldMappingsAt(f, stored())
	}
	im.DefaultMapping = dm
	im.DefaultAnalyzer = keyword.Name
	return im, nil
}

// NewBleve indexes recs (in rank order) under dir.
func NewBleve(dir string, recs []format.Record) (*Bleve, error) {
	m, err := bleveMapping()
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, "peer.bleve")
	ix, err := bleve.NewUsing(path, m, bleve.Config.DefaultIndexType, bleve.Config.DefaultKVStore, nil)
	if err != nil {
		return nil, fmt.Errorf("bleve create: %w", err)
	}
	b := ix.NewBatch()
	for rn := range recs {
		r := &recs[rn]
		k := KeysOf(r)
		doc := map[string]any{
			"name": strings.Join(k.NameTokens, " "), "all": strings.Join(k.AllTokens, " "),
			"cc": k.Country, "lang": k.Langs, "genre": k.Genres, "key": k.NameKey,
			"id": r.ID.String(), "dname": r.Name, "country": r.Country, "location": r.Location,
			"languages": strings.Join(r.Languages, ","), "genres": strings.Join(r.Genres, ","), "stream": r.StreamURL,
		}
		if err := b.Index(fmt.Sprintf("%09d", rn), doc); err != nil {
			return nil, err
		}
		if b.Size() >= 2000 {
			if err := ix.Batch(b); err != nil {
				return nil, fmt.Errorf("bleve batch: %w", err)
			}
			b = ix.NewBatch()
		}
	}
	if err := ix.Batch(b); err != nil {
		return nil, fmt.Errorf("bleve batch: %w", err)
	}
	if err := ix.Close(); err != nil {
		return nil, err
	}
	ix, err = bleve.Open(path)
	if err != nil {
		return nil, fmt.Errorf("bleve reopen: %w", err)
	}
	return &Bleve{ix: ix}, nil
}

func (e *Bleve) Name() string { return "bleve" }

func (e *Bleve) Search(q mix.Query, ids bool) (int, []string, error) {
	req, ok := e.request(q)
	if !ok {
		return 0, nil, nil
	}
	res, err := e.ix.Search(req)
	if err != nil {
		return 0, nil, fmt.Errorf("bleve search: %w", err)
	}
	var out []string
	if ids {
		for _, h := range res.Hits {
			id, _ := h.Fields["id"].(string)
			out = append(out, id)
		}
	}
	return int(res.Total), out, nil
}

// request builds the Bleve search for q; false when q can match nothing.
func (e *Bleve) request(q mix.Query) (*bleve.SearchRequest, bool) {
	k := QueryKeysOf(q)
	if q.Q != "" && len(k.Words) == 0 {
		return nil, false
	}
	var conj []query.Query
	for _, w := range k.Words {
		p := bleve.NewPrefixQuery(w)
		p.SetField("all")
		conj = append(conj, p)
	}
	term := func(field, v string) *query.TermQuery {
		t := bleve.NewTermQuery(v)
		t.SetField(field)
		return t
	}
	if k.Country != "" {
		conj = append(conj, term("cc", k.Country))
	}
	if k.Language {
		var d []query.Query
		for _, l := range k.Langs {
			d = append(d, term("lang", l))
		}
		conj = append(conj, bleve.NewDisjunctionQuery(d...))
	}
	if k.Genre != "" {
		conj = append(conj, term("genre", k.Genre))
	}
	var qq query.Query = bleve.NewMatchAllQuery()
	if len(conj) > 0 {
		qq = bleve.NewConjunctionQuery(conj...)
	}
	req := bleve.NewSearchRequestOptions(qq, q.Limit, q.Offset, false)
	req.SortBy([]string{"key", "_id"})
	req.Fields = bleveFields
	return req, true
}

func (e *Bleve) Close() error { return e.ix.Close() }
