package check

import (
	"fmt"
	"slices"

	"stationdex/internal/format"
	"stationdex/internal/nearby"
)

// checkNearby: the nearby bucket holds, for every record and nothing
// more, the nearest stations package nearby finds again from the geo
// bucket's points (which checkGeo verified): the lists a station page
// shows are the search's.
func (c *checker) checkNearby() error {
	var points []format.GeoPoint
	err := c.tx.Bucket(format.BucketGeo).ForEach(func(_, v []byte) error {
		return format.GeoPoints(v, func(p format.GeoPoint) error {
			points = append(points, p)
			return nil
		})
	})
	if err != nil {
		return err
	}
	found := nearby.Find(points, format.NearbyPerStation)
	next := 0 // in found.Records
	blocks := (c.stations + format.RecordsPerBlock - 1) / format.RecordsPerBlock
	if n := c.keys(format.BucketNearby); n != int(blocks) {
		return fmt.Errorf("%w: %d nearby blocks for %d stations", format.ErrCorrupt, n, c.stations)
	}
	for b := range blocks {
		v := c.tx.Bucket(format.BucketNearby).Get(format.BlockKey(b))
		if v == nil {
			return fmt.Errorf("%w: nearby block %d missing", format.ErrCorrupt, b)
		}
		rest := v
		for n := b * format.RecordsPerBlock; n < min((b+1)*format.RecordsPerBlock, c.stations); n++ {
			entry, err := format.NearbyEntry(rest, 0)
			if err != nil {
				return fmt.Errorf("record %d: %w", n, err)
			}
			rest = rest[1+len(entry):]
			var want []uint32
			if next < len(found.Records) && found.Records[next] == n {
				want = found.Of(next)
				next++
			}
			got := make([]uint32, format.NearbyCount(entry))
			for i := range got {
				got[i] = format.NearbyRecord(entry, i)
			}
			if !slices.Equal(got, want) {
				return fmt.Errorf("%w: record %d lists nearby stations %v, its nearest are %v", format.ErrCorrupt, n, got, want)
			}
		}
		if len(rest) != 0 {
			return fmt.Errorf("%w: nearby block %d has %d bytes after its last record", format.ErrCorrupt, b, len(rest))
		}
	}
	return nil
}
