package format

import (
	"encoding/binary"
	"fmt"
)

// BucketNearby holds every station's nearest stations, as the station
// page lists them: found by the indexer (package internal/nearby) so that
// a page reads them instead of searching around the station.
//
//	nearby  BlockKey(b) -> the nearest stations of each record of block b,
//	        record b*RecordsPerBlock first: per record a count byte c
//	        (0..NearbyPerStation), then c record numbers, 4 bytes
//	        big-endian each, nearest first
//
// A record's list is the NearbyPerStation stations nearest to it by
// DistanceKm (ties in record order), itself left out; none for a station
// without coordinates. Every block of the stations bucket has its block
// here, with a count for each of its records.
var BucketNearby = []byte("nearby")

// NearbyPerStation is how many nearest stations the nearby bucket holds
// per station: what a station page lists.
const NearbyPerStation = 5

// AppendNearby appends one record's entry of a nearby block: its count
// and its nearest stations' record numbers. More than NearbyPerStation
// is a caller's error and panics.
func AppendNearby(dst []byte, recs []uint32) []byte {
	if len(recs) > NearbyPerStation {
		panic(fmt.Sprintf("format: %d nearby stations, at most %d", len(recs), NearbyPerStation))
	}
	dst = append(dst, byte(len(recs)))
	for _, n := range recs {
		dst = binary.BigEndian.AppendUint32(dst, n)
	}
	return dst
}

// NearbyEntry is the entry of slot in a nearby block: the bytes of its
// record numbers (NearbyRecord reads them), found by walking the counts
// of the slots before it. A block too short for its slots, or a count
// over NearbyPerStation, is corrupt.
func NearbyEntry(block []byte, slot int) ([]byte, error) {
	for i := 0; ; i++ {
		if len(block) == 0 {
			return nil, fmt.Errorf("%w: nearby block ends before slot %d", ErrCorrupt, i)
		}
		c := int(block[0])
		if c > NearbyPerStation || len(block) < 1+4*c {
			return nil, fmt.Errorf("%w: nearby slot %d claims %d stations in %d bytes", ErrCorrupt, i, c, len(block)-1)
		}
		if i == slot {
			return block[1 : 1+4*c], nil
		}
		block = block[1+4*c:]
	}
}

// NearbyRecord is the i-th record number of an entry NearbyEntry gave.
func NearbyRecord(entry []byte, i int) uint32 { return binary.BigEndian.Uint32(entry[4*i:]) }

// NearbyCount is the number of record numbers of an entry.
func NearbyCount(entry []byte) int { return len(entry) / 4 }
