package pages

import (
	"strings"
)

// The escaping of the HTML pages: byte for byte what html/template does in
// the contexts the layout uses (see html.go), so that pages written by
// hand are the pages the template wrote.

// htmlEscapes are html/template's replacements (htmlReplacementTable) in
// text, in RCDATA (<title>) and in quoted attribute values. NUL becomes
// U+FFFD. Every byte replaced is ASCII, and bytes of invalid UTF-8 pass
// through as html/template lets them, so escaping byte by byte is exact.
var htmlEscapes = [256]string{
	0:    "\uFFFD",
	'"':  "&#34;",
	'&':  "&amp;",
	'\'': "&#39;",
	'+':  "&#43;",
	'<':  "&lt;",
	'>':  "&gt;",
}

// appendText appends s escaped for HTML text or a quoted attribute value.
func appendText[T string | []byte](dst []byte, s T) []byte {
	written := 0
	for i := 0; i < len(s); i++ {
		if htmlEscaped[s[i]] {
			dst = append(append(dst, s[written:i]...), htmlEscapes[s[i]]...)
			written = i + 1
		}
	}
	return append(dst, s[written:]...)
}

// htmlEscaped marks the bytes htmlEscapes replaces: the scan reads a byte
// per byte of text, where the strings' table holds sixteen.
var htmlEscaped = func() (t [256]bool) {
	for c, r := range htmlEscapes {
		t[c] = r != ""
	}
	return t
}()

// appendWrapped writes text, escaped, between open and close (markup).
func appendWrapped(dst []byte, open, text, close string) []byte {
	return append(appendText(append(dst, open...), text), close...)
}

// appendHref writes url, as appendURL does, between open and close.
func appendHref(dst []byte, open, url, close string) []byte {
	return append(AppendURL(append(dst, open...), url), close...)
}

// urlBytes says what html/template's URL normaliser and attribute escaper
// do, in turn, to each byte of a URL in an attribute (href, src, action):
// RFC 3986's unreserved and reserved characters are kept, except the
// quote and parentheses, then '&' and '+' are HTML-escaped in the
// attribute; a '%' that starts a valid escape is kept; every other byte
// is percent-encoded in lower-case hex.
var urlBytes = func() (t [256]byte) {
	const kept = "!#$*,/:;=?@[]-._~"
	for c := range 256 {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', strings.IndexByte(kept, byte(c)) >= 0:
			t[c] = urlKeep
		case c == '&' || c == '+':
			t[c] = urlEntity
		case c == '%':
			t[c] = urlPercent
		default:
			t[c] = urlEncode
		}
	}
	return t
}()

const (
	urlEncode = iota
	urlKeep
	urlEntity
	urlPercent
)

// unsafeURL is what html/template's URL filter writes instead of a URL
// with a scheme other than http, https or mailto.
const unsafeURL = "#ZgotmplZ"

// AppendURL appends u as html/template writes a value into a URL
// attribute where no other value stands before it in the same URL (true of
// every URL the layout writes, even of the second of two values in a row):
// filtered, normalised, then HTML-escaped.
func AppendURL(dst []byte, u string) []byte {
	if !isSafeURL(u) {
		return append(dst, unsafeURL...)
	}
	written := 0
	for i := 0; i < len(u); i++ {
		c := u[i]
		switch urlBytes[c] {
		case urlKeep:
			continue
		case urlPercent:
			if i+2 < len(u) && isHexDigit(u[i+1]) && isHexDigit(u[i+2]) {
				continue
			}
		}
		dst = append(dst, u[written:i]...)
		written = i + 1
		if urlBytes[c] == urlEntity {
			dst = append(dst, htmlEscapes[c]...)
			continue
		}
		dst = append(dst, '%', lowerHex[c>>4], lowerHex[c&0xf])
	}
	return append(dst, u[written:]...)
}

const lowerHex = "0123456789abcdef"

func isHexDigit(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// isSafeURL: a relative URL, or one whose scheme is http, https or mailto
// in any case (html/template's isSafeURL).
func isSafeURL(u string) bool {
	if strings.HasPrefix(u, "https://") || strings.HasPrefix(u, "http://") {
		return true // every link the pages make: no scan for the colon
	}
	scheme, _, ok := strings.Cut(u, ":")
	if !ok || strings.Contains(scheme, "/") {
		return true
	}
	return strings.EqualFold(scheme, "http") || strings.EqualFold(scheme, "https") || strings.EqualFold(scheme, "mailto")
}
