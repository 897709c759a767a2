package pages

import (
	"reflect"
	"testing"

	"stationdex/internal/format"
	"stationdex/internal/stationjson"
	"stationdex/server/core"
)

// TestFacetFactsAsLinkedOneByOne: a station page's location, languages
// and genres, their addresses written into one string, are the links
// locationValue and facetValues make one by one (each address by
// stationjson.FacetURL), for clean and hostile values, values without a
// page, and none.
func TestFacetFactsAsLinkedOneByOne(t *testing.T) {
	for _, r := range []format.Record{
		{},
		{Location: "Berlin", Languages: []string{"german", "English"}, Genres: []string{"rock", "Hip-Hop", "drum & bass"}},
		{Location: "..", Languages: []string{"."}, Genres: []string{"", "!!!", "ünïcode/ß", "a\u202eb"}},
		{Location: "São Paulo / SP", Genres: []string{"pop"}},
		{Languages: []string{"french"}},
	} {
		var got, want pageLinks
		loc, langs, genres := got.facetFacts("https://x.example/dex", &r)
		wantLoc := want.add(locationValue("https://x.example/dex", r.Location))
		wantLangs := want.facetValues("https://x.example/dex", r.Languages, stationjson.KindLanguages, languageLabel)
		wantGenres := want.facetValues("https://x.example/dex", r.Genres, stationjson.KindGenres, nil)
		for _, c := range []struct {
			name      string
			got, want []Link
		}{{"location", loc, wantLoc}, {"languages", langs, wantLangs}, {"genres", genres, wantGenres}} {
			if len(c.got) != len(c.want) || cap(c.got) != len(c.got) {
				t.Errorf("%+v %s: %d links (room for %d), want %d", r, c.name, len(c.got), cap(c.got), len(c.want))
				continue
			}
			for i := range c.got {
				if c.got[i] != c.want[i] {
					t.Errorf("%+v %s: %+v, want %+v", r, c.name, c.got[i], c.want[i])
				}
			}
		}
	}
}

// TestPooledModelsFreedClear: a station or listening page's model, given
// back once the page is written, keeps no page text (nothing of one page
// can reach the next) but the station model's links' array, and only up
// to maxKeptLinks.
func TestPooledModelsFreedClear(t *testing.T) {
	s := &Server{&core.Server{Base: "https://x.example"}}
	r := format.Record{Name: "Radio", Location: "Berlin", Genres: []string{"rock", "pop"}, StreamURL: "https://s.example/a.mp3"}
	p := s.StationPageOf(&r, Block{}, Block{})
	m, ok := p.model.(*stationModel)
	if !ok || len(m.links) == 0 {
		t.Fatalf("station page model %T with %d links", p.model, len(m.links))
	}
	p.free()
	if !reflect.DeepEqual(m.page, Page{}) || !reflect.DeepEqual(m.blocks, [5]Block{}) || !reflect.DeepEqual(m.facts, [8]Fact{}) || len(m.links) != 0 || cap(m.links) == 0 {
		t.Errorf("freed station model not cleared: %+v (links %d of %d)", m.page, len(m.links), cap(m.links))
	}
	for _, l := range m.links[:cap(m.links)] {
		if l != (Link{}) {
			t.Errorf("freed station model keeps a link %+v", l)
		}
	}
	r.Genres = make([]string, 2*maxKeptLinks)
	p = s.StationPageOf(&r, Block{}, Block{})
	m = p.model.(*stationModel)
	p.free()
	if m.links != nil {
		t.Errorf("freed station model keeps an array of %d links", cap(m.links))
	}
	lp := s.ListenPageOf(&r)
	lm, ok := lp.model.(*listenModel)
	if !ok {
		t.Fatalf("listening page model %T", lp.model)
	}
	lp.free()
	if !reflect.DeepEqual(*lm, listenModel{}) {
		t.Errorf("freed listening model not cleared: %+v", *lm)
	}
}

// TestSearchModelFreedClear: a search page's model, given back once the
// page is written, keeps no page text but its arrays, cleared, and only
// up to maxKeptLinks links and maxKeptBlocks blocks.
func TestSearchModelFreedClear(t *testing.T) {
	m := &searchModel{}
	fill := func(links, blocks int) {
		m.inputs = fillFormValues(&m.form, m.inputs, "/search/", "q=jazz&country=DE")
		m.links = make([]Link, links)
		for i := range m.links {
			m.links[i] = internalLink("Radio", "https://x.example/stations/a/")
		}
		m.blocks = make([]Block, blocks)
		for i := range m.blocks {
			m.blocks[i] = Block{Heading: "Genre", Links: m.links}
		}
		m.summary[0] = "2 stations"
		m.page = Page{Title: "Search", Form: &m.form, Blocks: m.blocks, model: m}
	}
	fill(40, 8)
	m.page.free()
	if !reflect.DeepEqual(m.page, Page{}) || !reflect.DeepEqual(m.form, SearchForm{}) || m.summary != [1]string{} {
		t.Errorf("freed search model keeps its page: %+v %+v %q", m.page, m.form, m.summary)
	}
	if len(m.links) != 0 || cap(m.links) != 40 || len(m.blocks) != 0 || cap(m.blocks) != 8 || len(m.inputs) != 0 || cap(m.inputs) == 0 {
		t.Errorf("freed search model: links %d of %d, blocks %d of %d, inputs %d of %d",
			len(m.links), cap(m.links), len(m.blocks), cap(m.blocks), len(m.inputs), cap(m.inputs))
	}
	for _, l := range m.links[:cap(m.links)] {
		if l != (Link{}) {
			t.Errorf("freed search model keeps a link %+v", l)
		}
	}
	for _, b := range m.blocks[:cap(m.blocks)] {
		if !reflect.DeepEqual(b, Block{}) {
			t.Errorf("freed search model keeps a block %+v", b)
		}
	}
	for _, in := range m.inputs[:cap(m.inputs)] {
		if in != (FormInput{}) {
			t.Errorf("freed search model keeps a field %+v", in)
		}
	}
	fill(2*maxKeptLinks, 2*maxKeptBlocks)
	m.page.free()
	if m.links != nil || m.blocks != nil {
		t.Errorf("freed search model keeps arrays of %d links and %d blocks", cap(m.links), cap(m.blocks))
	}
}
