package core_test

import (
	"stationdex/query/check"
	"stationdex/query/core"
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
}
