package core_test

import (
	"stationdex/query/core"
	"stationdex/query/facets"
)

func init() {
	core.DistinctByRecords, core.DistinctByFirsts = &facets.CountByRecords, &facets.CountByFirsts
}
