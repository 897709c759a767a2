package query

import (
	"stationdex/internal/format"
	"stationdex/query/core"
	"stationdex/query/rbapi"
)

// UpstreamJSON is rbapi.JSON.
func (ix *Index) UpstreamJSON(id format.UUID, dst []byte) ([]byte, error) {
	return rbapi.JSON(ix.Index, id, dst)
}

// UpstreamPage is rbapi.Page.
func (ix *Index) UpstreamPage(sel UpstreamSelect, offset, limit int, dst []byte) ([]byte, int, error) {
	return rbapi.Page(ix.Index, sel, offset, limit, dst)
}

// UpstreamStations is rbapi.Stations.
func (ix *Index) UpstreamStations(sel UpstreamSelect) (*UpstreamSet, error) {
	return rbapi.Stations(ix.Index, sel)
}

// UpstreamPageOf is rbapi.PageOf.
func (ix *Index) UpstreamPageOf(u *UpstreamSet, offset, limit int, dst []byte) ([]byte, int, error) {
	return rbapi.PageOf(ix.Index, u, offset, limit, dst)
}

// UpstreamWorking is rbapi.Working.
func (ix *Index) UpstreamWorking() (int, error) { return rbapi.Working(ix.Index) }

// UpstreamCounts is rbapi.Counts.
func (ix *Index) UpstreamCounts(d core.Dim, checkOK bool) ([]UpstreamCount, error) {
	return rbapi.Counts(ix.Index, d, checkOK)
}

// UpstreamStates is rbapi.States.
func (ix *Index) UpstreamStates(checkOK bool) ([]UpstreamState, error) {
	return rbapi.States(ix.Index, checkOK)
}
