package facets

import (
	"fmt"
	"math/bits"
	"slices"

	"stationdex/internal/format"
	"stationdex/query/core"
	"stationdex/query/rawroaring"
)

// slotColumn holds, per record, the counters of its values among a
// range of a facet's values (a part: see facetColumn), laid out so that
// counting a match set is a run of increments with no branch that depends
// on the record.
//
// Every record has width slots (1 to maxWidth: the fewest that leave at
// most 1/overflowShare of the records with more values). A slot holds a
// counter index: spareSlots+id-base for value id, or, in the slots a
// record does not fill, one of the spare counters [0, spareSlots), spread
// so that consecutive records do not wait on the same counter. A record
// with more values than slots keeps the rest in an overflow list, found
// through a bitset and its running count.
//
// A loop that visits a variable number of values per record mispredicts
// its exit about once per record; and with one value per record, a run of
// stations of one country increments one counter over and over, each
// waiting for the last. So a width-1 part counts into ways sets of
// counters in turn, which are summed when ranked.
type slotColumn struct {
	base, values int      // the part: value ids [base, base+values)
	width        int      // 0: no column; counts probe posting lists
	ways         int      // counter sets counted into in turn
	stride       int      // counters per set: spareSlots + values
	slots        []uint16 // width per record
	more         []uint64 // bit r: record r has values past its slots
	moreRank     []uint32 // records with more before each word of more
	moreAt       []uint32 // start in moreIDs of each such record, then the end
	moreIDs      []uint16 // their further counter indexes
}

const (
	spareSlots    = 64
	maxWidth      = 4
	overflowShare = 8
	singleWays    = 4
)

// maxColumnValues bounds a record's values in a column: the indexer keeps
// at most MaxGenres genres and MaxLanguages languages.
const maxColumnValues = 1024

// records is the number of records the part covers.
func (c *slotColumn) records() uint32 { return uint32(len(c.slots) / max(c.width, 1)) }

// counters is the number of counters a count needs.
func (c *slotColumn) counters() int { return c.ways * c.stride }

