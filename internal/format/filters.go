package format

import (
	"encoding/binary"
	"fmt"
	"strings"
)

// Codecs are the audio codecs a station may carry (Record.Codec), in the
// order they are listed to users. The indexer maps the source's spellings
// onto these; the codec filter accepts them in any case.
var Codecs = []string{"MP3", "AAC", "AAC+", "OGG", "FLAC", "OPUS"}

// CodecOf is the canonical codec named by s in any case, if it is one.
func CodecOf(s string) (string, bool) {
	for _, c := range Codecs {
		if strings.EqualFold(s, c) {
			return c, true
		}
	}
	return "", false
}

// Stream address schemes: the keys of BucketSchemes.
const (
	SchemeHTTP  = "http"
	SchemeHTTPS = "https"
)

// SchemeOf is the scheme of a stream address as BucketSchemes files it,
// or "" for an address that is neither (the indexer keeps only http(s)
// addresses, so that is only the empty one). The scheme's case is
// folded, as URL schemes are case-insensitive.
func SchemeOf(url string) string {
	switch {
	case len(url) >= 8 && strings.EqualFold(url[:8], "https://"):
		return SchemeHTTPS
	case len(url) >= 7 && strings.EqualFold(url[:7], "http://"):
		return SchemeHTTP
	}
	return ""
}

// BitrateKey is the bitrates-bucket key of a bitrate: 4 bytes big-endian,
// so that bbolt's key order is numeric order and a range is a cursor walk.
func BitrateKey(kbps uint32) []byte { return binary.BigEndian.AppendUint32(nil, kbps) }

// ParseBitrateKey decodes a key written by BitrateKey.
func ParseBitrateKey(k []byte) (uint32, error) {
	if len(k) != 4 {
		return 0, fmt.Errorf("%w: bitrate key of %d bytes", ErrCorrupt, len(k))
	}
	return binary.BigEndian.Uint32(k), nil
}

// KeyAllTokensFST is the dictionary-bucket key of the FST over the keys of
// all_tokens. Its values are the tokens' station counts. vellum's format
// is its own (version 1); Check compares the FST with all_tokens key by key.
var KeyAllTokensFST = []byte("all_tokens.fst")

// KeyWordReach is the dictionary-bucket key of every FST word's reach, in
// the FST's order, 4 bytes little-endian each: the number of stations the
// word finds as a query word (its own list, or the union of the lists of
// the tokens it begins, as the prefix buckets define). A suggestion's
// total is one of these when nothing else narrows it.
var KeyWordReach = []byte("all_tokens.reach")
