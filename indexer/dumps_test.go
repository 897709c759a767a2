package indexer

import (
	"bytes"
	"context"
	"testing"

	"stationdex/internal/format"
	"stationdex/internal/stationjson"
)

// fixtureBlocks returns the fixture's records as record blocks, and both
// dumps of them (gzip streams, by file name) made directly with
// stationjson.Dump.Add.
func fixtureBlocks(t *testing.T, base string) (blocks [][]byte, dumps map[string][]byte) {
	t.Helper()
	var recs [][]byte
	var jsonGz, ndjsonGz bytes.Buffer
	d := stationjson.NewDump(&jsonGz, &ndjsonGz)
	_, err := ReadRecords(context.Background(), func(r *format.Record) error {
		recs = append(recs, format.AppendRecord(nil, r))
		st := stationjson.New(base, r)
		return d.Add(&st)
	}, openFixture(t))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Close(); err != nil {
		t.Fatal(err)
	}
	for len(recs) > 0 { // blocks of two records: several blocks
		n := min(2, len(recs))
		blocks = append(blocks, format.AppendBlock(nil, recs[:n]))
		recs = recs[n:]
	}
	return blocks, map[string][]byte{format.FileStationsJSON: jsonGz.Bytes(), format.FileStationsNDJSON: ndjsonGz.Bytes()}
}

// TestDumpWriterDumpsAfterStations: the dumps, made from the spilled
// stations once every block is in, are byte for byte those Dump.Add writes
// for the same stations; the station_json source, read from the same spill
// meanwhile, holds every station.
func TestDumpWriterDumpsAfterStations(t *testing.T) {
	const base = "https://radio.example"
	blocks, want := fixtureBlocks(t, base)
	w, err := newDumpWriter(t.TempDir(), base)
	if err != nil {
		t.Fatal(err)
	}
	defer w.abort()
	for _, b := range blocks {
		w.addBlock(b)
	}
	stations := len(recordsIn(t, stationJSONBlocks(t, w)))
	files, err := w.finish()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]byte{}
	for {
		k, v, err := files.next(nil)
		if err != nil {
			t.Fatal(err)
		}
		if k == nil {
			break
		}
		name := string(k[:bytes.IndexByte(k, 0)])
		got[name] = append(got[name], v...)
	}
	for name, gz := range want {
		if !bytes.Equal(got[name], gz) {
			t.Errorf("%s: %d bytes, not the %d Dump.Add wrote", name, len(got[name]), len(gz))
		}
	}
	if n := len(recordsIn(t, blocks)); stations != n {
		t.Errorf("station_json holds %d stations, want %d", stations, n)
	}
}

// TestDumpWriterAbortWhileDumping: a build failing while the dumps are made
// stops their goroutine; abort returns.
func TestDumpWriterAbortWhileDumping(t *testing.T) {
	blocks, _ := fixtureBlocks(t, DefaultBaseURL)
	w, err := newDumpWriter(t.TempDir(), DefaultBaseURL)
	if err != nil {
		t.Fatal(err)
	}
	for range 200 {
		for _, b := range blocks {
			w.addBlock(b)
		}
	}
	if _, err := w.startDumps(); err != nil {
		t.Fatal(err)
	}
	w.abort()
	if w.dumped != nil {
		t.Error("abort left the dumps' goroutine running")
	}
}

// recordsIn lists the records of blocks.
func recordsIn(t *testing.T, blocks [][]byte) [][]byte {
	t.Helper()
	var recs [][]byte
	for _, b := range blocks {
		n, err := format.BlockLen(b)
		if err != nil {
			t.Fatal(err)
		}
		for i := range n {
			r, err := format.BlockRecord(b, i)
			if err != nil {
				t.Fatal(err)
			}
			recs = append(recs, r)
		}
	}
	return recs
}

// TestDumpWriterStoresInBlockOrder: read back from the compressed spill,
// over many blocks and compression blocks, the station_json source yields
// every station's stored form, in record order.
func TestDumpWriterStoresInBlockOrder(t *testing.T) {
	blocks, _ := fixtureBlocks(t, DefaultBaseURL)
	w := testDumpWriter(t)
	var want [][]byte
	var r format.Record
	for range 50 {
		for _, b := range blocks {
			w.addBlock(b)
		}
		for _, rec := range recordsIn(t, blocks) {
			if err := format.DecodeRecord(rec, &r); err != nil {
				t.Fatal(err)
			}
			want = append(want, stationjson.AppendStored(nil, &r))
		}
	}
	got := recordsIn(t, stationJSONBlocks(t, w))
	if len(got) != len(want) {
		t.Fatalf("station_json holds %d stations, want %d", len(got), len(want))
	}
	for i := range want {
		if !bytes.Equal(got[i], want[i]) {
			t.Fatalf("station %d: %s, want %s", i, got[i], want[i])
		}
	}
}

// TestDumpWriterDamagedBlock: a block that cannot be decoded fails
// startDumps, and the blocks after it are still taken (drained), so that
// the stations bucket's writer never waits for good.
func TestDumpWriterDamagedBlock(t *testing.T) {
	blocks, _ := fixtureBlocks(t, DefaultBaseURL)
	w := testDumpWriter(t)
	w.addBlock([]byte{0xff})
	for range 20 {
		for _, b := range blocks {
			w.addBlock(b)
		}
	}
	if _, err := w.startDumps(); err == nil {
		t.Error("startDumps succeeded after a damaged block")
	}
}

// testDumpWriter is a dumpWriter for DefaultBaseURL in a temporary
// directory, aborted when the test ends.
func testDumpWriter(t *testing.T) *dumpWriter {
	t.Helper()
	w, err := newDumpWriter(t.TempDir(), DefaultBaseURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.abort)
	return w
}

// stationJSONBlocks starts w's dumps and returns every block of the
// station_json source it returns.
func stationJSONBlocks(t *testing.T, w *dumpWriter) [][]byte {
	t.Helper()
	storedJSON, err := w.startDumps()
	if err != nil {
		t.Fatal(err)
	}
	var blocks [][]byte
	for {
		k, v, err := storedJSON(nil)
		if err != nil {
			t.Fatal(err)
		}
		if k == nil {
			return blocks
		}
		blocks = append(blocks, v)
	}
}
