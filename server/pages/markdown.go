package pages

import (
	"strings"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	"stationdex/server/core"
)

// The twin is written as the HTML page is (html.go): appended to the
// response buffer piece by piece, never through an intermediate string,
// which made a station's twin five times the cost of its HTML page.
func (s *Server) AppendMarkdown(dst []byte, p *Page, f Footer) []byte {
	dst = appendMdLine(append(dst, "# "...), p.Heading, "\n\n")
	if p.Error != "" {
		dst = appendMdLine(append(dst, "**Error:** "...), p.Error, "\n\n")
	}
	if p.Form != nil {
		dst = appendMdForm(dst, p.Form)
	}
	for i := range p.Blocks {
		dst = appendMdBlock(dst, &p.Blocks[i])
	}
	if p.Pager != nil {
		dst = appendMdPager(dst, p.Pager)
	}
	return appendMdFooter(append(dst, "---\n\n"...), f)
}

// mdFooter is the twin's footer line as written for one snapshot.
type mdFooter struct {
	at     time.Time
	source string
	md     []byte
}

// mdFooterKept is the footer line last written: a node serves one
// snapshot at a time.
var mdFooterKept atomic.Pointer[mdFooter]

// appendMdFooter writes what the twin says of its data (f.text, made
// literal), written once per snapshot and then copied. Equal instants
// are written alike (in UTC).
func appendMdFooter(dst []byte, f Footer) []byte {
	if k := mdFooterKept.Load(); k != nil && k.at.Equal(f.SnapshotAt) && k.source == f.Source {
		return append(dst, k.md...)
	}
	k := &mdFooter{at: f.SnapshotAt, source: f.Source, md: appendMdLine(nil, f.text(), "\n")}
	mdFooterKept.Store(k)
	return append(dst, k.md...)
}

func appendMdForm(dst []byte, f *SearchForm) []byte {
	dst = append(dst, "Search with a GET request to "...)
	dst = appendMdTwinLink(dst, mdTwin(f.Action), f.Action, "")
	dst = append(append(append(dst, " and the parameters "...), formParams...), ", for example "...)
	dst = appendMdTwinLink(dst, "jazz stations in Germany", f.Action, "?q=jazz&country=de")
	return append(dst, ".\n\n"...)
}

// appendMdLine writes text made literal (mdText's rules), then end.
func appendMdLine(dst []byte, text, end string) []byte {
	return append(appendMdText(dst, text), end...)
}

func appendMdBlock(dst []byte, bl *Block) []byte {
	if bl.Heading != "" {
		dst = appendMdLine(append(dst, "## "...), bl.Heading, "\n\n")
	}
	for _, t := range bl.Text {
		dst = appendMdLine(dst, t, "\n\n")
	}
	if bl.Notice != "" {
		dst = appendMdLine(append(dst, "> **Note:** "...), bl.Notice, "\n\n")
	}
	for _, f := range bl.Facts {
		dst = appendMdLine(append(dst, "- **"...), f.Name, ":** ")
		for i, v := range f.Values {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = appendMdValue(dst, v)
		}
		dst = append(dst, '\n')
	}
	if len(bl.Facts) > 0 {
		dst = append(dst, '\n')
	}
	for _, l := range bl.Links {
		dst = appendMdValue(append(dst, "- "...), l)
		if l.Note != "" {
			dst = appendMdText(append(dst, " — "...), l.Note)
		}
		dst = append(dst, '\n')
	}
	if len(bl.Links) > 0 {
		dst = append(dst, '\n')
	}
	if bl.Code != "" {
		// Our own text (the guide's examples), never station data; the
		// fence is longer than any backtick run inside.
		dst = append(append(append(dst, "~~~sh\n"...), bl.Code...), "\n~~~\n\n"...)
	}
	if bl.Audio != "" {
		dst = appendMdLink(append(dst, "Stream: "...), bl.Audio, bl.Audio)
		dst = append(dst, "\n\n"...)
	}
	return dst
}

// appendMdValue writes a link: to the Markdown twin for internal pages,
// the address itself for external ones, plain text without Href.
func appendMdValue(dst []byte, l Link) []byte {
	switch {
	case l.Href == "":
		return appendMdText(dst, l.Text)
	case l.Internal:
		return appendMdTwinLink(dst, l.Text, l.Href, "")
	default:
		return appendMdLink(dst, l.Text, l.Href)
	}
}

