package format

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// FileChunkSize is the most bytes one value of BucketFiles holds. A data
// dump of millions of stations is hundreds of megabytes; stored as one
// bbolt value it would have to be in memory whole to be written (bbolt
// copies a value into freshly allocated pages at commit) and to be hashed
// by a naive check. In chunks, the indexer streams it from a temporary file
// and the reader concatenates chunks that are each one contiguous run of
// the memory map.
const FileChunkSize = 256 << 10

// FileChunkKey is the BucketFiles key of chunk i of file name: the name, a
// zero byte, and i as a big-endian uint32. The zero byte sorts below every
// byte of a name, so all chunks of a file are contiguous, in chunk order,
// and come before any longer name that the name is a prefix of.
func FileChunkKey(name string, i uint32) []byte {
	k := make([]byte, 0, len(name)+5)
	k = append(k, name...)
	k = append(k, 0)
	return binary.BigEndian.AppendUint32(k, i)
}

// ParseFileChunkKey splits a key written by FileChunkKey.
func ParseFileChunkKey(k []byte) (name string, i uint32, err error) {
	if len(k) < 6 || k[len(k)-5] != 0 || bytes.IndexByte(k[:len(k)-5], 0) >= 0 {
		return "", 0, fmt.Errorf("%w: file chunk key %q", ErrCorrupt, k)
	}
	return string(k[:len(k)-5]), binary.BigEndian.Uint32(k[len(k)-4:]), nil
}
