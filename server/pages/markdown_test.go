package pages

import (
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	gmtext "github.com/yuin/goldmark/text"
)

// FuzzMarkdownText: whatever a station is called, mdText makes it literal
// text. Rendered as a heading and as a list item, the parsed document has
// exactly that one block, holding only text (no link, autolink, image,
// emphasis, code span or raw HTML), and the text is the cleaned name.
func FuzzMarkdownText(f *testing.F) {
	for _, s := range []string{
		"<script>alert('x')</script> Markup Radio", "[Click me](https://evil.example) *bold* _radio_ | table |",
		"Bidi \u202eoidar\u202c Radio", "Line\r\nBreak", "http://www.url-as-name.example.com", "a@b.example",
		"1. FM", "# heading", "`code`", "&amp; &#82;", "***", "---", "> quote", "![img](x.png)", "\\", "~~gone~~",
		"<https://x.example>", "[x]: https://x.example", "| a | b |", "=====",
		"read-only 2025-02-27T12:38:23Z (radio-browser.info) ?q=words&country=", "snake_case _em_", "10. Rock",
		"2) FM", "Rock #", "#1 Hits", "+ plus", "www.example.com", "ftp://x.example", "x@y.example", "&copy; & co",
		"a\\b", "*", "Radio ~~x~~ ~y~", "  - - -", "1.5 FM", "FM 1)", "#", "# #", "=",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := strings.Join(strings.Fields(CleanText(s)), " ")
		if got, full := MdText(s), mdTextByRule(s); got != full {
			t.Errorf("%q: mdText %q, by the rule on every byte %q", s, got, full)
		}
		for _, prefix := range []string{"", "# ", "- ", "## x "} {
			src := []byte(prefix + MdText(s) + "\n")
			root := markdownParser.Parser().Parse(gmtext.NewReader(src))
			var got strings.Builder
			blocks := 0
			ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
				if !entering {
					return ast.WalkContinue, nil
				}
				switch n := n.(type) {
				case *ast.Document, *ast.Paragraph, *ast.TextBlock:
				case *ast.Heading, *ast.List, *ast.ListItem:
					blocks++
				case *ast.Text:
					got.Write(n.Segment.Value(src))
					if n.SoftLineBreak() || n.HardLineBreak() {
						t.Errorf("%q: line break in %q", s, src)
					}
				case *ast.String:
					got.Write(n.Value)
				default:
					t.Errorf("%q renders a %s node: %q", s, n.Kind(), src)
				}
				return ast.WalkContinue, nil
			})
			if blocks > 2 {
				t.Errorf("%q: %d blocks in %q", s, blocks, src)
			}
			text := mdUnescape(got.String())
			if prefix == "## x " {
				text = strings.TrimPrefix(strings.TrimSpace(text), "x")
			}
			if strings.TrimSpace(text) != strings.TrimSpace(want) {
				t.Errorf("%q: text %q, want %q (source %q)", s, text, want, src)
			}
		}
	})
}

// mdTextByRule is mdText without its shortcuts: every byte through
// mdEscapes, spaces always collapsed.
func mdTextByRule(s string) string {
	s = strings.Join(strings.Fields(CleanText(s)), " ")
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if MdEscapes(s, i) {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// TestMarkdownTextReadable: ordinary punctuation is written as it is; only
// what could start markup where it stands gets a backslash.
func TestMarkdownTextReadable(t *testing.T) {
	for in, want := range map[string]string{
		"A read-only API":                   "A read-only API",
		"taken 2025-02-27T12:38:23Z":        "taken 2025-02-27T12:38:23Z",
		"source (radio-browser.info).":      "source (radio-browser.info).",
		"/search/?q=words&country=de":       "/search/?q=words&country=de",
		"Rock & Roll; 100% hits, \"live\"!": "Rock & Roll; 100% hits, \"live\"!",
		"snake_case":                        "snake_case",
		"- dash first":                      "\\- dash first",
		"1. first":                          "1\\. first",
		"*bold* _em_ `code`":                "\\*bold\\* \\_em\\_ \\`code\\`",
		"[x](https://a.example)":            "\\[x\\](https\\://a.example)",
		"www.example.org a@b.example":       "www\\.example.org a\\@b.example",
		"&amp; &#82;":                       "\\&amp; \\&#82;",
		"<b>":                               "\\<b>",
		"Hits #":                            "Hits \\#",
	} {
		if got := MdText(in); got != want {
			t.Errorf("mdText(%q) = %q, want %q", in, got, want)
		}
	}
}

// markdownParser reads Markdown as CommonMark with GitHub's extensions.
var markdownParser = goldmark.New(goldmark.WithExtensions(extension.GFM))

// asciiPunct is what CommonMark lets a backslash escape.
const asciiPunct = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"

// mdUnescape undoes mdText's backslash escapes, to compare text.
func mdUnescape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte(asciiPunct, s[i+1]) >= 0 {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
