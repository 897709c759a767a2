package format

import (
	"encoding/binary"
	"fmt"
	"net/url"
	"strings"

	"github.com/RoaringBitmap/roaring/v2"
)

// Groups. The source lists one station many times: the same stream
// submitted again, or one broadcaster's streams in several codecs and
// bitrates. The indexer puts every entry in a group, and no entry is
// dropped for it:
//
//   - entries whose stream addresses have the same AddressKey are one
//     stream;
//   - entries with the same folded name (fold.String), the same homepage
//     AddressKey and the same country code are one station;
//   - a group is what these two relations connect: the classes of their
//     union, transitively. An entry without a stream address is in no
//     stream relation, one without a homepage in no station relation; an
//     entry in neither stands alone.
//
// A group's representative is chosen by an objective rule, as the
// specification allows no popularity or editorial score: the highest
// bitrate (unknown counts as 0), then a known codec, then the smallest id
// (UUID bytes). It is listed first among the group's members. A group of
// one entry is no group: its record has NoGroup.
//
//	group_of BlockKey(b) -> a uint32 big-endian per record, for records
//	         b*RecordsPerBlock onward (all RecordsPerBlock of them but in
//	         the last block): the record's group, NoGroup when it stands
//	         alone. A record's group is one lookup and a slice.
//	groups   GroupKey(g) -> the record numbers of group g's members,
//	         uint32 big-endian each, the representative first, then the
//	         others by the same rule. g is the representative's record
//	         number.

// NoGroup is the group of a record that stands alone.
const NoGroup = ^uint32(0)

// GroupKey is the groups-bucket key of group g.
func GroupKey(g uint32) []byte { return RecordKey(g) }

// AppendGroupOf appends a record's group to a group_of block.
func AppendGroupOf(dst []byte, g uint32) []byte { return binary.BigEndian.AppendUint32(dst, g) }

// GroupOf is the group of the record in slot of a group_of block.
func GroupOf(block []byte, slot int) (uint32, error) {
	if slot < 0 || len(block) < 4*(slot+1) || len(block)%4 != 0 {
		return 0, fmt.Errorf("%w: group_of block of %d bytes, slot %d", ErrCorrupt, len(block), slot)
	}
	return binary.BigEndian.Uint32(block[4*slot:]), nil
}

// GroupMembers decodes a groups-bucket value into dst.
func GroupMembers(dst []uint32, v []byte) ([]uint32, error) {
	if len(v) < 8 || len(v)%4 != 0 {
		return dst, fmt.Errorf("%w: group of %d bytes", ErrCorrupt, len(v))
	}
	for i := 0; i < len(v); i += 4 {
		dst = append(dst, binary.BigEndian.Uint32(v[i:]))
	}
	return dst, nil
}

// AddressKey is what a stream address or homepage is compared by: the
// address with its scheme and host in lower case, the scheme's default
// port (80 for http, 443 for https) left out, one trailing '/' of the
// path left out, and an empty query or fragment ("?" or "#" with nothing
// after it) left out; user, path, query and fragment are otherwise kept
// as written. An
// address net/url cannot parse, or without a scheme or host, is compared
// as written, surrounding space aside. "" (no address) stays "".
func AddressKey(addr string) string {
	addr = strings.TrimSpace(addr)
	if k, ok := plainAddressKey(addr); ok {
		return k
	}
	return parsedAddressKey(addr)
}

// parsedAddressKey is AddressKey of a trimmed address, by net/url.
func parsedAddressKey(addr string) string {
	u, err := url.Parse(addr)
	if err != nil || u.Scheme == "" || u.Host == "" || u.Opaque != "" {
		return addr
	}
	scheme, host := strings.ToLower(u.Scheme), strings.ToLower(u.Host)
	if port := u.Port(); scheme == "http" && port == "80" || scheme == "https" && port == "443" {
		host = host[:len(host)-len(port)-1]
	}
	var b strings.Builder
	b.WriteString(scheme + "://")
	if u.User != nil {
		b.WriteString(u.User.String() + "@")
	}
	b.WriteString(host)
	b.WriteString(strings.TrimSuffix(u.EscapedPath(), "/"))
	if u.RawQuery != "" {
		b.WriteString("?" + u.RawQuery)
	}
	if u.Fragment != "" {
		b.WriteString("#" + u.EscapedFragment())
	}
	return b.String()
}

