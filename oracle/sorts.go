package oracle

import (
	"bufio"
	"cmp"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"slices"
	"strings"

	"stationdex/internal/format"
)

// The search's orders other than relevance (Search's order), from the
// guide's words: name is alphabetical (the presentation order); popular
// is the upstream's votes, then its clicks, most first; bitrate is the
// highest first, unknown last; distance is the nearest first, by this
// package's own formula (greatCircleKm). Ties go alphabetically.

// Popularity is a station's votes and clicks in the source records.
type Popularity struct{ Votes, Clicks int64 }

// ReadPopularity reads every source record's votes and clickcount by its
// stationuuid, from a dump file (NDJSON, plain or gzip): the cleaned
// records do not keep them.
func ReadPopularity(path string) (map[format.UUID]Popularity, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		gz, err := gzip.NewReader(f)
		if err != nil {
			return nil, err
		}
		defer func() { _ = gz.Close() }() // read to the end or failed: nothing to report
		r = gz
	}
	out := map[format.UUID]Popularity{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var rec struct {
			UUID   string          `json:"stationuuid"`
			Votes  json.RawMessage `json:"votes"`
			Clicks json.RawMessage `json:"clickcount"`
		}
		if json.Unmarshal(sc.Bytes(), &rec) != nil {
			continue // a malformed record is not indexed either
		}
		id, err := format.ParseUUID(rec.UUID)
		if err != nil {
			continue
		}
		out[id] = Popularity{Votes: count(rec.Votes), Clicks: count(rec.Clicks)}
	}
	return out, sc.Err()
}

// count reads a whole number of the source, negative or absent as 0.
func count(raw json.RawMessage) int64 {
	var n float64
	if json.Unmarshal(raw, &n) != nil || n < 0 {
		return 0
	}
	return int64(n)
}

// NameOrder puts ids in the presentation order: the order name sorts
// by, and the matches every other order starts from (Distinct keeps each
// group's first entry in it).
func (o *Oracle) NameOrder(ids []format.UUID) []format.UUID {
	out := slices.Clone(ids)
	slices.SortFunc(out, func(a, b format.UUID) int { return cmp.Compare(o.index[a], o.index[b]) })
	return out
}

// Sort puts ids in the order by ("name", "popular", "bitrate" or
// "distance", the last around near), ties alphabetically.
func (o *Oracle) Sort(ids []format.UUID, by string, pop map[format.UUID]Popularity, near *Near) []format.UUID {
	out := o.NameOrder(ids)
	var km map[format.UUID]float64
	switch by {
	case "popular":
		slices.SortStableFunc(out, func(a, b format.UUID) int {
			return cmp.Or(cmp.Compare(pop[b].Votes, pop[a].Votes), cmp.Compare(pop[b].Clicks, pop[a].Clicks))
		})
	case "bitrate":
		rate := func(id format.UUID) int64 {
			if b := o.byID(id).bitrate; b > 0 {
				return int64(b)
			}
			return -1 // unknown: last
		}
		slices.SortStableFunc(out, func(a, b format.UUID) int { return cmp.Compare(rate(b), rate(a)) })
	case "distance":
		km = o.Distances(out, near)
		slices.SortStableFunc(out, func(a, b format.UUID) int { return cmp.Compare(km[a], km[b]) })
	}
	return out
}

// Distances is the distance of each of ids (with coordinates) from near's
// position, in km, by this package's formula.
func (o *Oracle) Distances(ids []format.UUID, near *Near) map[format.UUID]float64 {
	km := make(map[format.UUID]float64, len(ids))
	for _, id := range ids {
		if s := o.byID(id); s.geo.Known {
			km[id] = greatCircleKm(near.Lat, near.Lon, s.geo)
		}
	}
	return km
}

// Rank is the place of id in the presentation order.
func (o *Oracle) Rank(id format.UUID) int { return o.index[id] }
