// Package format is the one place where the index writer (package indexer)
// and the index reader (package query) agree on the stationdex index file:
// bucket names, key encodings, the record codec, the meta document and the
// format version. Neither side spells a bucket name or a key layout itself.
//
// # The index file
//
// An index is a single bbolt file, written once by `stationdex index` and then
// only ever opened read-only (and memory-mapped) by the server. It holds one
// snapshot of the directory; a new snapshot is a new file.
//
// Record numbers. Every station gets a dense uint32 record number, assigned in
// the final presentation order: ascending by name key (see package fold:
// the folded name tokens joined by single spaces, so case, accents and leading
// punctuation do not count), then by folded display name, then by UUID bytes.
// Because posting lists are sets of record numbers, iterating any posting list
// or any intersection of them yields stations already in alphabetical order,
// and the n-th result of a query is a Select on a bitmap. The "stations"
// bucket, records in record-number order, therefore also is the presorted
// name order. It holds them in blocks of RecordsPerBlock consecutive records
// (layout in block.go), so a page costs a lookup per block, not per station.
//
// Buckets (all keys compare bytewise, as bbolt does):
//
//	meta        "checksums" -> the sum of every bucket, as JSON (see
//	                          checksum.go): what Open verifies
//	            "format"   -> Magic ("stationdex-index")
//	            "version"  -> Version, decimal ASCII ("19")
//	            "meta"     -> Meta as JSON (schema_version, snapshot_at, source,
//	                          counts, build info)
//	stations    BlockKey(b)   -> record block b: records b*RecordsPerBlock
//	                             onward, each encoded with AppendRecord
//	station_json BlockKey(b) -> JSON block b: the same stations as record
//	                             block b, each as the API's Station JSON
//	                             with the base URL left out (see
//	                             stationjson.go): the JSON API copies a
//	                             page out of it instead of decoding records
//	upstream_json BlockKey(b) -> (only with Meta.RBAPI, as every bucket
//	                             of RBAPIBuckets) upstream block b: the same stations as
//	                             record block b, each as the upstream
//	                             directory's station object (every field
//	                             of the snapshot record, bounded, and
//	                             page_url opening with BaseURLMark): what
//	                             the Radio Browser API under /json/ copies
//	ids         16-byte UUID  -> RecordKey(n)
//	names       name key      -> bitmap: stations whose name key equals it
//	                             (the exact-name relevance tier)
//	name_tokens token         -> bitmap: stations with that token in the name
//	name_prefix prefix        -> bitmap: union of name_tokens under the prefix
//	all_tokens  token         -> bitmap: token in any searchable field (name,
//	                             country label, ISO code and English country
//	                             name, location, languages, genres)
//	all_prefix  prefix        -> bitmap: union of all_tokens under the prefix
//	countries   ISO alpha-2, upper case  -> bitmap
//	lang_labels folded source language label -> bitmap
//	lang_codes  ISO 639 code (639-1 where one exists, else 639-3) -> bitmap
//	genres      GenreKey of a source tag -> bitmap: the stations listing
//	            any spelling of that genre (case, accents, spaces, hyphens,
//	            apostrophes and a leading '#' aside)
//	genre_labels GenreKey -> the spelling of the genre most of its
//	            stations list (ties: the bytewise smallest), as it is
//	            listed: the label of its directory page and facet entry
//	locations   folded location text  -> bitmap
//	codecs      codec name (Record.Codec: MP3, AAC, ...) -> bitmap
//	schemes     SchemeHTTP or SchemeHTTPS -> bitmap: stations whose stream
//	            address has that scheme (none for a station without one)
//	checks      "true" or "false" -> bitmap: the stations whose source
//	            record's last check succeeded, or failed (a flag of
//	            Record.Flags)
//	upstream_flags RBAPIFlag* -> bitmap: the stations whose snapshot
//	            record sets that flag (has_extended_info, both coordinates
//	            given), for the Radio Browser API's has_extended_info and
//	            has_geo_info (its hidebroken reads checks)
//	upstream_urls RBAPIURLKey(url) -> bitmap: the stations whose
//	            snapshot url (as entered, not resolved) has that short
//	            digest; a reader compares the urls themselves
//	name_grams  a gram of a folded name (grams.go) -> bitmap: the
//	            stations whose folded name has that gram, for the
//	            compatible API's substring match of names
//	upstream_countries FacetKey(country label) -> bitmap: the stations
//	            of that source country label ("The United States Of
//	            America"), for the Radio Browser API's countryExact
//	upstream_orders RBAPIOrderKey(order, chunk) -> a chunk of the
//	            permutation of the records in one of the compatible
//	            API's orders (upstream_orders.go)
//	search_orders SearchOrderKey(order, chunk) -> a chunk of the
//	            permutation of the records in one of the search's
//	            stored orders, popular and bitrate (order.go)
//	bitrates    BitrateKey(kbps), 4 bytes big-endian -> bitmap: stations of
//	            exactly that bitrate; a range is a cursor walk (few keys)
//	geo         GeoCellKey(cell) -> the stations with coordinates in that
//	            cell of one degree, as packed points (see geo.go)
//	nearby      BlockKey(b) -> the nearest stations of each record of
//	            block b, as a station page lists them (see nearby.go)
//	groups      GroupKey(g) -> the members of group g (see groups.go)
//	group_of    BlockKey(b) -> the group of each record of block b (see
//	            groups.go): with groups, the entries that are one stream
//	            or one station, found in one lookup
//	listed_groups ListedGroupsKey(bucket, key) -> the number of groups
//	            among the stations of a key of a directory or facet bucket
//	            (codecs, countries, genres, lang_codes, lang_labels,
//	            locations; see groups.go): a directory index shows it
//	            beside every value's entries, and a distinct search of
//	            every station counts its facets by it
//	word_groups word -> the number of groups among the stations a query
//	            word finds, for the words that find many (word_groups.go)
//	dictionary  KeyAllTokensFST -> a vellum FST of every all_tokens key,
//	            each mapped to its station count: the dictionary the
//	            "did you mean" suggestions draw from (query loads it once
//	            and files its words under their deletions, SymSpell's way;
//	            see filters.go here and query/dictionary.go);
//	            KeyWordReach -> each word's reach, in FST order: the
//	            stations it finds as a query word (see filters.go)
//	facet_memo  the top values of the counted facets of the largest
//	            posting lists and pairs of lists (see facetmemo.go)
//	files       FileChunkKey(name, i) -> chunk i of file name: the data
//	            dumps, made at index time so that serving them costs no
//	            work per request. A file is the concatenation of its chunks
//	            0, 1, ... (see files.go for why files are chunked):
//	              FileManifest        FilesManifest as JSON
//	              FileStationsJSON    gzip of the JSON array of every
//	                                  station in the API's Station shape
//	              FileStationsNDJSON  gzip of the same, one per line
//	            Stations are in record order. Their URLs are built on the
//	            base URL named in the manifest; a server with another base
//	            URL rewrites them (see package server).
//
// Bitmaps are roaring bitmaps in their portable serialisation
// (roaring.Bitmap.WriteTo). The writer run-encodes a list only when its
// runs are long and its run containers stay within MaxRunContainerBytes;
// readers accept any encoding. Readers map them with FromBuffer straight out of
// the bbolt page, so a bitmap read that way is only valid inside the read
// transaction that produced it.
//
// Prefix postings. A query word matches every token that starts with it. To
// keep that bounded, the writer stores a prefix bitmap for prefix p exactly
// when more than PrefixFanout distinct tokens start with p (p itself
// included). A reader looking up word w therefore either finds a ready union
// in the *_prefix bucket, or knows that at most PrefixFanout tokens in the
// *_tokens bucket start with w and unions those with a cursor scan. Prefixes
// are cut at rune boundaries.
//
// # Version history
//
//	1  one stations key per record (RecordKey(n) -> record), no files bucket.
//	2  records in blocks of RecordsPerBlock under BlockKey; files bucket with
//	   the precomputed data dumps. Record codec unchanged.
//	3  files stored in chunks of at most FileChunkSize under FileChunkKey,
//	   so that neither writing nor checking a file holds it whole in memory.
//	4  record codec v2: the stream's codec (Record.Codec) after StreamURL.
//	5  record codec v3: coordinates (Record.Geo) after the lists; buckets
//	   codecs, bitrates, geo and dictionary for the codec, bitrate and
//	   distance filters and the "did you mean" suggestions.
//	6  meta "checksums": a CRC-32C of every bucket, verified at open, so
//	   that a server refuses a damaged file without decoding all of it.
//	7  station_json: every station's API JSON, encoded at index time with
//	   BaseURLMark where the base URL goes, in blocks like the records, so
//	   that an API answer copies its stations instead of decoding records
//	   and encoding them per request. Made from the encoding the data
//	   dumps already did; the dumps are unchanged.
//	8  schemes: the stations of each stream address scheme (http, https),
//	   for the https filter.
//	9  dictionary KeyWordReach: a suggestion's total without a union of
//	   lists when a close word alone is the whole search; facet_memo: the
//	   facets of the broadest searches, counted by the indexer instead of
//	   by every server at start-up.
//	10 genres keyed by GenreKey instead of FacetKey, so that the spellings
//	   of one genre ("hip hop", "hip-hop", "hiphop") share a key; a tag of
//	   punctuation only has none. genre_labels: each genre's commonest
//	   spelling. groups and group_of: the entries that are one stream or
//	   one station (groups.go); meta counts groups and grouped_stations.
//	11 listed_groups: the groups of every value of the directory, counted
//	   by the indexer, so that a directory index shows how many stations
//	   each value's entries stand for without a pass over every value's
//	   entries per page.
//	12 upstream_json, upstream_flags, upstream_urls, upstream_countries and
//	   name_grams, with meta "compat": each station's upstream record and
//	   the lists of the Radio Browser API under /json/ (`index -compat`).
//	13 upstream_orders: the records in every order of the Radio Browser API;
//	   listed_groups also counts the keys of lang_codes and codecs, so that
//	   every facet of a distinct search of every station is read.
//	14 word_groups: the groups among the stations a broad word finds
//	   (word_groups.go), so that a distinct search of one word reads its
//	   total and walks only to its page.
//	15 record codec v4: a byte of the source's flags (Record.Flags; the
//	   first is its last check) after the coordinates; checks: the
//	   stations by that check's result (keys "true" and "false"), for the
//	   working filter and facet.
//	16 search_orders: the records in the search's popular order (the
//	   upstream's votes, then clicks) and bitrate order (order.go), so that
//	   a search sorted by either walks to its page as the name order does.
//	17 facet_memo entries hold the set's facets counted in groups too (every
//	   facet a search can count: facetmemo.go's MemoEntry), so that a distinct
//	   search of a broad set, the search page's default, reads its facets.
//	18 nearby: every station's nearest stations (nearby.go), found by the
//	   indexer, so that a station page reads them instead of searching
//	   around the station.
//	19 facet_memo also holds the unions of a query word's tokens where the
//	   word has no list of its own in all_prefix (MemoUnionKey), so that a
//	   broad word such as mp3 or russi reads its facets as a list does.
//
// Opening a file whose version differs from Version fails with ErrVersion,
// naming both versions.
//
// File map:
//   - format.go: this comment, the file format and its version history;
//     the magic and version, the bucket names, the meta document, the
//     errors a reader returns, facet and record keys
//   - sections.go: Sections, the optional parts of a file (the Radio
//     Browser API's buckets), and the buckets each brings
//   - record.go: Record, the cleaned station, and its codec; the UUID
//   - block.go: the block layout: RecordsPerBlock records under one key,
//     behind an offset table
//   - order.go: NameOrder, the order record numbers are assigned in, and
//     its byte key for the indexer's external sort; search_orders, the
//     search's stored orders, and their keys
//   - checksum.go: the bucket sums of meta "checksums": CRC-32C streamed
//     over a bucket's pairs, in runs that join, and their document
//   - filters.go: the keys of the filter buckets (codecs, schemes,
//     bitrates) and of the dictionary (the FST, each word's reach)
//   - genre.go: GenreKey, the key that the spellings of one genre share
//   - geo.go: positions in microdegrees, the geo bucket's cells of one
//     degree and their packed points, great-circle distance
//   - grams.go: the name grams of name_grams, for substring matches of
//     names
//   - groups.go: groups and group_of, the address key that groups
//     entries, listed_groups and the GroupCounter writer and checker share
//   - word_groups.go: word_groups, the groups among a broad word's
//     stations
//   - facetmemo.go: facet_memo: the lists and pairs memoised, their keys
//     and the encoding of their counts
//   - files.go: the chunk keys of the files bucket
//   - stationjson.go: station_json and BaseURLMark, the base URL's stand-in
//     in stored JSON
//   - dimensions.go: the buckets of the dimension table (package dim),
//     which it declares here, and the lists of buckets they join
//   - upstream_orders.go: upstream_orders, the Radio Browser API's orders
//     stored as permutations of record numbers, and their sort keys
//   - runs.go: when a posting list's run containers are worth keeping
//   - nearby.go: nearby, each station's nearest stations
package format

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"stationdex/internal/fold"
)

