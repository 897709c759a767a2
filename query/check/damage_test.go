package check

import (
	"errors"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"

	"stationdex/internal/format"
	"stationdex/query/internal/testindex"
)

// checkRefusesDamage damages a copy of the index at path (resealed, so
// that only the check's own reading can find it) and expects Check to
// call it corrupt, in words containing want ("" for any).
func checkRefusesDamage(t *testing.T, path string, damage func(*bolt.Tx) error, want string) {
	t.Helper()
	p := testindex.CopyFile(t, path)
	if err := format.Edit(p, damage); err != nil {
		t.Fatal(err)
	}
	_, err := Check(p)
	if !errors.Is(err, format.ErrCorrupt) || !strings.Contains(err.Error(), want) {
		t.Errorf("Check: %v, want ErrCorrupt and %q", err, want)
	}
}
