package pages

import (
	"cmp"
	"strconv"
)

// The parts of a page's main content, written as html.go says: the search
// form, the blocks with their facts and links, and the pager.

func appendForm(dst []byte, f *SearchForm) []byte {
	dst = AppendURL(append(dst, "\n<form method=\"get\" action=\""...), f.Action)
	dst = append(dst, "\" role=\"search\">"...)
	dst = appendFields(dst, f.Fields)
	if len(f.More) > 0 {
		dst = append(dst, "\n<details"...)
		if f.Open {
			dst = append(dst, " open"...)
		}
		dst = append(dst, "><summary>More filters</summary>"...)
		dst = append(appendFields(dst, f.More), "\n</details>"...)
	}
	return append(dst, "\n<p><button type=\"submit\">Search</button></p>\n</form>"...)
}

// appendFields writes each field on a line: its label, then its control.
func appendFields(dst []byte, fields []FormInput) []byte {
	for i := range fields {
		in := &fields[i]
		if in.Value == "" && in.unset != nil {
			dst = append(dst, *in.unset...)
			continue
		}
		dst = appendText(append(dst, "\n<p><label for=\""...), in.Name)
		dst = appendWrapped(dst, "\">", in.Label, "</label>")
		if in.Type == "select" {
			dst = appendSelect(dst, in)
		} else {
			dst = appendInput(dst, in)
		}
		dst = append(dst, "</p>"...)
	}
	return dst
}

// appendSelect writes a select field: "any" first, then its options, the
// one sent selected.
func appendSelect(dst []byte, in *FormInput) []byte {
	dst = appendWrapped(appendFieldStart(dst, "select", in.Name), "><option value=\"\">", cmp.Or(in.Unset, "any"), "</option>")
	for i, o := range in.Options {
		dst = append(dst, "<option"...)
		if len(in.OptionText) > 0 {
			dst = appendWrapped(dst, " value=\"", o, "\"")
		}
		if o == in.Value {
			dst = append(dst, " selected"...)
		}
		dst = append(dst, '>')
		if len(in.OptionText) > 0 {
			dst = appendText(dst, in.OptionText[i])
		} else {
			dst = appendText(dst, o)
		}
		dst = append(dst, "</option>"...)
	}
	return append(dst, "</select>"...)
}

// appendInput writes an input field with its limits, value and
// placeholder.
func appendInput(dst []byte, in *FormInput) []byte {
	dst = appendWrapped(appendFieldStart(dst, "input", in.Name), " type=\"", in.Type, "\"")
	if in.MaxLength != 0 {
		dst = append(strconv.AppendInt(append(dst, " maxlength=\""...), int64(in.MaxLength), 10), '"')
	}
	if in.Size != 0 {
		dst = append(strconv.AppendInt(append(dst, " size=\""...), int64(in.Size), 10), '"')
	}
	if in.Type == "number" {
		dst = appendNumber(append(dst, " min=\""...), in.Min)
		dst = appendNumber(append(dst, "\" max=\""...), in.Max)
		dst = append(dst, '"')
		if in.Min < 1 {
			dst = append(dst, " step=\"any\""...)
		}
	}
	dst = appendWrapped(dst, " value=\"", in.Value, "\"")
	if in.Placeholder != "" {
		dst = appendWrapped(dst, " placeholder=\"", in.Placeholder, "\"")
	}
	return append(dst, '>')
}

// appendFieldStart opens a form field's element, named and labelled by
// name.
func appendFieldStart(dst []byte, element, name string) []byte {
	dst = appendText(append(append(append(dst, " <"...), element...), " id=\""...), name)
	return appendWrapped(dst, "\" name=\"", name, "\"")
}

// appendNumber writes a float as fmt's %v does (the shortest 'g' form),
// escaped: "+" of an exponent is an entity.
func appendNumber(dst []byte, f float64) []byte {
	var b [32]byte
	return appendText(dst, strconv.AppendFloat(b[:0], f, 'g', -1, 64))
}

