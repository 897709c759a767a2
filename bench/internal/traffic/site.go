package traffic

import (
	"fmt"
	"strings"

	"stationdex/internal/dim"
	"stationdex/internal/format"
	"stationdex/internal/stationjson"
	"stationdex/query"
)

// siteDirectory is a directory kind of the pages and the dimension it
// lists.
type siteDirectory struct {
	kind string
	dim  query.Dim
}

// siteDirectories are the rows of the dimension table with a directory,
// as the pages read them.
var siteDirectories = func() []siteDirectory {
	var out []siteDirectory
	for d := range dim.Count {
		if d.HasDirectory() {
			out = append(out, siteDirectory{dim.Rows[d].Dir.Kind, d})
		}
	}
	return out
}()

// SiteOf reads what a crawler reaches from an index: every station id in
// the index's order, and every directory value with its station count,
// most stations first.
func SiteOf(ix *query.Index) (Site, error) {
	var site Site
	err := ix.EachStationID(0, -1, func(id format.UUID) error {
		site.Stations = append(site.Stations, id.String())
		return nil
	})
	if err != nil {
		return site, fmt.Errorf("crawl: station ids: %w", err)
	}
	for _, sd := range siteDirectories {
		d, err := directoryOf(ix, sd.kind, sd.dim)
		if err != nil {
			return site, fmt.Errorf("crawl: %s: %w", sd.kind, err)
		}
		site.Directories = append(site.Directories, d)
	}
	return site, nil
}

// directoryOf lists a directory's values. A value whose key has no page
// (stationjson.HasPage) is listed on the index without a link: it counts
// for the index's pages and has no Segment.
func directoryOf(ix *query.Index, kind string, of query.Dim) (Directory, error) {
	d := Directory{Kind: kind}
	n, err := ix.ListingCount(of)
	if err != nil {
		return d, err
	}
	_, vals, err := ix.Listings(of, query.ByStations, 0, n)
	if err != nil {
		return d, err
	}
	for _, v := range vals {
		seg := ""
		switch {
		case of == query.DimCountry:
			seg = stationjson.PathSegment(strings.ToLower(v.Key))
		case stationjson.HasPage(v.Key):
			seg = stationjson.PathSegment(v.Key)
		}
		d.Values = append(d.Values, Value{Segment: seg, Stations: v.Stations})
	}
	return d, nil
}