// fill builds the part of values [base, base+values) in two passes over
// their posting lists: each record's number of values, then the slots.
// With no column (too many values on a record), width stays 0.
func (c *slotColumn) fill(col *facetColumn, base, values int, cs *[]rawroaring.Container) error {
	stations := col.stations
	*c = slotColumn{base: base, values: values}
	each := partLists{col: col, base: base, values: values, cs: cs, buf: make([]uint32, 0, 256)}
	per := make([]uint16, stations)
	var hist [maxColumnValues + 1]int // records by number of values
	err := each.records(func(_ uint16, recs []uint32) error {
		for _, r := range recs {
			if int(r) >= stations {
				return fmt.Errorf("%w: facet lists record %d of %d", format.ErrCorrupt, r, stations)
			}
			if per[r] < maxColumnValues {
				per[r]++
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, n := range per {
		hist[n]++
	}
	if hist[maxColumnValues] > 0 {
		return nil // implausible: counts probe posting lists
	}
	c.layOut(slotWidth(hist[:], stations), stations, per)
	clear(per) // now the values placed so far, per record
	return each.records(func(v uint16, recs []uint32) error {
		for _, r := range recs {
			// the same lists as the first pass: n stays below per[r]
			if n := int(per[r]); n < c.width {
				c.slots[int(r)*c.width+n] = v
			} else {
				c.moreIDs[int(c.moreAt[c.overflowIndex(r)])+n-c.width] = v
			}
			per[r]++
		}
		return nil
	})
}

// layOut sizes the slots for width per record, spare slots filled, and
// the overflow of the records with more values (per: their numbers).
func (c *slotColumn) layOut(width, stations int, per []uint16) {
	c.width, c.ways = width, 1
	if c.width == 1 {
		c.ways = singleWays
	}
	c.stride = spareSlots + c.values
	c.slots = make([]uint16, stations*c.width)
	for i := range c.slots {
		c.slots[i] = uint16(i % spareSlots)
	}
	c.indexOverflow(per)
}

// partLists reads the posting lists of a part's values.
type partLists struct {
	col          *facetColumn
	base, values int
	cs           *[]rawroaring.Container
	buf          []uint32
}

// records calls fn with each value's slot id and its records, in
// batches, until fn fails.
func (p partLists) records(fn func(id uint16, recs []uint32) error) error {
	for id := p.base; id < p.base+p.values; id++ {
		var err error
		if *p.cs, err = rawroaring.Parse(p.col.postings[id], *p.cs); err != nil {
			return fmt.Errorf("facet %q: %w", p.col.keys[id], err)
		}
		rawroaring.Each(*p.cs, p.buf, func(recs []uint32) {
			if err == nil {
				err = fn(uint16(spareSlots+id-p.base), recs)
			}
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// slotWidth is the number of slots per record, given the records by
// number of values.
func slotWidth(hist []int, stations int) int {
	over := stations - hist[0] // records with more than w values
	for w := 1; w < maxWidth; w++ {
		over -= hist[w]
		if over*overflowShare <= stations {
			return w
		}
	}
	return maxWidth
}

// indexOverflow sets up the overflow list of the records with more
// values than slots.
func (c *slotColumn) indexOverflow(per []uint16) {
	total := 0
	for r, n := range per {
		if int(n) <= c.width {
			continue
		}
		if c.more == nil {
			c.more = make([]uint64, (len(per)+63)/64)
		}
		c.more[r/64] |= 1 << (r % 64)
		c.moreAt = append(c.moreAt, uint32(total))
		total += int(n) - c.width
	}
	if c.more == nil {
		return
	}
	c.moreAt = append(c.moreAt, uint32(total))
	c.moreIDs = make([]uint16, total)
	c.moreRank = make([]uint32, len(c.more))
	n := uint32(0)
	for i, word := range c.more {
		c.moreRank[i] = n
		n += uint32(bits.OnesCount64(word))
	}
}

// overflowIndex is the place of record r, which has overflow values,
// among the records that do.
func (c *slotColumn) overflowIndex(r uint32) int {
	word := c.more[r/64]
	return int(c.moreRank[r/64]) + bits.OnesCount64(word&(1<<(r%64)-1))
}

// overflow is the counter indexes of record r past its slots.
func (c *slotColumn) overflow(r uint32) []uint16 {
	if c.more == nil || c.more[r/64]&(1<<(r%64)) == 0 {
		return nil
	}
	i := c.overflowIndex(r)
	return c.moreIDs[c.moreAt[i]:c.moreAt[i+1]]
}

// countRecords adds the values of recs (ascending) to cnt (counters()
// long). A record the column does not cover (a damaged index) is left out
// rather than read out of bounds.
func (c *slotColumn) countRecords(recs []uint32, cnt []uint16) {
	limit := c.records()
	if len(recs) > 0 && recs[len(recs)-1] >= limit {
		i, _ := slices.BinarySearch(recs, limit)
		recs = recs[:i]
	}
	// One loop per width, unrolled: a record's slots are read as one
	// array and incremented without an inner loop to enter and leave.
	slots := c.slots
	switch c.width {
	case 1:
		c.countOne(recs, cnt)
	case 2:
		for _, r := range recs {
			s := (*[2]uint16)(slots[2*r:])
			cnt[s[0]]++
			cnt[s[1]]++
		}
	case 3:
		for _, r := range recs {
			s := (*[3]uint16)(slots[3*r:])
			cnt[s[0]]++
			cnt[s[1]]++
			cnt[s[2]]++
		}
	case 4:
		for _, r := range recs {
			s := (*[4]uint16)(slots[4*r:])
			cnt[s[0]]++
			cnt[s[1]]++
			cnt[s[2]]++
			cnt[s[3]]++
		}
	}
	if c.more == nil {
		return
	}
	for _, r := range recs {
		if c.more[r/64]&(1<<(r%64)) != 0 {
			for _, v := range c.overflow(r) {
				cnt[v]++
			}
		}
	}
}

// countOne counts a width-1 column, record i into counter set i%4.
func (c *slotColumn) countOne(recs []uint32, cnt []uint16) {
	slots, n := c.slots, c.stride
	c0, c1, c2, c3 := cnt[:n], cnt[n:2*n], cnt[2*n:3*n], cnt[3*n:4*n]
	i := 0
	for ; i+3 < len(recs); i += 4 {
		c0[slots[recs[i]]]++
		c1[slots[recs[i+1]]]++
		c2[slots[recs[i+2]]]++
		c3[slots[recs[i+3]]]++
	}
	for ; i < len(recs); i++ {
		c0[slots[recs[i]]]++
	}
}

// take is the count of value id over p's counter sets in cnt, clearing
// it.
func take[C uint16 | uint32](p *slotColumn, cnt []C, id int) int {
	n := 0
	for i := spareSlots + id - p.base; i < len(cnt); i += p.stride {
		n += int(cnt[i])
		cnt[i] = 0
	}
	return n
}

// sparseFor tells whether a set of n records meets so few values that
// counting them with a list of the counters touched (countSparse) and
// ranking from that list beats scanning every counter (about an eighth of
// a record-value pair per counter).
func (c *slotColumn) sparseFor(n int) bool {
	perRecord := c.width + len(c.moreIDs)/max(len(c.slots)/max(c.width, 1), 1)
	return n*perRecord*8 < c.counters()
}

// countSparse adds the values of recs (ascending) to cnt, in its first
// set of counters only and leaving the spares alone, and appends to
// touched each counter it raises from zero. A set that sparseFor calls
// sparse meets few values, and is then ranked from that list
// (rankTouched), where visiting its records a second time to find them
// cost as much as counting (the worst faceted searches of the suite: a
// word's few hundred stations counted for a search that finds one).
func (c *slotColumn) countSparse(recs []uint32, cnt, touched []uint16) []uint16 {
	limit := c.records()
	for _, r := range recs {
		if r >= limit {
			break // a damaged index: left out, as countRecords does
		}
		for _, v := range c.slots[int(r)*c.width : int(r+1)*c.width] {
			if v >= spareSlots {
				touched = touch(cnt, v, touched)
			}
		}
		for _, v := range c.overflow(r) {
			touched = touch(cnt, v, touched)
		}
	}
	return touched
}

func touch(cnt []uint16, v uint16, touched []uint16) []uint16 {
	if cnt[v] == 0 {
		touched = append(touched, v)
	}
	cnt[v]++
	return touched
}

// rankTouched ranks the counters of part p that countSparse raised, in the
// order it met them (insertCount orders ties by key whatever the order),
// and clears them.
func (col *facetColumn) rankTouched(p *slotColumn, cnt, touched []uint16, top []core.TopCount, k int) []core.TopCount {
	for _, v := range touched {
		n := int(cnt[v])
		cnt[v] = 0
		if id := p.base + int(v) - spareSlots; !col.skip[id] {
			top = col.offer(top, core.TopCount{ID: uint32(id), N: n}, k)
		}
	}
	return top
}

// rankDense ranks the counters of part p in value order, which is most
// stations in the snapshot first: once a value's snapshot count is below
// the k-th count found, no later value can enter. It clears the counters.
func rankDense[C uint16 | uint32](col *facetColumn, p *slotColumn, cnt []C, top []core.TopCount, k int) []core.TopCount {
	for id := p.base; id < p.base+p.values; id++ {
		if !col.mayEnter(top, id, k) {
			break
		}
		if n := take(p, cnt, id); n > 0 && !col.skip[id] {
			top = col.offer(top, core.TopCount{ID: uint32(id), N: n}, k)
		}
	}
	clear(cnt)
	return top
}
