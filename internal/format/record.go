package format

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"unsafe"
)

// UUID is a station id in its 16-byte binary form, the key of the ids bucket.
type UUID [16]byte

// ErrBadUUID is returned by ParseUUID for anything but a canonical UUID.
var ErrBadUUID = errors.New("not a canonical UUID")

// ParseUUID accepts exactly the 36-character 8-4-4-4-12 hex form, in either
// case. Other spellings (braces, urn:uuid:, no dashes) are rejected so that
// every station has one URL.
func ParseUUID(s string) (UUID, error) {
	var u UUID
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return u, ErrBadUUID
	}
	var compact [32]byte
	copy(compact[0:8], s[0:8])
	copy(compact[8:12], s[9:13])
	copy(compact[12:16], s[14:18])
	copy(compact[16:20], s[19:23])
	copy(compact[20:32], s[24:36])
	if _, err := hex.Decode(u[:], compact[:]); err != nil {
		return UUID{}, ErrBadUUID
	}
	return u, nil
}

// String is the canonical lower-case form.
func (u UUID) String() string {
	var b [36]byte
	return string(u.Append(b[:0]))
}

// Append appends the canonical form String returns to b: a page or answer
// naming many stations builds each address without an id string of its own.
func (u UUID) Append(b []byte) []byte {
	b = hex.AppendEncode(b, u[0:4])
	b = append(b, '-')
	b = hex.AppendEncode(b, u[4:6])
	b = append(b, '-')
	b = hex.AppendEncode(b, u[6:8])
	b = append(b, '-')
	b = hex.AppendEncode(b, u[8:10])
	b = append(b, '-')
	return hex.AppendEncode(b, u[10:16])
}

// Record is a cleaned station as stored in the index: the Radio Browser
// record after the indexer's clean-up, without any URL of our own (those
// depend on the server's base URL and are derived when serving).
type Record struct {
	ID            UUID
	Name          string
	CountryCode   string   // ISO 3166-1 alpha-2, upper case, or "" when unknown
	Country       string   // source label
	Location      string   // "" when absent
	Languages     []string // source labels, cleaned; never nil after decoding
	LanguageCodes []string // lower-case ISO 639 codes; never nil after decoding
	Genres        []string // source tags, cleaned; never nil after decoding
	BitrateKbps   uint32   // 0 means unknown
	OfficialURL   string   // http(s) homepage or ""
	StreamURL     string   // http(s) stream address or ""
	Codec         string   // the stream's audio codec (MP3, AAC, AAC+, OGG, FLAC, OPUS) or "" when unknown
	Geo           Geo      // coordinates, when known
	// Flags are the flags of the source record that a dimension reads
	// (each row of package dim with a source flag names its bit and the
	// field it is read from), so that a new one is not a codec change.
	Flags Flags
}

// Flags is a set of the source record's flags, one bit each.
type Flags uint8

// MaxFlags is the number of flags a record can keep.
const MaxFlags = 8

// Has reports whether the flag of bit is set.
func (f Flags) Has(bit uint8) bool { return bit < MaxFlags && f&(1<<bit) != 0 }

// With is f with the flag of bit set.
func (f Flags) With(bit uint8) Flags { return f | 1<<bit }

// Record codec v4: the 16 UUID bytes, a uvarint bitrate, then the strings
// Name, CountryCode, Country, Location, OfficialURL, StreamURL, Codec, then the lists
// Languages, LanguageCodes, Genres, then the coordinates: a byte 0 (none)
// or 1 followed by latitude and longitude in microdegrees as zigzag
// varints, then a byte of Flags. A string is a uvarint byte length and
// the bytes; a list is a uvarint count and that many strings.

// maxListLen bounds a list count read from disk so that a corrupt count cannot
// make the decoder allocate gigabytes before noticing.
const maxListLen = 1 << 16

// AppendRecord appends the encoding of r to dst.
func AppendRecord(dst []byte, r *Record) []byte {
	dst = append(dst, r.ID[:]...)
	dst = binary.AppendUvarint(dst, uint64(r.BitrateKbps))
	for _, s := range [...]string{r.Name, r.CountryCode, r.Country, r.Location, r.OfficialURL, r.StreamURL, r.Codec} {
		dst = appendString(dst, s)
	}
	for _, l := range [...][]string{r.Languages, r.LanguageCodes, r.Genres} {
		dst = binary.AppendUvarint(dst, uint64(len(l)))
		for _, s := range l {
			dst = appendString(dst, s)
		}
	}
	if !r.Geo.Known {
		dst = append(dst, 0)
	} else {
		dst = append(dst, 1)
		dst = binary.AppendVarint(dst, int64(r.Geo.Lat))
		dst = binary.AppendVarint(dst, int64(r.Geo.Lon))
	}
	return append(dst, byte(r.Flags))
}

func appendString(dst []byte, s string) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(s)))
	return append(dst, s...)
}

