package dim

import (
	"bytes"
	"slices"
	"testing"

	"stationdex/internal/format"
)

// TestBucketListsFromRows: the format's lists of buckets hold the rows'
// buckets where the format had them before the rows declared them, so a
// file's buckets and what check reports are as they were.
func TestBucketListsFromRows(t *testing.T) {
	names := func(bs [][]byte) []string {
		var out []string
		for _, b := range bs {
			out = append(out, string(b))
		}
		return out
	}
	for _, c := range []struct {
		what      string
		got, want [][]byte
	}{
		{"AllBuckets", format.AllBuckets, [][]byte{
			format.BucketMeta, format.BucketStations, format.BucketStationJSON, format.BucketIDs, format.BucketNames,
			format.BucketNameTokens, format.BucketNamePrefix, format.BucketAllTokens, format.BucketAllPrefix,
			format.BucketCountries, format.BucketLangLabels, format.BucketLangCodes, format.BucketGenres, format.BucketGenreLabels, format.BucketLocations,
			format.BucketCodecs, format.BucketSchemes, format.BucketChecks, format.BucketBitrates, format.BucketGeo, format.BucketNearby, format.BucketDictionary,
			format.BucketFacetMemo, format.BucketGroups, format.BucketGroupOf, format.BucketListedGroups, format.BucketWordGroups,
			format.BucketSearchOrders, format.BucketFiles}},
		{"PostingBuckets", format.PostingBuckets, [][]byte{
			format.BucketNames, format.BucketNameTokens, format.BucketNamePrefix, format.BucketAllTokens, format.BucketAllPrefix,
			format.BucketCountries, format.BucketLangLabels, format.BucketLangCodes, format.BucketGenres, format.BucketLocations,
			format.BucketCodecs, format.BucketSchemes, format.BucketChecks, format.BucketBitrates}},
		{"GroupCountedBuckets", format.GroupCountedBuckets, [][]byte{
			format.BucketChecks, format.BucketCodecs, format.BucketCountries, format.BucketGenres,
			format.BucketLangCodes, format.BucketLangLabels, format.BucketLocations}},
	} {
		if !slices.Equal(names(c.got), names(c.want)) {
			t.Errorf("%s:\n got %v\nwant %v", c.what, names(c.got), names(c.want))
		}
	}
	if !slices.IsSortedFunc(format.GroupCountedBuckets, bytes.Compare) {
		t.Errorf("GroupCountedBuckets not in key order: %v", names(format.GroupCountedBuckets))
	}
}

// TestFlags: every flag row has a field of its own and a bit of its own
// that the record keeps, and files both values.
func TestFlags(t *testing.T) {
	fields, bits := map[string]bool{}, map[uint8]bool{}
	for _, d := range Flags() {
		f := Rows[d].Flag
		if fields[f.Field] || bits[f.Bit] || f.Bit >= format.MaxFlags {
			t.Errorf("%s: flag %+v repeats a field or bit, or is past format.MaxFlags", d.Name(), f)
		}
		fields[f.Field], bits[f.Bit] = true, true
		for _, set := range []bool{false, true} {
			var r format.Record
			if set {
				r.Flags = r.Flags.With(f.Bit)
			}
			got := Rows[d].Filings[0].Values(&r, nil)
			_, key := Rows[d].Key(nil, got[0])
			if want := map[bool]string{true: "true", false: "false"}[set]; len(got) != 1 || got[0] != want || string(key) != want {
				t.Errorf("%s, flag set %v: filed under %q, keyed %q", d.Name(), set, got, key)
			}
		}
		if _, key := Rows[d].Key(nil, "maybe"); len(key) != 0 {
			t.Errorf("%s: maybe keyed %q, want nothing", d.Name(), key)
		}
	}
	if len(Flags()) == 0 {
		t.Error("no row is read from a source flag")
	}
}