// plainAddressKey is AddressKey of a trimmed plain address, the common
// kind, without net/url, whose parse was most of the time an index build
// spends on the keys (two a station): http or https in lower case, a host
// of unreserved characters and an optional port of digits, a path of the
// characters net/url keeps as they are (no escapes), a query without
// control characters, no user and no fragment. For these net/url's
// parts are plain cuts of the address. ok is false for any other
// address, which AddressKey parses; TestPlainAddressKey holds the two to
// the same keys.
func plainAddressKey(addr string) (key string, ok bool) {
	scheme, rest, found := strings.Cut(addr, "://")
	if !found || scheme != "http" && scheme != "https" || strings.IndexByte(addr, '#') >= 0 {
		return "", false
	}
	rest, query, _ := strings.Cut(rest, "?")
	hostPort, path := rest, ""
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		hostPort, path = rest[:i], rest[i:]
	}
	host, port, hasPort := strings.Cut(hostPort, ":")
	if host == "" || !allIn(host, hostByte) || !allIn(port, portByte) ||
		!allIn(path, pathByte) || !allIn(query, queryByte) {
		return "", false
	}
	if hasPort && (scheme == "http" && port == "80" || scheme == "https" && port == "443") {
		hostPort = host
	}
	lower, path := strings.ToLower(hostPort), strings.TrimSuffix(path, "/")
	sep := ""
	if query != "" {
		sep = "?"
	}
	if len(scheme)+len("://")+len(lower)+len(path)+len(sep)+len(query) == len(addr) && lower == hostPort {
		return addr, true // nothing left out or lowered: the address is its key
	}
	return scheme + "://" + lower + path + sep + query, true
}

// Classes of the bytes of a plain address (plainAddressKey), bits of
// addressBytes.
const (
	hostByte  = 1 << iota // RFC 3986's unreserved characters: net/url never escapes them
	portByte              // digits
	pathByte              // what net/url keeps as it is in a path
	queryByte             // anything but a control character, which net/url refuses anywhere
)

var addressBytes = func() (classes [256]uint8) {
	for c := range 256 {
		b := byte(c)
		unreserved := 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' || strings.IndexByte("-._~", b) >= 0
		if unreserved {
			classes[c] |= hostByte | pathByte
		}
		if '0' <= b && b <= '9' {
			classes[c] |= portByte
		}
		if strings.IndexByte("/:;=@$&+,", b) >= 0 {
			classes[c] |= pathByte
		}
		if b >= ' ' && b != 0x7f {
			classes[c] |= queryByte
		}
	}
	return classes
}()

// allIn reports whether every byte of s is of class.
func allIn(s string, class uint8) bool {
	for i := 0; i < len(s); i++ {
		if addressBytes[s[i]]&class == 0 {
			return false
		}
	}
	return true
}

// Listed groups. A directory page counts the entries of a value and the
// stations they stand for, its groups (an entry standing alone is a group
// of its own); so does a distinct search's facet. Counting groups means a
// look at the group of every entry, too much for an index page of a
// hundred values, the largest thousands of entries each, or for the
// facets of a search of every station; so the indexer counts them for
// every key of the buckets the directory lists or a facet counts:
//
//	listed_groups ListedGroupsKey(bucket, key) -> uint32 big-endian: the
//	         groups among the stations of key in bucket, one of
//	         GroupCountedBuckets. No other keys.

// GroupCountedBuckets are the buckets listed_groups counts the keys of:
// the directory's and the facets' (languages are listed by label and
// counted by code; codecs are counted, not listed), in the order their
// listed_groups keys sort. The dimension table declares them
// (DeclareDimensionBuckets).
var GroupCountedBuckets [][]byte

// ListedGroupsKey is the listed_groups key of key in directory bucket
// bucket: the bucket's name, a zero byte (no bucket name holds one), key.
func ListedGroupsKey(bucket, key []byte) []byte {
	return AppendListedGroupsKey(make([]byte, 0, len(bucket)+1+len(key)), bucket, key)
}

// AppendListedGroupsKey appends ListedGroupsKey(bucket, key) to dst.
func AppendListedGroupsKey(dst, bucket, key []byte) []byte {
	return append(append(append(dst, bucket...), 0), key...)
}

// AppendListedGroups appends a listed_groups value.
func AppendListedGroups(dst []byte, groups int) []byte {
	return binary.BigEndian.AppendUint32(dst, uint32(groups))
}

// ParseListedGroups decodes a listed_groups value.
func ParseListedGroups(v []byte) (int, error) { return parseGroupCount(BucketListedGroups, v) }

// parseGroupCount decodes a group count stored in bucket.
func parseGroupCount(bucket, v []byte) (int, error) {
	if len(v) != 4 {
		return 0, fmt.Errorf("%w: %s value of %d bytes", ErrCorrupt, bucket, len(v))
	}
	return int(binary.BigEndian.Uint32(v)), nil
}

// GroupCounter counts the groups of a set of records from each record's
// group: writer and checker count the same way. The zero value is ready.
type GroupCounter struct {
	alone  int
	groups roaring.Bitmap
}

// Add counts a record of group g (NoGroup: a group of its own).
func (c *GroupCounter) Add(g uint32) {
	if g == NoGroup {
		c.alone++
		return
	}
	c.groups.Add(g)
}

// Count is the number of groups added since the last Reset.
func (c *GroupCounter) Count() int { return c.alone + int(c.groups.GetCardinality()) }

// Reset makes c count a new set.
func (c *GroupCounter) Reset() { c.alone = 0; c.groups.Clear() }
