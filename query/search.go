package query

import (
	"stationdex/query/facets"
	"stationdex/query/spell"
)

// Search runs q (core.Index.Run), with the facet counts of package facets
// and the "did you mean" searches of package spell when q asks for them.
func (ix *Index) Search(q Query) (Result, error) {
	res, _, err := ix.Run(q, nil, facets.Count, spell.Suggest)
	return res, err
}

// SearchJSON is Search for the JSON API: instead of decoding the page's
// records, it appends their stored JSON to dst, in rank order and
// separated by commas (the inside of a JSON array), and returns the
// result, whose Stations is nil, with the extended dst. The bytes are
// copied out of the file: they stay valid after the call.
//
// The JSON API's read path: the index stores every station's API JSON
// (format.BucketStationJSON, the base URL left as format.BaseURLMark), so
// the API copies a page's stations out of the memory map instead of
// decoding records and encoding them again per request. The caller
// splices its base URL in (stationjson.Splice) while copying the bytes
// into its response.
func (ix *Index) SearchJSON(q Query, dst []byte) (Result, []byte, error) {
	return ix.Run(q, &dst, facets.Count, spell.Suggest)
}
