// Package raw reads Radio Browser dumps as upstream wrote them, with no
// clean-up: the data generator recombines these records, the query-mix
// generator samples them, and the MariaDB peer loads them into the upstream
// table the way the upstream server stores them.
package raw

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
)

// Station is one upstream record. Missing strings (null or "") are "".
type Station struct {
	ChangeUUID         string   `json:"changeuuid"`
	StationUUID        string   `json:"stationuuid"`
	ServerUUID         string   `json:"serveruuid"`
	Name               string   `json:"name"`
	URL                string   `json:"url"`
	URLResolved        string   `json:"url_resolved"`
	Homepage           string   `json:"homepage"`
	Favicon            string   `json:"favicon"`
	Tags               string   `json:"tags"`
	Country            string   `json:"country"`
	CountryCode        string   `json:"countrycode"`
	ISO31662           string   `json:"iso_3166_2"`
	State              string   `json:"state"`
	Language           string   `json:"language"`
	LanguageCodes      string   `json:"languagecodes"`
	Votes              int64    `json:"votes"`
	LastChangeTime     string   `json:"lastchangetime"`
	Codec              string   `json:"codec"`
	Bitrate            int64    `json:"bitrate"`
	HLS                int64    `json:"hls"`
	LastCheckOK        int64    `json:"lastcheckok"`
	LastCheckTime      string   `json:"lastchecktime"`
	LastCheckOKTime    string   `json:"lastcheckoktime"`
	LastLocalCheckTime string   `json:"lastlocalchecktime"`
	ClickTimestamp     string   `json:"clicktimestamp"`
	ClickCount         int64    `json:"clickcount"`
	ClickTrend         int64    `json:"clicktrend"`
	SSLError           int64    `json:"ssl_error"`
	GeoLat             *float64 `json:"geo_lat"`
	GeoLong            *float64 `json:"geo_long"`
	HasExtendedInfo    bool     `json:"has_extended_info"`
}

// Open opens a dump file, gunzipping when the name ends in .gz.
func Open(path string) (io.ReadCloser, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if !strings.HasSuffix(path, ".gz") {
		return f, nil
	}
	z, err := gzip.NewReader(bufio.NewReaderSize(f, 1<<20))
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return struct {
		io.Reader
		io.Closer
	}{z, f}, nil
}

// EachLine calls fn with every non-empty line of an NDJSON dump. The slice
// is only valid during the call.
func EachLine(path string, fn func(line []byte) error) error {
	rc, err := Open(path)
	if err != nil {
		return err
	}
	defer rc.Close()
	return eachLine(path, rc, fn)
}

func eachLine(name string, r io.Reader, fn func(line []byte) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		if err := fn(line); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// ReadAll decodes every station of an NDJSON dump. A line that does not
// decode is an error: the snapshot is a fixed, known-good file.
func ReadAll(path string) ([]Station, error) {
	rc, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	var out []Station
	n := 0
	err = eachLine(path, rc, func(line []byte) error {
		n++
		var s Station
		if err := json.Unmarshal(line, &s); err != nil {
			return fmt.Errorf("%s line %d: %w", path, n, err)
		}
		out = append(out, s)
		return nil
	})
	return out, err
}

// Read decodes the stations of an NDJSON dump read from r (named name in
// errors), skipping and counting the lines that are not a station object:
// a fixture may have them on purpose (the demo snapshot has one).
func Read(name string, r io.Reader) (out []Station, skipped int, err error) {
	err = eachLine(name, r, func(line []byte) error {
		var s Station
		if json.Unmarshal(line, &s) != nil {
			skipped++
			return nil
		}
		out = append(out, s)
		return nil
	})
	return out, skipped, err
}

// SplitList splits an upstream comma list, trimming and dropping empties.
func SplitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// CleanName collapses white space and control characters the way a user
// would type the name.
func CleanName(s string) string {
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool {
		return r <= ' ' || r == 0x7f || r == 0x200b || r == 0xfeff
	}), " ")
}