// Magic identifies a stationdex index among other bbolt files.
const Magic = "stationdex-index"

// Version is the file format version this build reads and writes.
const Version = 19

// SchemaVersion is the version label of the JSON response schema served from
// an index of this format. It is stored in the meta document so that the
// label served always matches the data it describes.
const SchemaVersion = "1.0"

// PrefixFanout bounds the number of token bitmaps a reader unions for one
// query word; see the package comment.
const PrefixFanout = 8

// Bucket names. Both sides use these and nothing else.
var (
	BucketMeta         = []byte("meta")
	BucketStations     = []byte("stations")
	BucketStationJSON  = []byte("station_json")
	BucketIDs          = []byte("ids")
	BucketNames        = []byte("names")
	BucketNameTokens   = []byte("name_tokens")
	BucketNamePrefix   = []byte("name_prefix")
	BucketAllTokens    = []byte("all_tokens")
	BucketAllPrefix    = []byte("all_prefix")
	BucketCountries    = []byte("countries")
	BucketLangLabels   = []byte("lang_labels")
	BucketLangCodes    = []byte("lang_codes")
	BucketGenres       = []byte("genres")
	BucketGenreLabels  = []byte("genre_labels")
	BucketLocations    = []byte("locations")
	BucketFiles        = []byte("files")
	BucketCodecs       = []byte("codecs")
	BucketSchemes      = []byte("schemes")
	BucketChecks       = []byte("checks")
	BucketBitrates     = []byte("bitrates")
	BucketGeo          = []byte("geo")
	BucketDictionary   = []byte("dictionary")
	BucketGroups       = []byte("groups")
	BucketGroupOf      = []byte("group_of")
	BucketListedGroups = []byte("listed_groups")
	BucketRBAPIJSON    = []byte("upstream_json")
	BucketRBAPIFlags   = []byte("upstream_flags")
	BucketRBAPIURLs    = []byte("upstream_urls")
	// BucketRBAPICountries keys the source's country labels.
	BucketRBAPICountries = []byte("upstream_countries")
	BucketNameGrams      = []byte("name_grams")
	// BucketFacetMemo is declared in facetmemo.go with what it holds.
)

