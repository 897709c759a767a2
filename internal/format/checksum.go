package format

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"slices"
	"strings"

	bolt "go.etcd.io/bbolt"
)

// Checksums. The writer sums every bucket it writes, whatever the bucket,
// and stores the sums in the meta bucket under KeyChecksums; a reader
// opening the file sums every bucket the file holds and compares. That is
// what lets a server refuse a damaged file at start-up in time
// proportional to a linear read of the file (crc32c runs at memory speed),
// leaving the decode-everything walk to `stationdex check`. The scheme is
// generic on purpose: a bucket added to the format is covered without
// code of its own, and a bucket in the file that the sums do not list (or
// the reverse) is itself damage.
//
// The sum of a bucket is CRC-32C (Castagnoli) over its pairs in key order,
// each as uvarint(len(key)) key uvarint(len(value)) value, together with
// the number of pairs and the length of that byte stream. The length also
// tells a reader, before it reads a bucket, how large it is, so that it can
// share the reading out evenly; files written before it was recorded have
// none (0), and it is then neither used nor checked. The pair BucketMeta/KeyChecksums is left out of the
// sum of BucketMeta, since it holds the sums.

// KeyChecksums is the key in BucketMeta of the bucket sums, as JSON: a
// BucketSum per bucket of the file, in ascending order of name.
var KeyChecksums = []byte("checksums")

