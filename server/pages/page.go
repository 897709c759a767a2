package pages

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"stationdex/server/params"
)

// A page is what every HTML page and its Markdown twin are rendered from:
// one model, two renderers (html.go, markdown.go), so the twins cannot say
// different things. Builders (page_*.go) fill it from the index;
// station text enters it only through cleanText, and links only through
// internalLink and externalLink.
type Page struct {
	Title   string // <title>; also the Markdown title line
	Heading string // the h1
	Path    string // canonical path under the base URL, e.g. "/genres/jazz/"
	Query   string // canonical query string of this page, without '?'
	Status  int    // HTTP status; 0 means 200
	Error   string // a message for the reader (400 and 404 pages)
	Form    *SearchForm
	Blocks  []Block
	Pager   *Pager
	Media   bool // the page plays a stream: its CSP allows media sources
	// Description is the meta description; "" derives one (html.go).
	Description string
	// model is the pooled model the page lives in, if any (a station or
	// listening page): see free.
	model interface{ free() }
}

// free gives p's model back to its pool once p is written and nothing
// reads it any more: p and everything it holds are then cleared. A page
// without a pooled model is left as it is.
func (p *Page) free() {
	if p.model != nil {
		p.model.free()
	}
}

// Block is one section of a page, rendered in this field order.
type Block struct {
	Heading string   // h2, if any
	Text    []string // paragraphs
	Notice  string   // a note the reader must not miss
	Facts   []Fact   // a description list
	Links   []Link   // a list of links
	Code    string   // a preformatted example (the guide's curl commands)
	Audio   string   // an http(s) stream for an <audio> player
}

// Fact is one name with its values in a description list.
type Fact struct {
	Name   string
	Values []Link // a Link without Href is plain text
}

// Link is a link, or plain text when Href is empty. Internal links are
// pages of this service (the Markdown twin links to their Markdown twins);
// external ones are http(s) addresses elsewhere.
type Link struct {
	Text     string
	Href     string
	Note     string // shown after the link, e.g. a station count
	Internal bool
}

// Pager links the neighbours of a paged list.
type Pager struct {
	Summary    string // e.g. "Stations 21–40 of 132"
	Prev, Next string // absolute URLs, "" at either end
}

// SearchForm is the search form and its current values: a field per
// parameter row that has one (see searchParamTable). The words field is
// shown; the others are folded under "More filters" (a <details>, which
// opens without JavaScript), open when one of them has a value, so that
// the results stand near the top of the page.
type SearchForm struct {
	Action string
	Fields []FormInput // always shown
	More   []FormInput // folded
	Open   bool        // the folded fields are shown
}

// FormInput is one field of the search form with the value sent.
type FormInput struct {
	Name string
	*params.FormField
	Value     string
	MaxLength int     // characters, for text
	Min, Max  float64 // for numbers
	// unset is the field written with no value (appendFields), kept for
	// the form's fields as newSearchForm makes them: most are not sent.
	unset *string
}

// formParams names the parameters of the search page (the form's, the
// order and paging; the facets are the API's: the search page counts
// every one), for the Markdown twin.
var formParams = func() string {
	var names []string
	for i := range params.SearchParamTable {
		if row := &params.SearchParamTable[i]; row.Form.Label != "" || row.Group == params.GroupPaging || row.Group == params.GroupOrder {
			names = append(names, row.Name)
		}
	}
	return WordList(names, "and")
}()

// WordList joins names as a sentence lists them: "a, b and c" (or
// "a, b or c" with last "or").
func WordList(names []string, last string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " " + last + " " + names[len(names)-1]
}

// FormQuery is the search form's parameters as an empty query, for
// llms.txt.
var FormQuery = func() string {
	var b strings.Builder
	for i := range params.SearchParamTable {
		if row := &params.SearchParamTable[i]; row.Form.Label != "" {
			if b.Len() > 0 {
				b.WriteByte('&')
			}
			b.WriteString(row.Name + "=")
		}
	}
	return b.String()
}()

// newSearchForm is the search form with the values of sent (any
// parameter not sent is empty): the form and its fields are two
// allocations, the words field first (Fields), the others after it
// (More).
func newSearchForm(action string, sent func(name string) string) *SearchForm {
	return makeSearchForm(action, sent, unsetFields)
}

// makeSearchForm is newSearchForm with the fields written unset by row
// (nil: none kept).
func makeSearchForm(action string, sent func(name string) string, unset []string) *SearchForm {
	f := &SearchForm{}
	fillSearchForm(f, make([]FormInput, 0, formFields), action, sent, unset)
	return f
}

// fillSearchForm is makeSearchForm into f, its fields in all's array
// (grown to formFields if it has less room): the search page's pooled
// model keeps both from one page to the next. It returns the fields'
// array.
func fillSearchForm(f *SearchForm, all []FormInput, action string, sent func(name string) string, unset []string) []FormInput {
	if cap(all) < formFields {
		all = make([]FormInput, 0, formFields)
	}
	all = append(all[:0], FormInput{})
	*f = SearchForm{Action: action}
	for i := range params.SearchParamTable {
		row := &params.SearchParamTable[i]
		if row.Form.Label == "" {
			continue
		}
		in := FormInput{Name: row.Name, FormField: &row.Form, Value: CleanText(sent(row.Name)), MaxLength: row.Spec.MaxLength, Max: row.Spec.Maximum}
		if row.Spec.Pattern == "^[A-Za-z]{2}$" {
			in.MaxLength = 2
		}
		if row.Spec.Minimum != nil {
			in.Min = *row.Spec.Minimum
		}
		if unset != nil {
			in.unset = &unset[i]
		}
		if row.Name == "q" {
			all[0] = in
			continue
		}
		all = append(all, in)
		f.Open = f.Open || in.Value != ""
	}
	f.Fields, f.More = all[:1:1], all[1:]
	return all
}

