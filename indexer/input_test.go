package indexer

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"stationdex/internal/format"
)

// station renders a minimal Radio Browser record.
func station(n int, name string) string {
	return fmt.Sprintf(`{"stationuuid":"%08x-0000-4000-8000-%012x","name":%q,"lastchecktime":"2025-02-27 12:00:00","bitrate":128}`, n, n, name)
}

func ndjson(lines ...string) string { return strings.Join(lines, "\n") + "\n" }

func jsonArray(elems ...string) string { return "[\n" + strings.Join(elems, ",\n") + "\n]" }

func gzipped(t testing.TB, s string) string {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(s))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// readNames runs ReadRecords over texts and returns the names read.
func readNames(t *testing.T, texts ...string) ([]string, format.Skipped, error) {
	t.Helper()
	var inputs []Input
	for i, s := range texts {
		inputs = append(inputs, Input{Name: fmt.Sprintf("in%d", i), R: strings.NewReader(s)})
	}
	var names []string
	sk, err := ReadRecords(context.Background(), func(r *format.Record) error {
		names = append(names, r.Name)
		return nil
	}, inputs...)
	return names, sk, err
}

func TestReadEncodings(t *testing.T) {
	a, b := station(1, "Alpha"), station(2, "Beta")
	want := []string{"Alpha", "Beta"}
	inputs := map[string]string{
		"ndjson":             ndjson(a, b),
		"ndjson CRLF":        a + "\r\n" + b + "\r\n",
		"ndjson no final NL": a + "\n" + b,
		"ndjson blank lines": "\n\n" + a + "\n\n  \n" + b + "\n\n",
		"ndjson BOM":         "\xef\xbb\xbf" + ndjson(a, b),
		"array":              jsonArray(a, b),
		"array one line":     "[" + a + "," + b + "]",
		"array leading ws":   " \n\t" + jsonArray(a, b) + "\n",
		"gzip ndjson":        gzipped(t, ndjson(a, b)),
		"gzip array":         gzipped(t, jsonArray(a, b)),
	}
	for name, text := range inputs {
		t.Run(name, func(t *testing.T) {
			got, sk, err := readNames(t, text)
			if err != nil || !slices.Equal(got, want) || sk != (format.Skipped{}) {
				t.Errorf("got %q, %+v, %v; want %q", got, sk, err, want)
			}
		})
	}
}

func TestReadEmpty(t *testing.T) {
	for _, text := range []string{"", "  \n", "[]", " [ ] ", gzipped(t, "")} {
		got, sk, err := readNames(t, text)
		if err != nil || len(got) != 0 || sk.Total() != 0 {
			t.Errorf("%q: got %q, %+v, %v", text, got, sk, err)
		}
	}
}

func TestReadSkips(t *testing.T) {
	lines := []string{
		station(1, "One"),
		`[1, 2]`,                  // not an object
		`"a string"`,              // not an object
		`null`,                    // not an object
		`{"stationuuid": 7}`,      // wrong type
		`{"name": ["x"]}`,         // wrong type
		`{"bitrate": "128"}`,      // wrong type
		`{"stationuuid": "x", `,   // broken JSON
		`{}`,                      // no uuid
		station(1, "One again"),   // duplicate
		station(2, " "),           // empty name
		station(2, "Two"),         // the uuid was not taken by the empty name
		station(3, "Three") + "}", // trailing garbage
	}
	got, sk, err := readNames(t, ndjson(lines...))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"One", "Two"}; !slices.Equal(got, want) {
		t.Errorf("names %q, want %q", got, want)
	}
	want := format.Skipped{Malformed: 8, InvalidUUID: 1, DuplicateUUID: 1, EmptyName: 1}
	if sk != want {
		t.Errorf("skipped %+v, want %+v", sk, want)
	}
}

func TestReadArraySkips(t *testing.T) {
	got, sk, err := readNames(t, jsonArray(station(1, "One"), `5`, `{"name": 5}`, `[]`, station(2, "Two")))
	if err != nil || !slices.Equal(got, []string{"One", "Two"}) || sk != (format.Skipped{Malformed: 3}) {
		t.Errorf("got %q, %+v, %v", got, sk, err)
	}
}

func TestReadDuplicatesAcrossInputs(t *testing.T) {
	got, sk, err := readNames(t, ndjson(station(1, "First")), jsonArray(station(1, "Second"), station(2, "Other")))
	if err != nil || !slices.Equal(got, []string{"First", "Other"}) || sk != (format.Skipped{DuplicateUUID: 1}) {
		t.Errorf("got %q, %+v, %v", got, sk, err)
	}
}