// BucketSum is the checksum of one bucket.
type BucketSum struct {
	Bucket string `json:"bucket"`
	Keys   int    `json:"keys"`
	CRC32C uint32 `json:"crc32c"`
	Bytes  int64  `json:"bytes,omitempty"`
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Summer computes a BucketSum from a bucket's pairs, fed in key order.
//
// CRC-32C is streamed, so one call over many pairs gives the same sum as a
// call per pair. Framing and small values are gathered in buf and summed a
// few KiB at a time: a start-up check sums millions of tiny pairs (the ids,
// the names), and a call per pair cost more than the bytes themselves.
type Summer struct {
	keys  int
	crc   uint32
	bytes int64  // summed so far
	buf   []byte // framing and small values not yet summed
}

// smallValue is the size up to which a value is copied into Summer.buf
// rather than summed where it lies; flushAt is how much buf gathers before
// it is summed.
const (
	smallValue = 64
	flushAt    = 4 << 10
)

// Add feeds one pair.
func (s *Summer) Add(key, value []byte) {
	s.Begin(key, len(value))
	if len(value) <= smallValue {
		s.buf = append(s.buf, value...)
		if len(s.buf) >= flushAt {
			s.flush()
		}
		return
	}
	s.Write(value)
}

// Begin feeds the framing of a pair whose value of n bytes follows through
// Write, in as many parts as the caller likes: a reader can then sum a
// large value from a buffer it reads the file into, without mapping it.
func (s *Summer) Begin(key []byte, n int) {
	s.keys++
	s.buf = binary.AppendUvarint(s.buf, uint64(len(key)))
	s.buf = append(s.buf, key...)
	s.buf = binary.AppendUvarint(s.buf, uint64(n))
}

// Write feeds part of the value of the pair begun last.
func (s *Summer) Write(p []byte) {
	s.flush()
	s.crc = crc32.Update(s.crc, castagnoli, p)
	s.bytes += int64(len(p))
}

func (s *Summer) flush() {
	if len(s.buf) > 0 {
		s.crc = crc32.Update(s.crc, castagnoli, s.buf)
		s.bytes += int64(len(s.buf))
		s.buf = s.buf[:0]
	}
}

// SumPart is the sum of a run of a bucket's consecutive pairs, taken on
// its own: a reader can sum the runs of one large bucket in parallel and
// join them (JoinParts) into the bucket's sum.
type SumPart struct {
	Keys  int
	CRC   uint32
	Bytes int64
}

// Part returns the sum of the pairs added so far, as one run.
func (s *Summer) Part() SumPart {
	s.flush()
	return SumPart{Keys: s.keys, CRC: s.crc, Bytes: s.bytes}
}

// JoinParts is the sum of a bucket whose pairs are the runs of parts, in
// order: the CRC of a concatenation follows from the CRCs and lengths of
// its pieces.
func JoinParts(bucket []byte, parts []SumPart) BucketSum {
	sum := BucketSum{Bucket: string(bucket)}
	for _, p := range parts {
		sum.Keys += p.Keys
		sum.CRC32C = crcConcat(sum.CRC32C, p.CRC, p.Bytes)
		sum.Bytes += p.Bytes
	}
	return sum
}

// crcConcat is the CRC-32C of a then b, from the CRC-32C of each and b's
// length. CRC-32C without its conditioning is the remainder of the message
// times x^32 modulo the polynomial P, and the conditioning (start from all
// ones, invert at the end) is itself such a term of fixed length, so
// appending n bytes to a multiplies a's CRC by x^(8n) mod P and adds
// (xors) b's: crc(a‖b) = crc(a)·x^(8n) ⊕ crc(b).
func crcConcat(a, b uint32, n int64) uint32 {
	return gfMul(a, xPow8(n)) ^ b
}

// The polynomial arithmetic is in CRC-32C's own bit order: the
// coefficient of x^k is bit 31-k (x^0 is the top bit), and castagnoliRev is
// P without its x^32 term in that order.
const (
	castagnoliRev = 0x82F63B78
	gfOne         = 1 << 31
)

// gfMul is a·b mod P.
func gfMul(a, b uint32) uint32 {
	var p uint32
	for bit := uint32(gfOne); bit != 0; bit >>= 1 {
		if a&bit != 0 {
			p ^= b
		}
		// b times x, reduced: the x^31 coefficient (bit 0) wraps into P
		b = b>>1 ^ castagnoliRev&-(b&1)
	}
	return p
}

// xPow8 is x^(8n) mod P, by squaring: x^8, x^16, x^32, ... multiplied in
// for the bits of n.
func xPow8(n int64) uint32 {
	p, sq := uint32(gfOne), uint32(gfOne>>8) // x^0, x^8
	for ; n > 0; n >>= 1 {
		if n&1 != 0 {
			p = gfMul(p, sq)
		}
		sq = gfMul(sq, sq)
	}
	return p
}

// Sum returns the sum of the pairs added so far, under the bucket's name.
func (s *Summer) Sum(bucket []byte) BucketSum {
	s.flush()
	return BucketSum{Bucket: string(bucket), Keys: s.keys, CRC32C: s.crc, Bytes: s.bytes}
}

// Summed reports whether pair key of bucket counts in the bucket's sum:
// every pair but the one that holds the sums.
func Summed(bucket, key []byte) bool {
	return string(bucket) != string(BucketMeta) || string(key) != string(KeyChecksums)
}

// EncodeChecksums encodes sums for KeyChecksums, sorted by bucket name so
// that the same buckets give the same bytes.
func EncodeChecksums(sums []BucketSum) ([]byte, error) {
	sums = slices.Clone(sums)
	slices.SortFunc(sums, func(a, b BucketSum) int { return strings.Compare(a.Bucket, b.Bucket) })
	return json.Marshal(sums)
}

// Reseal recomputes the checksum of every bucket of tx and stores them
// as the indexer does, so that a file edited in place (by a test that
// damages one value, or a repair) opens again and only a deeper check
// finds what was changed.
func Reseal(tx *bolt.Tx) error {
	var sums []BucketSum
	err := tx.ForEach(func(name []byte, b *bolt.Bucket) error {
		var s Summer
		err := b.ForEach(func(k, v []byte) error {
			if Summed(name, k) {
				s.Add(k, v)
			}
			return nil
		})
		sums = append(sums, s.Sum(name))
		return err
	})
	if err != nil {
		return err
	}
	doc, err := EncodeChecksums(sums)
	if err != nil {
		return err
	}
	return tx.Bucket(BucketMeta).Put(KeyChecksums, doc)
}

// Edit applies edit to the file at path in one transaction and reseals
// it (see Reseal): how a test damages one value of a built file so that
// only a deeper check than the one at open can find it.
func Edit(path string, edit func(tx *bolt.Tx) error) error {
	db, err := bolt.Open(path, 0o644, nil)
	if err != nil {
		return err
	}
	err = db.Update(func(tx *bolt.Tx) error {
		if err := edit(tx); err != nil {
			return err
		}
		return Reseal(tx)
	})
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	return err
}

// DecodeChecksums decodes the stored document of KeyChecksums. Errors wrap
// ErrCorrupt.
func DecodeChecksums(raw []byte) ([]BucketSum, error) {
	if raw == nil {
		return nil, fmt.Errorf("%w: no bucket checksums in the meta bucket", ErrCorrupt)
	}
	var sums []BucketSum
	if err := json.Unmarshal(raw, &sums); err != nil {
		return nil, fmt.Errorf("%w: bucket checksums: %v", ErrCorrupt, err)
	}
	return sums, nil
}

// VerifyChecksums compares the sums a reader computed (got, any order) with
// the stored document (raw): DecodeChecksums, then CompareChecksums.
func VerifyChecksums(raw []byte, got []BucketSum) error {
	want, err := DecodeChecksums(raw)
	if err != nil {
		return err
	}
	return CompareChecksums(want, got)
}

// CompareChecksums compares the sums a reader computed (got, any order)
// with the decoded stored ones (want). Every bucket must be in both, with
// equal key counts and sums, and equal lengths where one is stored. Errors
// wrap ErrCorrupt.
func CompareChecksums(want, got []BucketSum) error {
	stored := make(map[string]BucketSum, len(want))
	for _, s := range want {
		stored[s.Bucket] = s
	}
	if len(stored) != len(want) {
		return fmt.Errorf("%w: bucket checksums list a bucket twice", ErrCorrupt)
	}
	for _, g := range got {
		w, ok := stored[g.Bucket]
		switch {
		case !ok:
			return fmt.Errorf("%w: bucket %.40q has no checksum", ErrCorrupt, g.Bucket)
		case w.Keys != g.Keys:
			return fmt.Errorf("%w: bucket %s: %d keys, its checksum was taken over %d", ErrCorrupt, g.Bucket, g.Keys, w.Keys)
		case w.CRC32C != g.CRC32C || w.Bytes != 0 && w.Bytes != g.Bytes:
			return fmt.Errorf("%w: bucket %s: checksum mismatch (damaged contents)", ErrCorrupt, g.Bucket)
		}
		delete(stored, g.Bucket)
	}
	for name := range stored {
		return fmt.Errorf("%w: bucket %.40q has a checksum but is not in the file", ErrCorrupt, name)
	}
	return nil
}

// CopiedBuckets are the buckets whose values a server copies to its clients
// (the station JSON of the API and of the Radio Browser API, the data
// files) and reads through bounds-checked slicing only: damage in them can
// change the bytes a client receives and make a read fail, never mislead
// what the engine trusts (page ids, posting lists, records). A server may
// therefore check their sums after it starts answering. They are most of a
// large file: 4.4 of the 6.6 GB of a 5M-station index.
var CopiedBuckets = [][]byte{BucketStationJSON, BucketRBAPIJSON, BucketFiles}
