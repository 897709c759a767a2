package server

import (
	"strings"
)

// etagMatches reports whether an If-None-Match header (all its values) lists
// tag. If-None-Match uses the weak comparison (RFC 9110, 13.1.2): "W/" is
// ignored on either side, and "*" matches any current representation. A
// malformed list matches nothing, so the client gets a full response.
func etagMatches(headers []string, tag string) bool { return etagListed(headers, tag, true) }

// etagListed is etagMatches with "*" matching only when star is set.
func etagListed(headers []string, tag string, star bool) bool {
	want := strings.TrimPrefix(tag, "W/")
	for _, list := range headers {
		for {
			list = strings.TrimLeft(list, " \t,")
			if list == "" {
				break
			}
			if list[0] == '*' {
				if star {
					return true
				}
				list = list[1:]
				continue
			}
			var t string
			var ok bool
			if t, list, ok = cutETag(list); !ok {
				return false
			}
			if t == want {
				return true
			}
		}
	}
	return false
}

// cutETag takes one entity-tag off the front of s: an optional "W/" and a
// quoted opaque tag. It returns the tag with its quotes and without "W/".
func cutETag(s string) (tag, rest string, ok bool) {
	s = strings.TrimPrefix(s, "W/")
	if len(s) < 2 || s[0] != '"' {
		return "", "", false
	}
	end := strings.IndexByte(s[1:], '"')
	if end < 0 {
		return "", "", false
	}
	return s[:end+2], s[end+2:], true
}
