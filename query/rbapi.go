package query

import (
	"stationdex/internal/format"
	"stationdex/query/core"
	"stationdex/query/rbapi"
)

// RBAPIJSON is rbapi.JSON.
func (ix *Index) RBAPIJSON(id format.UUID, dst []byte) ([]byte, error) {
	return rbapi.JSON(ix.Index, id, dst)
}

// RBAPIPage is rbapi.Page.
func (ix *Index) RBAPIPage(sel RBAPISelect, offset, limit int, dst []byte) ([]byte, int, error) {
	return rbapi.Page(ix.Index, sel, offset, limit, dst)
}

// RBAPIStations is rbapi.Stations.
func (ix *Index) RBAPIStations(sel RBAPISelect) (*RBAPISelection, error) {
	return rbapi.Stations(ix.Index, sel)
}

// RBAPIPageOf is rbapi.PageOf.
func (ix *Index) RBAPIPageOf(u *RBAPISelection, offset, limit int, dst []byte) ([]byte, int, error) {
	return rbapi.PageOf(ix.Index, u, offset, limit, dst)
}

// RBAPIWorking is rbapi.Working.
func (ix *Index) RBAPIWorking() (int, error) { return rbapi.Working(ix.Index) }

// RBAPICounts is rbapi.Counts.
func (ix *Index) RBAPICounts(d core.Dim, checkOK bool) ([]RBAPICount, error) {
	return rbapi.Counts(ix.Index, d, checkOK)
}

// RBAPIStates is rbapi.States.
func (ix *Index) RBAPIStates(checkOK bool) ([]RBAPIState, error) {
	return rbapi.States(ix.Index, checkOK)
}
