package format

import (
	"bytes"
	"errors"
	"testing"
)

func TestFileChunkKeyRoundTrip(t *testing.T) {
	for _, name := range []string{"a", FileManifest, FileStationsNDJSON, "\xff\x01 odd bytes", "ä.gz"} {
		for _, i := range []uint32{0, 1, 255, 256, 1<<16 + 3, 1<<32 - 1} {
			k := FileChunkKey(name, i)
			if len(k) != len(name)+5 {
				t.Errorf("FileChunkKey(%q, %d) = %q: %d bytes", name, i, k, len(k))
			}
			n, j, err := ParseFileChunkKey(k)
			if err != nil || n != name || j != i {
				t.Errorf("ParseFileChunkKey(%q) = %q, %d, %v; want %q, %d", k, n, j, err, name, i)
			}
		}
	}
}

// TestFileChunkKeyOrder: what readers and Check rely on: the chunks of a
// file are contiguous in bbolt's bytewise order, in chunk order, and
// before those of every name the file's name is a proper prefix of.
func TestFileChunkKeyOrder(t *testing.T) {
	chunks := []uint32{0, 1, 2, 255, 256, 1 << 16, 1<<32 - 1}
	var keys [][]byte
	// Ascending names, each a prefix of the next ones or not.
	for _, name := range []string{"a", "a\x01", "a.b", "ab", "b", "b\xff"} {
		for _, i := range chunks {
			keys = append(keys, FileChunkKey(name, i))
		}
	}
	for i := 1; i < len(keys); i++ {
		if bytes.Compare(keys[i-1], keys[i]) >= 0 {
			t.Errorf("%q does not sort before %q", keys[i-1], keys[i])
		}
	}
}

func TestParseFileChunkKeyRejects(t *testing.T) {
	for _, k := range []string{
		"",
		"\x00\x00\x00\x00\x00",         // no name
		"a\x00\x00\x00\x00",            // 4 bytes after the name but one is the separator
		"manifest.json",                // a whole-file key of version 2
		"abcdef\x01\x00\x00\x00\x00",   // no zero separator
		"a\x00b\x00\x00\x00\x00\x00",   // a name with a zero byte
		"\x00a\x00\x00\x00\x00\x00",    // a zero byte first
		"a\x00\x00\x00\x00\x00\x00",    // one byte too many: name "a\x00"
		"abc\x00\x00\x00\x00\x00\x01x", // trailing byte
	} {
		if n, i, err := ParseFileChunkKey([]byte(k)); !errors.Is(err, ErrCorrupt) {
			t.Errorf("ParseFileChunkKey(%q) = %q, %d, %v; want ErrCorrupt", k, n, i, err)
		}
	}
}