// DecodeRecord decodes an encoded record into r. The result owns its memory:
// buf is copied once and all strings of r share that copy, so buf may be a
// bbolt value that dies with its transaction. Malformed input returns an
// error wrapping ErrCorrupt, never a panic.
func DecodeRecord(buf []byte, r *Record) error {
	owned := make([]byte, len(buf))
	copy(owned, buf)
	_, err := DecodeOwned(owned, r, make([]string, recordSpare))
	return err
}

// recordSpare backs the lists of one record decoded alone (a station
// page's): its languages, their codes and its genres fit it in all but a
// few records, which take a batch more. A batch of spareBatch for each was
// a kilobyte per page, mostly unused.
const recordSpare = 16

// RecordName is the name of an encoded record, without decoding the
// rest: a string over buf, valid as long as buf.
func RecordName(buf []byte) (string, error) {
	if len(buf) < len(UUID{}) {
		return "", fmt.Errorf("%w: record of %d bytes", ErrCorrupt, len(buf))
	}
	d := decoder{buf: buf[len(UUID{}):]}
	d.uvarint() // the bitrate
	name := d.string()
	return name, d.err
}

// DecodeOwned decodes a record from owned, memory that the caller hands over
// for good: the strings of r point into it, so it must never be written
// again. The lists of r are carved out of spare, whose remainder is returned
// for the next record; a page of records thus costs one allocation for all
// their bytes and about one for all their lists.
func DecodeOwned(owned []byte, r *Record, spare []string) ([]string, error) {
	if len(owned) < len(r.ID) {
		return spare, fmt.Errorf("%w: record of %d bytes", ErrCorrupt, len(owned))
	}
	d := decoder{buf: owned[len(r.ID):], spare: spare}
	copy(r.ID[:], owned)
	bitrate := d.uvarint()
	if bitrate > 1<<32-1 {
		d.fail("bitrate out of range")
	}
	r.BitrateKbps = uint32(bitrate)
	for _, s := range [...]*string{&r.Name, &r.CountryCode, &r.Country, &r.Location, &r.OfficialURL, &r.StreamURL, &r.Codec} {
		*s = d.string()
	}
	for _, l := range [...]*[]string{&r.Languages, &r.LanguageCodes, &r.Genres} {
		*l = d.list()
	}
	r.Geo = d.geo()
	r.Flags = d.flags()
	if d.err == nil && len(d.buf) != 0 {
		d.fail("trailing bytes")
	}
	return d.spare, d.err
}

// decoder reads from an owned buffer; after the first error every read
// returns a zero value and the error sticks.
type decoder struct {
	buf   []byte
	spare []string // backing for lists
	err   error
}

func (d *decoder) fail(what string) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: record: %s", ErrCorrupt, what)
	}
	d.buf = nil
}

func (d *decoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.buf)
	if n <= 0 {
		d.fail("bad varint")
		return 0
	}
	d.buf = d.buf[n:]
	return v
}

func (d *decoder) varint() int64 {
	v, n := binary.Varint(d.buf)
	if n <= 0 {
		d.fail("bad varint")
		return 0
	}
	d.buf = d.buf[n:]
	return v
}

func (d *decoder) geo() Geo {
	if len(d.buf) == 0 {
		d.fail("coordinates missing")
		return Geo{}
	}
	known := d.buf[0]
	d.buf = d.buf[1:]
	if known == 0 {
		return Geo{}
	}
	lat, lon := d.varint(), d.varint()
	g := Geo{Known: true, Lat: int32(lat), Lon: int32(lon)}
	if known != 1 || int64(g.Lat) != lat || int64(g.Lon) != lon || !g.valid() {
		d.fail("coordinates out of range")
		return Geo{}
	}
	return g
}

// flags reads the byte of Flags.
func (d *decoder) flags() Flags {
	if d.err != nil {
		return 0
	}
	if len(d.buf) == 0 {
		d.fail("flags missing")
		return 0
	}
	f := Flags(d.buf[0])
	d.buf = d.buf[1:]
	return f
}

func (d *decoder) string() string {
	n := d.uvarint()
	if n > uint64(len(d.buf)) {
		d.fail("string past end")
		return ""
	}
	if n == 0 {
		return ""
	}
	// The bytes belong to the decoder's private copy and are never written
	// again, so a string header over them is safe and saves one allocation
	// per field.
	s := unsafe.String(&d.buf[0], int(n))
	d.buf = d.buf[n:]
	return s
}

func (d *decoder) list() []string {
	n := d.uvarint()
	if n > maxListLen || n > uint64(len(d.buf)) {
		d.fail("list count out of range")
		return []string{}
	}
	l := d.carve(int(n))
	for i := range l {
		l[i] = d.string()
	}
	return l
}

// spareBatch is the size of a fresh list backing: enough for the lists of
// a few typical records.
const spareBatch = 64

// carve takes n strings from the spare backing, replacing the backing when
// it runs short (lists already handed out keep the old one alive).
func (d *decoder) carve(n int) []string {
	if n == 0 {
		return []string{}
	}
	if len(d.spare) < n {
		d.spare = make([]string, max(n, spareBatch))
	}
	l := d.spare[:n:n]
	d.spare = d.spare[n:]
	return l
}
