package core_test

import (
	"stationdex/query"
	"stationdex/query/check"
	"stationdex/query/core"
	"stationdex/query/facets"
	"stationdex/query/groups"
	"stationdex/query/rbapi"
	"stationdex/query/spell"
)

func init() {
	core.Check = func(path string) (core.CheckReport, error) {
		rep, err := check.Check(path)
		out := core.CheckReport{Path: rep.Path, Version: rep.Version, Meta: rep.Meta,
			Bitmaps: rep.Bitmaps, Records: rep.Records, Files: rep.Files}
		for _, b := range rep.Buckets {
			out.Buckets = append(out.Buckets, core.BucketCount(b))
		}
		return out, err
	}
	core.CheckFacetMemo = check.FacetMemo
	core.Suggest = spell.Suggest
	core.Count = facets.Count
	core.Variants = groups.Variants
	core.PairedMax = &facets.PairedMax
	core.Warm = func(ix *core.Index) error { return (&query.Index{Index: ix}).Warm() }
	core.MaxSuggestions, core.MaxEdits = spell.MaxSuggestions, spell.MaxEdits
	core.RBAPIPage = func(ix *core.Index, f core.Filters) error {
		_, _, err := rbapi.Page(ix, rbapi.Select{Query: core.Query{Filter: f}}, 0, 20, nil)
		return err
	}
}