// appendBlock writes one section: heading, paragraphs, notice, player,
// facts, links and code, in that order, each only if present.
func appendBlock(dst []byte, b *Block) []byte {
	dst = append(dst, "\n<section>"...)
	if b.Heading != "" {
		dst = appendWrapped(dst, "\n<h2><bdi>", b.Heading, "</bdi></h2>")
	}
	for _, t := range b.Text {
		dst = appendWrapped(dst, "\n<p>", t, "</p>")
	}
	if b.Notice != "" {
		dst = appendWrapped(dst, "\n<p class=\"notice\" role=\"note\"><strong>Note:</strong> ", b.Notice, "</p>")
	}
	if b.Audio != "" {
		dst = appendPlayer(dst, b.Audio)
	}
	if len(b.Facts) > 0 {
		dst = appendFacts(dst, b.Facts)
	}
	if len(b.Links) > 0 {
		dst = appendLinks(dst, b.Links)
	}
	if b.Code != "" {
		dst = appendWrapped(dst, "\n<pre tabindex=\"0\"><code>", b.Code, "</code></pre>")
	}
	return append(dst, "\n</section>"...)
}

// appendPlayer writes an audio player for stream and the stream's link.
func appendPlayer(dst []byte, stream string) []byte {
	dst = AppendURL(append(dst, "\n<p><audio controls preload=\"none\" src=\""...), stream)
	dst = AppendURL(append(dst, "\">Your browser cannot play audio here; use the stream link.</audio></p>\n<p>Stream: <a href=\""...), stream)
	return appendWrapped(dst, "\" rel=\"nofollow noopener\">", stream, "</a></p>")
}

func appendFacts(dst []byte, facts []Fact) []byte {
	dst = append(dst, "\n<dl>"...)
	for i := range facts {
		dst = appendWrapped(dst, "\n<dt>", facts[i].Name, "</dt>\n<dd>")
		for j := range facts[i].Values {
			if j > 0 {
				dst = append(dst, ", "...)
			}
			dst = appendLink(dst, &facts[i].Values[j])
		}
		dst = append(dst, "</dd>"...)
	}
	return append(dst, "\n</dl>"...)
}

func appendLinks(dst []byte, links []Link) []byte {
	dst = append(dst, "\n<ul>"...)
	for i := range links {
		dst = appendLink(append(dst, "\n<li>"...), &links[i])
		if links[i].Note != "" {
			dst = appendWrapped(dst, " <span class=\"note\">", links[i].Note, "</span>")
		}
		dst = append(dst, "</li>"...)
	}
	return append(dst, "\n</ul>"...)
}

// appendLink writes a link, or its text alone when it has no address; the
// text is isolated (<bdi>) so that right-to-left names cannot reorder what
// stands around them. Links elsewhere are nofollow.
func appendLink(dst []byte, l *Link) []byte {
	if l.Href != "" {
		dst = AppendURL(append(dst, "<a href=\""...), l.Href)
		dst = append(dst, '"')
		if !l.Internal {
			dst = append(dst, " rel=\"nofollow noopener\""...)
		}
		dst = append(dst, '>')
	}
	dst = appendWrapped(dst, "<bdi>", l.Text, "</bdi>")
	if l.Href != "" {
		dst = append(dst, "</a>"...)
	}
	return dst
}

func appendPager(dst []byte, p *Pager) []byte {
	dst = appendWrapped(dst, "\n<nav aria-label=\"Pages\" class=\"pager\">\n<p>", p.Summary, "</p>\n<p>")
	if p.Prev != "" {
		dst = appendHref(dst, "<a href=\"", p.Prev, "\" rel=\"prev\">Previous page</a>")
	}
	if p.Prev != "" && p.Next != "" {
		dst = append(dst, " · "...)
	}
	if p.Next != "" {
		dst = appendHref(dst, "<a href=\"", p.Next, "\" rel=\"next\">Next page</a>")
	}
	return append(dst, "</p>\n</nav>"...)
}
