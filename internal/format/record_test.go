package format

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"stationdex/internal/fold"
)

func sampleRecord() Record {
	id, _ := ParseUUID("db93a00f-9191-46ab-9ec9-000000000001")
	return Record{
		ID: id, Name: "Ö3 Hitradio", CountryCode: "AT", Country: "Austria", Location: "Wien",
		Languages: []string{"german", "deutsch"}, LanguageCodes: []string{"de"},
		Genres: []string{"pop", "news"}, BitrateKbps: 192,
		OfficialURL: "https://oe3.example/", StreamURL: "https://live.example/oe3",
	}
}

func TestRecordRoundTrip(t *testing.T) {
	for _, r := range []Record{
		sampleRecord(),
		{Languages: []string{}, LanguageCodes: []string{}, Genres: []string{}},
		{Name: strings.Repeat("x", 1000), BitrateKbps: 1<<32 - 1, Languages: []string{""}, LanguageCodes: []string{}, Genres: []string{"a"}},
	} {
		var back Record
		if err := DecodeRecord(AppendRecord(nil, &r), &back); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(back, r) {
			t.Errorf("round trip:\n got %+v\nwant %+v", back, r)
		}
	}
}

// TestDecodeRecordOwnsMemory: the decoded record must survive the buffer
// being overwritten, as a bbolt value is when its transaction ends.
func TestDecodeRecordOwnsMemory(t *testing.T) {
	r := sampleRecord()
	buf := AppendRecord(nil, &r)
	var back Record
	if err := DecodeRecord(buf, &back); err != nil {
		t.Fatal(err)
	}
	for i := range buf {
		buf[i] = 0xff
	}
	if !reflect.DeepEqual(back, r) {
		t.Errorf("decoded record changed with its buffer: %+v", back)
	}
}

func TestDecodeRecordCorrupt(t *testing.T) {
	r := sampleRecord()
	good := AppendRecord(nil, &r)
	for _, buf := range [][]byte{nil, good[:10], good[:len(good)-1], append(good[:len(good):len(good)], 0)} {
		var back Record
		if err := DecodeRecord(buf, &back); !errors.Is(err, ErrCorrupt) {
			t.Errorf("DecodeRecord(%d bytes) = %v, want ErrCorrupt", len(buf), err)
		}
	}
}

// FuzzDecodeRecord: arbitrary bytes never panic the decoder, errors wrap
// ErrCorrupt, and whatever it accepts survives an encode/decode round trip.
// (Re-encoding need not give the same bytes: the decoder accepts overlong
// varints.)
func FuzzDecodeRecord(f *testing.F) {
	r := sampleRecord()
	f.Add(AppendRecord(nil, &r))
	empty := Record{}
	f.Add(AppendRecord(nil, &empty))
	f.Add([]byte{})
	f.Add(make([]byte, 16))
	f.Add(append(make([]byte, 16), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01))
	f.Fuzz(func(t *testing.T, buf []byte) {
		var rec Record
		if err := DecodeRecord(buf, &rec); err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error %v does not wrap ErrCorrupt", err)
			}
			return
		}
		var back Record
		if err := DecodeRecord(AppendRecord(nil, &rec), &back); err != nil || !reflect.DeepEqual(back, rec) {
			t.Fatalf("round trip: %v", err)
		}
	})
}

// TestFacetKeyFastPathAgrees: labels taking the fast path get exactly the
// key the full folding gives.
func TestFacetKeyFastPathAgrees(t *testing.T) {
	for _, label := range []string{"", "jazz", "smooth jazz", "80s", "a b", " jazz", "jazz ", "a  b", "Jazz",
		"a\tb", "méxico", "pop/rock", "x", "  ", " ", "k-pop", "news & talk"} {
		want := fold.String(strings.Join(strings.Fields(label), " "))
		if got := FacetKey(label); got != want {
			t.Errorf("FacetKey(%q) = %q, want %q", label, got, want)
		}
	}
}

func FuzzFacetKey(f *testing.F) {
	for _, s := range []string{"jazz", "smooth  jazz", " Pop ", "méxico", "a\tb", "80's"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, label string) {
		if got, want := FacetKey(label), fold.String(strings.Join(strings.Fields(label), " ")); got != want {
			t.Fatalf("FacetKey(%q) = %q, full folding gives %q", label, got, want)
		}
	})
}

// TestUUIDText: String and Append give the canonical lower-case form,
// which ParseUUID reads back to the same id, whatever the case it was
// given in.
func TestUUIDText(t *testing.T) {
	for _, s := range []string{
		"db93a00f-9191-46ab-9ec9-000000000001",
		"00000000-0000-0000-0000-000000000000",
		"ffffffff-ffff-ffff-ffff-ffffffffffff",
		"0123ABCD-4567-89ef-AbCd-0123456789aB",
	} {
		id, err := ParseUUID(s)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		want := strings.ToLower(s)
		if got := id.String(); got != want {
			t.Errorf("String of %s = %s", s, got)
		}
		if got := string(id.Append([]byte("x/"))); got != "x/"+want {
			t.Errorf("Append of %s = %s", s, got)
		}
		if back, err := ParseUUID(id.String()); err != nil || back != id {
			t.Errorf("%s: read back as %v, %v", s, back, err)
		}
	}
}

// TestRecordFlagsByte: the flags are the record's last byte, the first
// flag's bit its value 1, as codec v4 wrote the source's last check, and
// every flag comes back.
func TestRecordFlagsByte(t *testing.T) {
	for _, f := range []Flags{0, Flags(0).With(0), Flags(0).With(3).With(7)} {
		r := Record{Name: "x", Languages: []string{}, LanguageCodes: []string{}, Genres: []string{}, Flags: f}
		enc := AppendRecord(nil, &r)
		if enc[len(enc)-1] != byte(f) {
			t.Errorf("flags %08b: last byte %08b", f, enc[len(enc)-1])
		}
		var back Record
		if err := DecodeRecord(enc, &back); err != nil || back.Flags != f {
			t.Errorf("flags %08b: decoded %08b, %v", f, back.Flags, err)
		}
		if err := DecodeRecord(enc[:len(enc)-1], &back); err == nil {
			t.Errorf("flags %08b: a record without its flags byte decoded", f)
		}
	}
	if !Flags(1).Has(0) || Flags(1).Has(1) || Flags(0xff).Has(MaxFlags) {
		t.Error("Has")
	}
}
