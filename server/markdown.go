package server

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// The Markdown twin of every page, rendered from the same Page as the HTML.
// Station text is untrusted: every piece of it goes through mdText, which
// backslash-escapes the ASCII punctuation that could open markup where it
// stands, so no name can open a link, an image, emphasis, code, a heading,
// a list, a table, raw HTML, an entity or an autolink ("https\://",
// "www\." and "a\@b" do not match), while ordinary punctuation reads as
// written.
// Link destinations are ours or http(s) addresses, written in <...> form.

// markdownMediaType is the Content-Type of every Markdown response.
const markdownMediaType = "text/markdown; charset=utf-8"

// markdownIndex is what is appended to a page URL to name its twin.
const markdownIndex = "index.md"

func (s *Server) appendMarkdown(dst []byte, p *page, f footer) []byte {
	b := bytes.NewBuffer(dst)
	b.WriteString("# " + mdText(p.Heading) + "\n\n")
	if p.Error != "" {
		b.WriteString("**Error:** " + mdText(p.Error) + "\n\n")
	}
	if p.Form != nil {
		s.mdForm(b, p.Form)
	}
	for i := range p.Blocks {
		mdBlock(b, &p.Blocks[i])
	}
	if p.Pager != nil {
		mdPager(b, p.Pager)
	}
	b.WriteString("---\n\n" + mdText(f.text()) + "\n")
	return b.Bytes()
}

func (s *Server) mdForm(b *bytes.Buffer, f *searchForm) {
	b.WriteString("Search with a GET request to " + mdLink(mdTwin(f.Action), mdTwin(f.Action)) +
		" and the parameters " + formParams + ", for example " +
		mdLink("jazz stations in Germany", mdTwin(f.Action)+"?q=jazz&country=de") + ".\n\n")
}

func mdBlock(b *bytes.Buffer, bl *block) {
	if bl.Heading != "" {
		b.WriteString("## " + mdText(bl.Heading) + "\n\n")
	}
	for _, t := range bl.Text {
		b.WriteString(mdText(t) + "\n\n")
	}
	if bl.Notice != "" {
		b.WriteString("> **Note:** " + mdText(bl.Notice) + "\n\n")
	}
	for _, f := range bl.Facts {
		b.WriteString("- **" + mdText(f.Name) + ":** " + mdValues(f.Values) + "\n")
	}
	if len(bl.Facts) > 0 {
		b.WriteString("\n")
	}
	for _, l := range bl.Links {
		b.WriteString("- " + mdValue(l))
		if l.Note != "" {
			b.WriteString(" — " + mdText(l.Note))
		}
		b.WriteString("\n")
	}
	if len(bl.Links) > 0 {
		b.WriteString("\n")
	}
	if bl.Code != "" {
		// Our own text (the guide's examples), never station data; the
		// fence is longer than any backtick run inside.
		b.WriteString("~~~sh\n" + bl.Code + "\n~~~\n\n")
	}
	if bl.Audio != "" {
		b.WriteString("Stream: " + mdLink(bl.Audio, bl.Audio) + "\n\n")
	}
}

func mdValues(vs []link) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = mdValue(v)
	}
	return strings.Join(parts, ", ")
}

// mdValue renders a Link: a link to the Markdown twin for internal pages,
// the address itself for external ones, plain text without Href.
func mdValue(l link) string {
	switch {
	case l.Href == "":
		return mdText(l.Text)
	case l.Internal:
		return mdLink(l.Text, mdTwin(l.Href))
	default:
		return mdLink(l.Text, l.Href)
	}
}

func mdPager(b *bytes.Buffer, p *pager) {
	b.WriteString(mdText(p.Summary) + "\n\n")
	if p.Prev != "" {
		b.WriteString("- " + mdLink("Previous page", mdTwin(p.Prev)) + "\n")
	}
	if p.Next != "" {
		b.WriteString("- " + mdLink("Next page", mdTwin(p.Next)) + "\n")
	}
	if p.Prev != "" || p.Next != "" {
		b.WriteString("\n")
	}
}

// mdTwin is the Markdown twin of a page URL: index.md appended to its path,
// the query kept. URLs that are not pages (no trailing slash) are kept.
func mdTwin(u string) string {
	path, query, hasQuery := strings.Cut(u, "?")
	if !strings.HasSuffix(path, "/") {
		return u
	}
	path += markdownIndex
	if hasQuery {
		return path + "?" + query
	}
	return path
}

// mdLink is [text](<dest>). dest is an http(s) URL; the characters that
// could end the <...> form or escape out of it are percent-encoded.
func mdLink(text, dest string) string {
	return "[" + mdText(text) + "](<" + mdDestEscaper.Replace(dest) + ">)"
}

var mdDestEscaper = strings.NewReplacer("<", "%3C", ">", "%3E", "\\", "%5C", " ", "%20", "\n", "", "\r", "")

// mdText makes untrusted text literal Markdown: cleaned (cleanText), white
// space collapsed to single spaces so it stays on one line, and a backslash
// put only before the characters that could start markup where they stand,
// so that "read-only", "12:38:23Z" and "?q=words&country=" read as written.
// The text may begin a line (a paragraph, a list item, a heading), so its
// first character is escaped when it could open a block there.
func mdText(s string) string {
	s = cleanText(s)
	if !singleSpaced(s) {
		s = strings.Join(strings.Fields(s), " ")
	}
	if strings.IndexFunc(s, mdMarkupByte) < 0 {
		return s // most names: nothing to escape, nothing to copy
	}
	var b strings.Builder
	b.Grow(len(s) + len(s)/8)
	for i := 0; i < len(s); i++ {
		if mdEscapes(s, i) {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// singleSpaced reports whether s is as strings.Fields and a join with
// single spaces would leave it.
func singleSpaced(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			return false // Unicode spaces: let Fields decide
		}
		if c == ' ' && (i == 0 || i == len(s)-1 || s[i+1] == ' ') || c != ' ' && asciiSpace(c) {
			return false
		}
	}
	return true
}

func asciiSpace(c byte) bool { return c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r' }

// mdMarkupByte reports whether r is one of the bytes mdEscapes may
// escape.
func mdMarkupByte(r rune) bool {
	return r < utf8.RuneSelf && strings.IndexByte("\\`*[]<~_&:@.)#-+>=|", byte(r)) >= 0
}

// mdEscapes reports whether s[i] needs a backslash.
func mdEscapes(s string, i int) bool {
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

func isEmailByte(c byte) bool { return isAlnum(c) || strings.IndexByte(".-_+", c) >= 0 }
