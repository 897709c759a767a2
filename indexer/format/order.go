package format

import (
	"bytes"
	"cmp"
	"strings"

	"stationdex/indexer/fold"
)

// NameOrder is what record numbers are assigned by (see the package
// comment): the name key, then the folded name, then the UUID bytes, which
// make the order total. The indexer sorts by it and Check verifies it.
type NameOrder struct {
	Key    string // fold.Key(name)
	Folded string // fold.String(name)
	ID     UUID
}

// NameOrderOf is the position of a station's name in the order.
func NameOrderOf(name string, id UUID) NameOrder {
	return NameOrder{Key: fold.Key(name), Folded: fold.String(name), ID: id}
}

// Compare is -1, 0 or +1 as a sorts before, with, or after b.
func (a NameOrder) Compare(b NameOrder) int {
	return cmp.Or(strings.Compare(a.Key, b.Key), strings.Compare(a.Folded, b.Folded), bytes.Compare(a.ID[:], b.ID[:]))
}