// unsetFields are the form's fields written with no value, by row of the
// parameter table ("" for a row without a field): what appendFields
// writes for them, made once.
var unsetFields = func() []string {
	f := makeSearchForm("", func(string) string { return "" }, nil)
	out := make([]string, len(params.SearchParamTable))
	for _, in := range append(f.Fields, f.More...) {
		out[params.ParamIndex(in.Name)] = string(appendFields(nil, []FormInput{in}))
	}
	return out
}()

// formFields is how many parameters have a field in the search form.
var formFields = func() int {
	n := 0
	for i := range params.SearchParamTable {
		if params.SearchParamTable[i].Form.Label != "" {
			n++
		}
	}
	return n
}()

// internalLink links a page of this service.
func internalLink(text, href string) Link {
	return Link{Text: CleanText(text), Href: href, Internal: true}
}

// externalLink links an address from the data, or shows it as plain text
// when it is not an http(s) URL: only those may become links.
func externalLink(text, href string) Link {
	if !IsWebURL(href) {
		return Link{Text: CleanText(text)}
	}
	return Link{Text: CleanText(text), Href: href}
}

// textValue is a Fact value that is not a link.
func textValue(s string) Link { return Link{Text: CleanText(s)} }

// IsWebURL accepts absolute http and https URLs only, in any case of the
// scheme: everything else (javascript:, data:, relative references) is
// never rendered as a link or a media source.
func IsWebURL(s string) bool {
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok || rest == "" || hasSpaceOrControl(s) {
		return false
	}
	scheme = strings.ToLower(scheme)
	return scheme == "http" || scheme == "https"
}

// hasSpaceOrControl reports whether s has a rune unicode.IsSpace or
// unicode.IsControl accepts. In ASCII those are the bytes up to the space
// and DEL, checked without a call per byte; past ASCII the functions are.
func hasSpaceOrControl(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c <= ' ' || c == 0x7f:
			return true
		case c >= utf8.RuneSelf:
			return strings.ContainsFunc(s[i:], func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) })
		}
	}
	return false
}

// CleanText prepares station text (user-contributed, untrusted) for any
// output: control characters become spaces and bidirectional formatting
// characters are dropped, so a name can neither break a line-based format
// nor reorder the text around it. Escaping is left to each renderer.
func CleanText(s string) string {
	if printablePrefix(s) == len(s) {
		return s // printable ASCII, which cleanRune keeps: most names
	}
	return strings.Map(cleanRune, s) // s itself when no rune changes
}

// printablePrefix is the length of s's leading printable ASCII, which
// cleanRune keeps as it is.
func printablePrefix(s string) int {
	i := 0
	for i < len(s) && s[i] >= ' ' && s[i] <= '~' {
		i++
	}
	return i
}

// appendCleanText appends cleanText(s) without a string of its own.
func appendCleanText(dst []byte, s string) []byte {
	i := printablePrefix(s)
	dst = append(dst, s[:i]...)
	for _, r := range s[i:] { // invalid UTF-8 reads as U+FFFD, as strings.Map would write it
		if r = cleanRune(r); r >= 0 {
			dst = utf8.AppendRune(dst, r)
		}
	}
	return dst
}

func cleanRune(r rune) rune {
	switch {
	case r < firstBidiControl && !unicode.IsControl(r):
		return r // Latin, Greek, Cyrillic and the like: no table to search
	case IsBidiControl(r):
		return -1
	case unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || r == '\ufffe' || r == '\uffff':
		return ' '
	}
	return r
}

// firstBidiControl is the lowest Bidi_Control character (U+061C).
var firstBidiControl = rune(unicode.Bidi_Control.R16[0].Lo)

// IsBidiControl: the explicit directional marks, embeddings, overrides and
// isolates (Unicode Bidi_Control).
func IsBidiControl(r rune) bool {
	return unicode.Is(unicode.Bidi_Control, r)
}

// cuts are a page's short strings (addresses, titles, notes) cut from one:
// each is appended to b and marked (mark gives its number), then done makes
// b one string, from which get cuts the numbered one. A page's dozen
// addresses then cost one allocation, not one each. b may start on an
// array of the caller's stack: the strings done makes hold no pointer into
// it, so it stays there.
type cuts struct {
	b    []byte
	n    int
	ends [maxCuts]int
}

// maxCuts bounds the strings of one cuts.
const maxCuts = 16

// mark ends the string appended since the last mark and returns its number.
func (t *cuts) mark() int { return t.markAt(len(t.b)) }

// markAt ends a string at n, within what was appended since the last
// mark, and returns its number.
func (t *cuts) markAt(n int) int {
	t.ends[t.n] = n
	t.n++
	return t.n - 1
}

// done makes the marked strings one.
func (t *cuts) done() cutText { return cutText{text: string(t.b), ends: t.ends} }

// cutText is the strings of a cuts made one.
type cutText struct {
	text string
	ends [maxCuts]int
}

// get is string i.
func (c *cutText) get(i int) string {
	start := 0
	if i > 0 {
		start = c.ends[i-1]
	}
	return c.text[start:c.ends[i]]
}
