package format

import (
	"encoding/binary"
	"fmt"
)

// RecordsPerBlock is the number of consecutive records stored under one key
// of the stations bucket. A page of results then costs one bbolt lookup per
// block it touches instead of one B+tree descent per station, and a block
// (about 200 KiB at the real data's record size) stays a single contiguous
// value in the memory map.
const RecordsPerBlock = 1024

// Record block layout, the value under BlockKey(b) in the stations bucket:
//
//	count       uint32 little-endian: records in the block (1..RecordsPerBlock)
//	offsets     count+1 uint32 little-endian: start of record i relative to
//	            the data area; offsets[count] is the data length
//	data        the records, each encoded with AppendRecord
//
// Block b holds records b*RecordsPerBlock onward; every block but the last
// is full.

// BlockOf returns the block holding record n and the record's slot in it.
func BlockOf(n uint32) (block uint32, slot int) {
	return n / RecordsPerBlock, int(n % RecordsPerBlock)
}

// BlockKey is the stations-bucket key of block b.
func BlockKey(b uint32) []byte { return RecordKey(b) }

// AppendBlock appends a block holding the encoded records to dst.
func AppendBlock(dst []byte, records [][]byte) []byte {
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(records)))
	off := uint32(0)
	for _, r := range records {
		dst = binary.LittleEndian.AppendUint32(dst, off)
		off += uint32(len(r))
	}
	dst = binary.LittleEndian.AppendUint32(dst, off)
	for _, r := range records {
		dst = append(dst, r...)
	}
	return dst
}

// BlockLen is the number of records in a block, after checking that its
// offset table fits.
func BlockLen(block []byte) (int, error) {
	if len(block) < 4 {
		return 0, fmt.Errorf("%w: record block of %d bytes", ErrCorrupt, len(block))
	}
	n := binary.LittleEndian.Uint32(block)
	if n == 0 || n > RecordsPerBlock || uint64(len(block)) < 4+4*(uint64(n)+1) {
		return 0, fmt.Errorf("%w: record block claims %d records in %d bytes", ErrCorrupt, n, len(block))
	}
	return int(n), nil
}

// BlockRecord returns the encoded record in slot i of a block, a sub-slice
// of block (so as short-lived as block itself).
func BlockRecord(block []byte, i int) ([]byte, error) {
	n, err := BlockLen(block)
	if err != nil {
		return nil, err
	}
	if i < 0 || i >= n {
		return nil, fmt.Errorf("%w: record slot %d of a block of %d", ErrCorrupt, i, n)
	}
	data := block[4+4*(n+1):]
	lo := binary.LittleEndian.Uint32(block[4+4*i:])
	hi := binary.LittleEndian.Uint32(block[4+4*(i+1):])
	if lo > hi || uint64(hi) > uint64(len(data)) {
		return nil, fmt.Errorf("%w: record slot %d spans %d..%d of %d bytes", ErrCorrupt, i, lo, hi, len(data))
	}
	return data[lo:hi:hi], nil
}
