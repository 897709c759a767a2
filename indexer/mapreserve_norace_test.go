//go:build !race

// Not under the race detector, which needs terabytes of address space for
// its shadow memory and so cannot run within the limit this test sets.

package indexer

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
)

// buildChildEnv names the index file a child process of
// TestBuildWithinLimitedAddressSpace builds the fixture into.
const buildChildEnv = "STATIONDEX_TEST_BUILD_TO"

// TestBuildWithinLimitedAddressSpace builds the fixture in a child process
// whose address space is limited (ulimit -v) below mapReserve: mapping
// the index that large fails there, and the build must fall back to a map
// that grows with the file and write the same index.
func TestBuildWithinLimitedAddressSpace(t *testing.T) {
	if to := os.Getenv(buildChildEnv); to != "" {
		in, c, err := OpenInput(context.Background(), fixture)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := Build(context.Background(), to, Options{}, in); err != nil {
			t.Fatal(err)
		}
		return
	}
	if runtime.GOOS != "linux" {
		t.Skip("ulimit -v limits the address space on Linux")
	}
	const limitKiB = 8 << 20 // 8 GiB: the Go runtime and the test need far less
	if mapReserve <= limitKiB<<10 {
		t.Fatalf("mapReserve %d is within the limit, which then tests nothing", mapReserve)
	}
	limited := filepath.Join(t.TempDir(), "limited.idx")
	cmd := exec.Command("/bin/sh", "-c", `ulimit -v "$1" && exec "$2" -test.run='^TestBuildWithinLimitedAddressSpace$' -test.count=1`,
		"sh", strconv.Itoa(limitKiB), os.Args[0])
	cmd.Env = append(os.Environ(), buildChildEnv+"="+limited)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build within %d KiB of address space: %v\n%s", limitKiB, err, out)
	}
	path, sum := buildFixture(t, Options{})
	checkIndex(t, limited, sum.Stations)
	if digestIndex(t, limited) != digestIndex(t, path) {
		t.Error("the index built within the limit differs from the one built without")
	}
}
