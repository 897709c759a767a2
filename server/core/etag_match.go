package core

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"time"

	"stationdex/internal/format"
)

// etagVersion changes whenever the server renders the same index
// differently, so that caches do not keep responses of an older server.
const etagVersion = "1"

// etag identifies one response body: everything the body is a function of.
// That is the snapshot (its time, source, size, schema and the build that
// indexed it), the base URL the links are built on, and the resource with
// its canonical query. It is strong, because equal tags mean equal bytes.
//
// It is computed for every answer built, so the parts are appended into
// one buffer (each followed by a 0 byte, so that parts cannot run into
// each other) and hashed at once: the same bytes as hashing them one by
// one, without a conversion per part.
func etag(m format.Meta, base, resource string) string {
	var space [etagLength]byte
	return string(appendETag(space[:0], m, base, resource))
}

// etagLength is the length of a tag etag makes: 32 hex digits, quoted.
const etagLength = 2 + 2*16

// appendETag appends etag(m, base, resource) to dst.
func appendETag(dst []byte, m format.Meta, base, resource string) []byte {
	var space [512]byte
	b := append(space[:0], etagVersion...)
	b = append(append(b, 0), SchemaVersion(m)...)
	b = m.SnapshotAt.UTC().AppendFormat(append(b, 0), time.RFC3339Nano)
	b = append(append(b, 0), m.Source...)
	b = strconv.AppendInt(append(b, 0), int64(m.Stations), 10)
	b = append(append(b, 0), m.BuiltBy...)
	b = append(append(b, 0), base...)
	b = append(append(b, 0), resource...)
	sum := sha256.Sum256(append(b, 0))
	var tag [etagLength]byte
	tag[0], tag[len(tag)-1] = '"', '"'
	hex.Encode(tag[1:len(tag)-1], sum[:16])
	return append(dst, tag[:]...)
}

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