func appendMdPager(dst []byte, p *Pager) []byte {
	dst = appendMdLine(dst, p.Summary, "\n\n")
	if p.Prev != "" {
		dst = append(appendMdTwinLink(append(dst, "- "...), "Previous page", p.Prev, ""), '\n')
	}
	if p.Next != "" {
		dst = append(appendMdTwinLink(append(dst, "- "...), "Next page", p.Next, ""), '\n')
	}
	if p.Prev != "" || p.Next != "" {
		dst = append(dst, '\n')
	}
	return dst
}

// mdTwin is the Markdown twin of a page URL: index.md appended to its path,
// the query kept. URLs that are not pages (no trailing slash) are kept.
func mdTwin(u string) string {
	path, index, query := twinParts(u)
	if index == "" {
		return u
	}
	return path + index + query
}

// twinParts splits u into what its twin is made of, in order: the path,
// markdownIndex when u is a page ("" when not: then path is all of u),
// and the query with its "?" ("" for none).
func twinParts(u string) (path, index, query string) {
	path, _, _ = strings.Cut(u, "?")
	if !strings.HasSuffix(path, "/") {
		return u, "", ""
	}
	return path, core.MarkdownIndex, u[len(path):]
}

// MdLink is [text](<dest>) as a string, for text that is not a page.
func MdLink(text, dest string) string { return string(appendMdLink(nil, text, dest)) }

// appendMdLink writes [text](<dest>). dest is an http(s) URL; the
// characters that could end the <...> form or escape out of it are
// percent-encoded.
func appendMdLink(dst []byte, text, dest string) []byte {
	return append(appendMdDest(appendMdText(append(dst, '['), text), "](<", dest), ">)"...)
}

// appendMdTwinLink writes a link to the Markdown twin of page URL u with
// query appended ("" for none), as appendMdLink(text, mdTwin(u)+query)
// would, without making either string.
func appendMdTwinLink(dst []byte, text, u, query string) []byte {
	path, index, q := twinParts(u)
	dst = appendMdDest(appendMdText(append(dst, '['), text), "](<", path, index, q, query)
	return append(dst, ">)"...)
}

// appendMdDest writes open, then each part of a link destination with the
// bytes that could end its <...> form percent-encoded and line breaks
// dropped.
func appendMdDest(dst []byte, open string, parts ...string) []byte {
	dst = append(dst, open...)
	for _, p := range parts {
		written := 0
		for i := 0; i < len(p); i++ {
			d := &mdDestBytes[p[i]]
			if !d.replaced {
				continue
			}
			dst = append(append(dst, p[written:i]...), d.with...)
			written = i + 1
		}
		dst = append(dst, p[written:]...)
	}
	return dst
}

// mdDestBytes says which bytes of a destination are replaced, and with
// what.
var mdDestBytes = func() (t [256]struct {
	replaced bool
	with     string
}) {
	for c, with := range map[byte]string{'<': "%3C", '>': "%3E", '\\': "%5C", ' ': "%20", '\n': "", '\r': ""} {
		t[c].replaced, t[c].with = true, with
	}
	return t
}()

// MdText makes untrusted text literal Markdown: cleaned (cleanText), white
// space collapsed to single spaces so it stays on one line, and a backslash
// put only before the characters that could start markup where they stand,
// so that "read-only", "12:38:23Z" and "?q=words&country=" read as written.
// The text may begin a line (a paragraph, a list item, a heading), so its
// first character is escaped when it could open a block there.
func MdText(s string) string {
	if isPlainLine(s) && !hasMdMarkup(s) {
		return s // most names: nothing to escape, nothing to copy
	}
	return string(appendMdText(nil, s))
}

// appendMdText appends s as mdText makes it. Text that is printable ASCII
// on one line is escaped as it stands; other text is cleaned into dst
// first, and copied once more only when it holds a byte to escape.
func appendMdText(dst []byte, s string) []byte {
	if isPlainLine(s) {
		return appendMdEscaped(dst, s)
	}
	start := len(dst)
	dst = appendMdClean(dst, s)
	if !hasMdMarkup(dst[start:]) {
		return dst
	}
	return appendMdEscaped(dst[:start], string(dst[start:]))
}

