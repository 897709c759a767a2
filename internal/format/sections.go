package format

// Sections are the optional parts of an index file. A section is a set of
// buckets that a file has all of or none of; its meta document declares
// which it has (Meta.Sections), the indexer writes them when asked
// (indexer.Options.Sections), and a reader checks once, when the file
// opens, that the buckets are there exactly as declared. The search, the
// pages and the station API need none of them: each section serves one
// adapter over the engine.
type Sections uint8

// The sections.
const (
	// SectionRBAPI is what the Radio Browser API under /json/ reads:
	// each station's object as the upstream directory sends it, its
	// flags, URLs and countries as posting lists, the name grams of its
	// substring match and its orders (RBAPIBuckets). It about doubles
	// the file. Written by `stationdex index -compat`; declared by the
	// meta document's "compat" key.
	SectionRBAPI Sections = 1 << iota
)

// Has reports whether s holds every section of x.
func (s Sections) Has(x Sections) bool { return s&x == x }

// Buckets lists the buckets of the sections in s, in AllBuckets' manner:
// a file with s has exactly AllBuckets and these.
func (s Sections) Buckets() [][]byte {
	if s.Has(SectionRBAPI) {
		return RBAPIBuckets
	}
	return nil
}

// PostingBuckets lists the posting buckets among s's Buckets.
func (s Sections) PostingBuckets() [][]byte {
	if s.Has(SectionRBAPI) {
		return RBAPIPostingBuckets
	}
	return nil
}

// Sections is the set of sections the meta document declares.
func (m *Meta) Sections() Sections {
	var s Sections
	if m.RBAPI {
		s |= SectionRBAPI
	}
	return s
}

// WithSections is m declaring the sections s.
func (m Meta) WithSections(s Sections) Meta {
	m.RBAPI = s.Has(SectionRBAPI)
	return m
}
