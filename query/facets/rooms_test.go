package facets_test

import (
	"stationdex/query/check"
	"stationdex/query/facets"
)

func init() { facets.CheckFacetMemo = check.FacetMemo }
