package indexer

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/klauspost/compress/s2"

	"stationdex/internal/format"
	"stationdex/internal/stationjson"
)

// The upstream station objects (format.BucketRBAPIJSON): the source
// record as the upstream directory's API sends it, for the compatible
// layer under /json/. Its values are the source's, not the cleaned
// record's (clients of that API expect "tags" as the comma list it was),
// but they are untrusted all the same: each is bounded here, and the
// encoder escapes them (stationjson.AppendString).

// Bounds of the upstream object's fields.
const (
	// MaxUpstreamTextRunes bounds free text (name, tags, labels). The
	// real data's longest is a tag field of 311 tags; a cut text is
	// still text, unlike a cut URL.
	MaxUpstreamTextRunes = 2048
	// MaxUpstreamShortRunes bounds fields of fixed shape (uuids, times,
	// codes, codec names), which are far shorter when well formed.
	MaxUpstreamShortRunes = 64
)

// upstreamOf is the upstream object of the station id from its raw
// record. A URL over MaxURLBytes is dropped, as cleanURL does: a cut URL
// is a wrong one.
func upstreamOf(id format.UUID, raw *rawInput) stationjson.Upstream {
	up := &raw.rawUpstream
	return stationjson.Upstream{
		ID: id, ChangeUUID: short(up.ChangeUUID), ServerUUID: short(up.ServerUUID),
		Name: text(raw.Name), URL: boundedURL(raw.URL), URLResolved: boundedURL(raw.URLResolved),
		Homepage: boundedURL(raw.Homepage), Favicon: boundedURL(up.Favicon),
		Tags: text(raw.Tags), Country: text(raw.Country), CountryCode: short(raw.CountryCode),
		ISO3166_2: short(up.ISO3166_2), State: text(raw.State), Language: text(raw.Language),
		LanguageCodes: text(raw.LanguageCodes), Votes: raw.Votes,
		LastChangeTime: short(raw.LastChangeTime), LastChangeTimeISO: short(raw.LastChangeTimeTZ),
		Codec: short(raw.Codec), Bitrate: raw.Bitrate, HLS: up.HLS, LastCheckOK: raw.Flags.value("lastcheckok"),
		LastCheckTime: short(raw.LastCheckTime), LastCheckTimeISO: short(raw.LastCheckTimeTZ),
		LastCheckOKTime: short(up.LastCheckOKTime), LastCheckOKTimeISO: short(up.LastCheckOKTimeTZ),
		LastLocalCheckTime: short(up.LastLocalCheckTime), LastLocalCheckTimeISO: short(up.LastLocalCheckTimeTZ),
		ClickTimestamp: short(up.ClickTimestamp), ClickTimestampISO: short(up.ClickTimestampTZ),
		ClickCount: raw.ClickCount, ClickTrend: up.ClickTrend, SSLError: up.SSLError,
		GeoLat: raw.GeoLat.degrees(), GeoLong: raw.GeoLong.degrees(),
		HasExtendedInfo: up.HasExtendedInfo,
	}
}

func text(s string) string  { return cutRunes(s, MaxUpstreamTextRunes) }
func short(s string) string { return cutRunes(s, MaxUpstreamShortRunes) }

func boundedURL(s string) string {
	if len(s) > MaxURLBytes {
		return ""
	}
	return s
}

// degrees is the coordinate as given, nil when the source has none.
func (c coordinate) degrees() *float64 {
	if !c.set {
		return nil
	}
	return &c.deg
}

// upstreamKeys appends the keys of the upstream posting buckets (flags,
// url digest, country label) up is filed under.
func upstreamKeys(dst []postingKey, up *stationjson.Upstream) []postingKey {
	if up.HasExtendedInfo {
		dst = append(dst, postingKey{bUpstreamFlags, format.RBAPIFlagExtendedInfo})
	}
	if up.GeoLat != nil && up.GeoLong != nil {
		dst = append(dst, postingKey{bUpstreamFlags, format.RBAPIFlagGeo})
	}
	if up.URL != "" {
		dst = append(dst, postingKey{bUpstreamURLs, string(format.RBAPIURLKey(up.URL))})
	}
	return append(dst, postingKey{bUpstreamCountries, format.FacetKey(up.Country)})
}

// upstreamSpill keeps the upstream objects, in record order, while the
// stations bucket is written (bbolt writes one bucket at a time), in a
// temporary file compressed as the stored stations are (newSpillWriter),
// so that the build's memory bound holds. Each is a uint32
// little-endian length and the object, as readStored reads them.
type upstreamSpill struct {
	f    *os.File
	buf  *bufio.Writer
	s2   *s2.Writer
	size [4]byte
}

const upstreamSpillFile = "upstream_json.blocks"

func newUpstreamSpill(dir string) (*upstreamSpill, error) {
	f, err := os.Create(filepath.Join(dir, upstreamSpillFile))
	if err != nil {
		return nil, fmt.Errorf("upstream objects: %w", err)
	}
	// One goroutine compresses: the objects are written on the stations
	// bucket's writer, and each more would hold two blocks of memory.
	s := &upstreamSpill{f: f, s2: s2.NewWriter(f, s2.WriterBlockSize(spillBlock), s2.WriterConcurrency(1))}
	s.buf = bufio.NewWriterSize(s.s2, 64<<10)
	return s, nil
}

func (s *upstreamSpill) add(stored []byte) error {
	binary.LittleEndian.PutUint32(s.size[:], uint32(len(stored)))
	if _, err := s.buf.Write(s.size[:]); err != nil {
		return err
	}
	_, err := s.buf.Write(stored)
	return err
}

// finish ends the spill; it may be called more than once.
func (s *upstreamSpill) finish() error {
	if s.s2 == nil {
		return nil
	}
	if err := s.buf.Flush(); err != nil {
		return err
	}
	err := s.s2.Close()
	s.s2 = nil
	return err
}

// reader reads the ended spill from its start.
func (s *upstreamSpill) reader() (io.Reader, error) {
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	return newSpillReader(s.f), nil
}

// blocks ends the spill and returns the upstream_json bucket's contents,
// read back from it in blocks matching the record blocks.
func (s *upstreamSpill) blocks() (kvSource, error) {
	if err := s.finish(); err != nil {
		return nil, err
	}
	r, err := s.reader()
	if err != nil {
		return nil, err
	}
	return jsonBlocksSource(r), nil
}

// close releases the file; the build's temporary directory holds it.
func (s *upstreamSpill) close() {
	if s.s2 != nil {
		_ = s.s2.Close() // abandoned: ends its goroutines
	}
	_ = s.f.Close() // read only from here on, or abandoned
}

// nameGramKeys appends the name_grams keys of a folded name
// (format.AppendNameGrams): substrings of one string per name.
func (k *postingKeyer) nameGramKeys(dst []postingKey, folded string) []postingKey {
	k.grams = format.AppendNameGrams(k.grams[:0], folded)
	return appendKeys(dst, bNameGrams, k.grams)
}