// AllBuckets lists every bucket a valid index must contain, in the order
// `stationdex check` reports them: the format's own, with the buckets of
// the dimension table after all_prefix (DeclareDimensionBuckets).
var AllBuckets = [][]byte{
	BucketMeta, BucketStations, BucketStationJSON, BucketIDs, BucketNames,
	BucketNameTokens, BucketNamePrefix, BucketAllTokens, BucketAllPrefix,
	BucketBitrates, BucketGeo, BucketNearby, BucketDictionary,
	BucketFacetMemo, BucketGroups, BucketGroupOf, BucketListedGroups, BucketWordGroups, BucketSearchOrders, BucketFiles,
}

// RBAPIBuckets are the buckets of the Radio Browser API under /json/ (the
// section SectionRBAPI), which an index has exactly when its meta document
// declares it: all of them or none.
var RBAPIBuckets = [][]byte{
	BucketRBAPIJSON, BucketRBAPIFlags, BucketRBAPIURLs, BucketRBAPICountries, BucketNameGrams,
	BucketRBAPIOrders,
}

// PostingBuckets are the buckets whose every value is a serialised bitmap:
// the format's own, with the dimension table's filings after all_prefix
// (DeclareDimensionBuckets).
var PostingBuckets = [][]byte{
	BucketNames, BucketNameTokens, BucketNamePrefix, BucketAllTokens, BucketAllPrefix,
	BucketBitrates,
}