func TestReadLongLine(t *testing.T) {
	long := station(2, strings.Repeat("x", maxLineBytes))
	got, sk, err := readNames(t, ndjson(station(1, "One"), long, station(3, "Three")))
	if err != nil || !slices.Equal(got, []string{"One", "Three"}) || sk != (format.Skipped{Malformed: 1}) {
		t.Errorf("got %q, %+v, %v", got, sk, err)
	}
}

// TestReadFatal: a stream that cannot be read on is an error naming the
// input, not a skipped record.
func TestReadFatal(t *testing.T) {
	full := gzipped(t, ndjson(station(1, "One"), station(2, "Two"), station(3, "Three")))
	tests := map[string]string{
		"truncated gzip":         full[:len(full)-12],
		"corrupt gzip":           full[:20] + strings.Repeat("\x00", 30) + full[50:],
		"gzip header only":       full[:5],
		"truncated array":        `[` + station(1, "One") + `,` + station(2, "Tw"),
		"array syntax error":     `[` + station(1, "One") + ` ` + station(2, "Two") + `]`,
		"data after array":       jsonArray(station(1, "One")) + `{"x":1}`,
		"neither array nor json": "stationuuid,name\n",
	}
	for name, text := range tests {
		t.Run(name, func(t *testing.T) {
			_, _, err := readNames(t, text)
			if err == nil || !strings.Contains(err.Error(), "input in0") {
				t.Errorf("err = %v, want an error naming input in0", err)
			}
		})
	}
}

func TestReadCallbackError(t *testing.T) {
	stop := errors.New("stop")
	calls := 0
	in := Input{Name: "x", R: strings.NewReader(ndjson(station(1, "A"), station(2, "B")))}
	_, err := ReadRecords(context.Background(), func(*format.Record) error { calls++; return stop }, in)
	if !errors.Is(err, stop) || calls != 1 {
		t.Errorf("err %v after %d calls", err, calls)
	}
}

func TestReadCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	lines := make([]string, 3000)
	for i := range lines {
		lines[i] = station(i+1, "S")
	}
	in := Input{Name: "x", R: strings.NewReader(ndjson(lines...))}
	if _, err := ReadRecords(ctx, func(*format.Record) error { return nil }, in); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

// TestWarningsCapped: a dump of garbage yields MaxWarnings lines and a note,
// not one line per record.
func TestWarningsCapped(t *testing.T) {
	lines := []string{station(1, "One")}
	for range 100 {
		lines = append(lines, "{not json")
	}
	var warn bytes.Buffer
	path := filepath.Join(t.TempDir(), "x.idx")
	in := Input{Name: "garbage", R: strings.NewReader(ndjson(lines...))}
	sum, err := Build(context.Background(), path, Options{Warnings: &warn}, in)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Skipped.Malformed != 100 {
		t.Errorf("malformed %d, want 100", sum.Skipped.Malformed)
	}
	out := strings.Split(strings.TrimSpace(warn.String()), "\n")
	if len(out) != MaxWarnings+1 || !strings.Contains(out[0], "input garbage line 2") {
		t.Errorf("%d warning lines, want %d; first %q", len(out), MaxWarnings+1, out[0])
	}
}

func TestOpenInputFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dump.json.gz")
	if err := os.WriteFile(path, []byte(gzipped(t, jsonArray(station(1, "A")))), 0o644); err != nil {
		t.Fatal(err)
	}
	in, c, err := OpenInput(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if in.Name != path {
		t.Errorf("name %q", in.Name)
	}
	if _, err := ReadRecords(context.Background(), func(*format.Record) error { return nil }, in); err != nil {
		t.Error(err)
	}
	if _, _, err := OpenInput(context.Background(), filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("missing file opened")
	}
	in, c, err = OpenInput(context.Background(), "-")
	if err != nil || in.Name != "-" || in.R != os.Stdin || c.Close() != nil {
		t.Errorf("stdin: %+v, %v", in, err)
	}
}

func TestOpenInputURL(t *testing.T) {
	body := gzipped(t, jsonArray(station(1, "A"), station(2, "B")))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/json/stations" {
			http.NotFound(w, r)
			return
		}
		if ua := r.Header.Get("User-Agent"); ua != "stationdex-indexer" {
			http.Error(w, "bad user agent "+ua, http.StatusForbidden)
			return
		}
		w.Write([]byte(body))
	}))
	defer srv.Close()
	in, c, err := OpenInput(context.Background(), srv.URL+"/json/stations")
	if err != nil {
		t.Fatal(err)
	}
	var n int
	_, err = ReadRecords(context.Background(), func(*format.Record) error { n++; return nil }, in)
	c.Close()
	if err != nil || n != 2 {
		t.Errorf("read %d records, %v", n, err)
	}
	if _, _, err := OpenInput(context.Background(), srv.URL+"/missing"); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("err = %v, want HTTP 404", err)
	}
}