// isPlainLine reports whether s is printable ASCII that cleanText keeps
// and a collapse of white space leaves as it is.
func isPlainLine(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' || c > '~' || c == ' ' && (i == 0 || i == len(s)-1 || s[i+1] == ' ') {
			return false
		}
	}
	return true
}

// appendMdClean appends s cleaned (cleanText, invalid UTF-8 as U+FFFD)
// with its runs of white space made single spaces and none at either end:
// strings.Fields and a join with spaces, without either's allocations.
func appendMdClean(dst []byte, s string) []byte {
	start, space := len(dst), false
	for _, r := range s { // invalid UTF-8 reads as U+FFFD, as strings.Map writes it
		if r = cleanRune(r); r < 0 {
			continue
		}
		if unicode.IsSpace(r) {
			space = true
			continue
		}
		if space && len(dst) > start {
			dst = append(dst, ' ')
		}
		space = false
		dst = utf8.AppendRune(dst, r)
	}
	return dst
}

func hasMdMarkup[T string | []byte](s T) bool {
	for i := 0; i < len(s); i++ {
		if mdMarkup[s[i]] {
			return true
		}
	}
	return false
}

// appendMdEscaped appends s with a backslash before each byte mdEscapes
// names.
func appendMdEscaped(dst []byte, s string) []byte {
	written := 0
	for i := 0; i < len(s); i++ {
		if mdMarkup[s[i]] && MdEscapes(s, i) {
			dst = append(append(dst, s[written:i]...), '\\')
			written = i
		}
	}
	return append(dst, s[written:]...)
}

// mdMarkup holds the bytes mdEscapes may escape: the scan asks mdEscapes
// only about those.
var mdMarkup = func() (t [256]bool) {
	for _, c := range []byte("\\`*[]<~_&:@.)#-+>=|") {
		t[c] = true
	}
	return t
}()

// MdEscapes reports whether s[i] needs a backslash.
func MdEscapes(s string, i int) bool {
	switch c := s[i]; c {
	case '\\', '`', '*', '[', ']', '<', '~':
		// Escapes, code, emphasis, links and images, raw HTML and
		// autolinks, strikethrough: markup wherever they stand.
		return true
	case '_':
		// Emphasis, except inside a word, where CommonMark never reads it.
		return !(i > 0 && isAlnum(s[i-1]) && i+1 < len(s) && isAlnum(s[i+1]))
	case '&':
		return isEntity(s[i+1:])
	case ':':
		return strings.HasPrefix(s[i+1:], "//") // a scheme's URL autolink
	case '@':
		return i > 0 && isEmailByte(s[i-1]) && i+1 < len(s) && isAlnum(s[i+1])
	case '.':
		return i >= 3 && strings.EqualFold(s[i-3:i], "www") && (i == 3 || !isAlnum(s[i-4])) ||
			mdOrderedMarker(s, i)
	case ')':
		return mdOrderedMarker(s, i)
	case '#':
		// A heading at the start, or its closing sequence at the end.
		return i == 0 || strings.Trim(s[i:], "#") == "" && s[i-1] == ' '
	case '-', '+', '>', '=', '|':
		return i == 0 // a list, a thematic break, a quote, a setext line, a table row
	}
	return false
}

// mdOrderedMarker: s[i] ends a run of digits that begins the text, which
// makes it an ordered list item.
func mdOrderedMarker(s string, i int) bool {
	return i > 0 && i <= 9 && strings.Trim(s[:i], "0123456789") == ""
}

// isEntity: rest (after an '&') reads as an entity or character reference.
func isEntity(rest string) bool {
	n := 0
	for n < len(rest) && n < 32 && (isAlnum(rest[n]) || n == 0 && rest[n] == '#') {
		n++
	}
	return n > 0 && n < len(rest) && rest[n] == ';'
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// isEmailByte: c may end the local part of an email autolink. The GFM spec
// allows only alphanumerics and ".-_+" there, but goldmark's linkify reads
// the local part as HTML's email grammar does, punctuation such as "!" and
// "=" included ("0!@0.0" became a link): the wider set is escaped for.
func isEmailByte(c byte) bool {
	return isAlnum(c) || strings.IndexByte(".!#$%&'*+/=?^_`{|}~-", c) >= 0
}