// RBAPIPostingBuckets are the posting buckets among RBAPIBuckets.
var RBAPIPostingBuckets = [][]byte{
	BucketRBAPIFlags, BucketRBAPIURLs, BucketRBAPICountries, BucketNameGrams,
}

// Keys of BucketRBAPIFlags: the snapshot record's flags that no
// dimension files (a dimension's flag is in Record.Flags and its own
// bucket).
const (
	RBAPIFlagExtendedInfo = "has_extended_info"
	RBAPIFlagGeo          = "has_geo_info"
)

// RBAPIURLKey is the key of BucketRBAPIURLs for a station's url as
// the source has it: the first 2 bytes of its SHA-256. So there are at
// most 65,536 keys, whatever the number of stations (a key per station
// made the indexer's posting buffers grow with the input), and a lookup
// compares the urls of a few stations: one or two at 50k stations, about
// 80 at 5M.
func RBAPIURLKey(url string) []byte {
	sum := sha256.Sum256([]byte(url))
	return sum[:2]
}

// Names of the files in BucketFiles, in ascending order.
const (
	FileManifest       = "manifest.json"
	FileStationsJSON   = "stations.json.gz"
	FileStationsNDJSON = "stations.ndjson.gz"
)

// FilesManifest describes the files of BucketFiles.
type FilesManifest struct {
	// BaseURL is the public base URL (no trailing slash) that the
	// stations' URLs in the dumps are built on.
	BaseURL  string     `json:"base_url"`
	Stations int        `json:"stations"` // records in each dump
	Files    []FileInfo `json:"files"`
}

