// Package mix is the committed query mix: a fixed list of searches, each
// tagged with the class it stands for, read and written as TSV.
//
// Columns: class, q, country, language, genre, limit, offset. Fields never
// contain tabs or newlines (the generator strips them); an empty field means
// the parameter is absent.
//
// File map:
//   - mix.go: this comment; Query, the classes, reading and writing the
//     TSV, and samples by class
//   - upstream.go: UpSearch, a search in the Radio Browser API's spelling
package mix

import (
	"bufio"
	"fmt"
	"io"
	"net/url"
	"os"
	"strconv"
	"strings"
)

// Query is one search of the mix.
type Query struct {
	Class                       string
	Q, Country, Language, Genre string
	Limit, Offset               int
}

// Classes in report order, with what each stands for.
var Classes = []struct{ Name, What string }{
	{"name_full", "a full station name as listed"},
	{"name_part", "one or two words of a name"},
	{"prefix1", "one-letter prefix of a name word"},
	{"prefix2", "two-letter prefix"},
	{"prefix3", "three-letter prefix"},
	{"genre", "genre filter alone (exact source tag)"},
	{"country", "country filter alone (ISO alpha-2)"},
	{"lang_code", "language filter by ISO 639 code (1, 2B, 2T, 3)"},
	{"lang_name", "language filter by English name or source label"},
	{"combo", "words plus one or two filters"},
	{"deep_offset", "broad searches at offsets 500-5000"},
	{"zero", "searches with no result"},
}

const header = "#class\tq\tcountry\tlanguage\tgenre\tlimit\toffset"

// Write writes qs as TSV with a header line.
func Write(w io.Writer, qs []Query) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, header)
	for _, q := range qs {
		fmt.Fprintf(bw, "%s\t%s\t%s\t%s\t%s\t%d\t%d\n", q.Class, q.Q, q.Country, q.Language, q.Genre, q.Limit, q.Offset)
	}
	return bw.Flush()
}

// Load reads a mix file.
func Load(path string) ([]Query, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Query
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		q, err := parse(line)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		out = append(out, q)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no queries", path)
	}
	return out, nil
}

func parse(line string) (Query, error) {
	f := strings.Split(line, "\t")
	if len(f) != 7 {
		return Query{}, fmt.Errorf("%d fields, want 7", len(f))
	}
	limit, err1 := strconv.Atoi(f[5])
	offset, err2 := strconv.Atoi(f[6])
	if err1 != nil || err2 != nil || limit < 1 || limit > 50 || offset < 0 || offset > 5000 {
		return Query{}, fmt.Errorf("bad limit/offset %q %q", f[5], f[6])
	}
	return Query{Class: f[0], Q: f[1], Country: f[2], Language: f[3], Genre: f[4], Limit: limit, Offset: offset}, nil
}

// Path is the request path and query string of q on the search endpoint.
func (q Query) Path() string {
	v := url.Values{}
	set := func(k, s string) {
		if s != "" {
			v.Set(k, s)
		}
	}
	set("q", q.Q)
	set("country", q.Country)
	set("language", q.Language)
	set("genre", q.Genre)
	v.Set("limit", strconv.Itoa(q.Limit))
	if q.Offset > 0 {
		v.Set("offset", strconv.Itoa(q.Offset))
	}
	return "/api/stations?" + v.Encode()
}

// ByClass groups query indexes by class.
func ByClass(qs []Query) map[string][]int {
	m := map[string][]int{}
	for i, q := range qs {
		m[q.Class] = append(m[q.Class], i)
	}
	return m
}

// Sample keeps at most n queries of each class, evenly spread, in order.
func Sample(qs []Query, n int) []Query {
	var out []Query
	for _, i := range SampleIndex(qs, n) {
		out = append(out, qs[i])
	}
	return out
}

// SampleIndex is Sample as indexes into qs.
func SampleIndex(qs []Query, n int) []int {
	var out []int
	for _, c := range Classes {
		var idx []int
		for i, q := range qs {
			if q.Class == c.Name {
				idx = append(idx, i)
			}
		}
		k := min(n, len(idx))
		for j := 0; j < k; j++ {
			out = append(out, idx[j*len(idx)/k])
		}
	}
	return out
}
