package core

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// FuzzOpen damages a sound index file (byte edits anywhere, truncation) and
// opens it: Open must return an error or succeed, never panic, fault or
// corrupt memory (a stray pointer into the Go heap is fatal at the next
// garbage collection, so the fuzzer sees it as a crash). Open verifies the
// page tree and every bucket's checksum, so a file it accepts is the file
// as written, up to bytes no reader uses: searches, reads and directory
// calls must then succeed, and Check, which decodes everything, must agree
// with Open either way.
//
// edits is read as 4-byte groups: a 3-byte big-endian offset (modulo the
// file size) and a byte XORed into the file there. cut, when non-zero,
// truncates the file to cut modulo its size.
func FuzzOpen(f *testing.F) {
	small(f)
	sound, err := os.ReadFile(smallPath)
	if err != nil {
		f.Fatal(err)
	}
	f.Add([]byte{}, uint32(0))
	f.Add([]byte{}, uint32(len(sound)/2))
	f.Add([]byte{}, uint32(4096))
	f.Add([]byte{0, 0, 0, 0xff}, uint32(0))       // first meta page
	f.Add([]byte{0, 0x10, 0x10, 0x01}, uint32(0)) // second meta page
	f.Add([]byte{0, 0x20, 0x00, 0x80}, uint32(0)) // a page header
	f.Add([]byte{0, 0x30, 0x40, 0x55, 0, 0x50, 0x80, 0xaa}, uint32(0))
	f.Fuzz(func(t *testing.T, edits []byte, cut uint32) { openDamaged(t, sound, edits, cut) })
}

// openDamaged damages sound with edits and cut (see damage), and opens and
// checks the result: both must refuse it or both accept it, without a
// crash or a hang, and an accepted file must serve every kind of read.
func openDamaged(t *testing.T, sound, edits []byte, cut uint32) {
	defer time.AfterFunc(openHangLimit, func() {
		panic(fmt.Sprintf("Open/Check hangs on edits %x, cut %d", edits, cut)) // kills the worker: the fuzzer keeps the input
	}).Stop()
	path := filepath.Join(t.TempDir(), "damaged.idx")
	if err := os.WriteFile(path, damage(sound, edits, cut), 0o644); err != nil {
		t.Fatal(err)
	}
	ix, openErr := Open(path)
	_, checkErr := Check(path)
	if (openErr == nil) != (checkErr == nil) {
		t.Fatalf("Open: %v; Check: %v; want both to refuse or both to pass", openErr, checkErr)
	}
	if openErr != nil {
		return
	}
	defer ix.Close()
	useAll(t, ix)
}

// openHangLimit: opening and checking the small index takes milliseconds;
// a damaged file that takes this long has sent a reader into a loop.
const openHangLimit = 10 * time.Second

// damage returns a copy of sound with edits applied and cut off at cut.
func damage(sound, edits []byte, cut uint32) []byte {
	d := append([]byte(nil), sound...)
	for ; len(edits) >= 4; edits = edits[4:] {
		off := int(binary.BigEndian.Uint32(append([]byte{0}, edits[:3]...))) % len(d)
		d[off] ^= edits[3]
	}
	if cut != 0 {
		d = d[:int(cut)%len(d)]
	}
	return d
}

// useAll runs every kind of read on an index that Open accepted; each must
// succeed.
func useAll(t *testing.T, ix *Index) {
	t.Helper()
	for _, q := range []Query{{Limit: 50}, {Q: "radio", Limit: 5}, {Q: "j", Filter: filters("de", "", ""), Limit: 5}, {Filter: filters("", "en", "pop"), Limit: 5}} {
		res, err := search(ix, q)
		if err != nil {
			t.Fatalf("Open passed, Search(%+v): %v", q, err)
		}
		for _, st := range res.Stations {
			if _, err := ix.Station(st.ID); err != nil {
				t.Fatalf("Open passed, Station(%s): %v", st.ID, err)
			}
			if _, err := ix.StationJSON(st.ID, nil); err != nil {
				t.Fatalf("Open passed, StationJSON(%s): %v", st.ID, err)
			}
		}
		if _, _, err := searchJSON(ix, q, nil); err != nil {
			t.Fatalf("Open passed, SearchJSON(%+v): %v", q, err)
		}
	}
	for _, facet := range []Dim{DimCountry, DimLanguage, DimGenre, DimLocation} {
		if _, _, err := ix.Listings(facet, ByStations, 0, 10); err != nil {
			t.Fatalf("Open passed, Listings(%d): %v", facet, err)
		}
	}
}