// FileInfo describes one stored file. Sizes and digests are given for the
// document itself (what a client has after decompressing) and for the
// stored gzip stream.
type FileInfo struct {
	Key        string `json:"key"`        // file name in BucketFiles
	Name       string `json:"name"`       // the document's name: "stations.json"
	MediaType  string `json:"media_type"` // of the document
	Size       int64  `json:"size"`
	SHA256     string `json:"sha256"` // hex
	GzipSize   int64  `json:"gzip_size"`
	GzipSHA256 string `json:"gzip_sha256"`
}

// File returns the entry of m whose document is name, if any.
func (m *FilesManifest) File(name string) (FileInfo, bool) {
	for _, f := range m.Files {
		if f.Name == name {
			return f, true
		}
	}
	return FileInfo{}, false
}

// Keys inside BucketMeta.
var (
	KeyFormat  = []byte("format")
	KeyVersion = []byte("version")
	KeyMeta    = []byte("meta")
)

// DemoSource is the Source of the embedded demo snapshot (indexer/demo). It
// lives here, beside Meta, so that a server can tell the demo from a real
// snapshot without linking the indexer that builds it.
const DemoSource = "stationdex demo snapshot (fictional stations in Radio Browser format)"

// Meta is the snapshot description stored under KeyMeta.
type Meta struct {
	SchemaVersion string    `json:"schema_version"`
	SnapshotAt    time.Time `json:"snapshot_at"`
	Source        string    `json:"source"`
	Stations      int       `json:"stations"`
	Tokens        int       `json:"tokens"`    // distinct keys in all_tokens
	Countries     int       `json:"countries"` // distinct keys in countries
	Languages     int       `json:"languages"` // distinct keys in lang_labels
	Genres        int       `json:"genres"`    // distinct keys in genres (genre keys)
	// Groups counts the groups of more than one entry (see groups.go),
	// GroupedStations the entries in them.
	Groups          int     `json:"groups"`
	GroupedStations int     `json:"grouped_stations"`
	Skipped         Skipped `json:"skipped"` // input records left out
	// BuiltBy names the program, its module version and the Go version.
	// There is deliberately no build time: the same input must give the
	// same file contents.
	BuiltBy string `json:"built_by"`
	// RBAPI: the file has the section the Radio Browser API reads
	// (SectionRBAPI, RBAPIBuckets), written by stationdex index -compat;
	// the document's key is "compat", its name when it was added. Left
	// out of the document when false, which is then the same as before.
	RBAPI bool `json:"compat,omitempty"`
}

// Skipped counts the input records the indexer left out, by reason.
type Skipped struct {
	InvalidUUID   int `json:"invalid_uuid"`
	EmptyName     int `json:"empty_name"`
	DuplicateUUID int `json:"duplicate_uuid"`
	Malformed     int `json:"malformed"` // not a JSON object, or wrong field types
}

// Total is the number of records skipped for any reason.
func (s Skipped) Total() int {
	return s.InvalidUUID + s.EmptyName + s.DuplicateUUID + s.Malformed
}

// Sentinel errors of the format. Callers branch on them with errors.Is.
var (
	// ErrNotIndex: the file is not a stationdex index (not bbolt, or a bbolt
	// file without the magic).
	ErrNotIndex = errors.New("not a stationdex index")
	// ErrVersion: the file is a stationdex index of another format version.
	ErrVersion = errors.New("unsupported index format version")
	// ErrCorrupt: the file claims to be an index but its contents are damaged.
	ErrCorrupt = errors.New("corrupt index")
)

// VersionError reports a format version mismatch, naming both versions.
type VersionError struct{ File, Supported int }

func (e *VersionError) Error() string {
	return fmt.Sprintf("index format version %d, this build reads version %d: rebuild the index with this build", e.File, e.Supported)
}

// Unwrap makes errors.Is(err, ErrVersion) hold.
func (e *VersionError) Unwrap() error { return ErrVersion }

// FacetKey is the lookup key of a facet value (language label, genre tag,
// location): surrounding space trimmed, inner white space collapsed, then
// folded. The indexer files values under it and the query engine looks
// filters up with it, so "Jazz", " jazz " and "JAZZ" are the same genre.
func FacetKey(label string) string {
	if isFacetKey(label) {
		return label // most labels: served pages build keys for every one
	}
	return fold.String(strings.Join(strings.Fields(label), " "))
}

// isFacetKey reports whether label is its own key: lower-case ASCII with
// single inner spaces, no other white space and none at either end.
func isFacetKey(label string) bool {
	if label == "" || label[0] == ' ' || label[len(label)-1] == ' ' {
		return label == ""
	}
	for i := 0; i < len(label); i++ {
		switch c := label[i]; {
		case c >= 0x80, 'A' <= c && c <= 'Z', c == '\t', c == '\n', c == '\v', c == '\f', c == '\r':
			return false
		case c == ' ' && label[i+1] == ' ':
			return false
		}
	}
	return true
}

// RecordKey encodes record number n as a stations-bucket key. Big-endian, so
// bbolt's bytewise key order is numeric order.
func RecordKey(n uint32) []byte {
	var k [4]byte
	binary.BigEndian.PutUint32(k[:], n)
	return k[:]
}

// ParseRecordKey decodes a key written by RecordKey.
func ParseRecordKey(k []byte) (uint32, error) {
	if len(k) != 4 {
		return 0, fmt.Errorf("%w: record key of %d bytes", ErrCorrupt, len(k))
	}
	return binary.BigEndian.Uint32(k), nil
}

// CheckIdentity checks the values of the meta bucket's format marker and
// version: what tells a stationdex index of this format from any other
// bbolt file.
func CheckIdentity(magic, version []byte) error {
	if string(magic) != Magic {
		return fmt.Errorf("%w: format marker %.40q", ErrNotIndex, magic)
	}
	v, err := strconv.Atoi(string(version))
	if err != nil {
		return fmt.Errorf("%w: format version %.20q", ErrCorrupt, version)
	}
	if v != Version {
		return &VersionError{File: v, Supported: Version}
	}
	return nil
}
