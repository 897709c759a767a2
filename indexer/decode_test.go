package indexer

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"testing"
)

// fastDecodeSeeds are records at the edges of what the fast path takes:
// each must either be declined or decoded as Unmarshal decodes it.
var fastDecodeSeeds = []string{
	`{}`,
	`{"has_extended_info":true,"has_extended_info":null}`,
	`{"has_extended_info":"true"}`,
	`{"has_extended_info":1}`,
	`{"has_extended_info":falsey}`,
	`{"votes":1.5,"clickcount":-3,"favicon":"\u003c"}`,
	`{"name":"a","name":null}`,
	`{"name":null,"name":"b"}`,
	`{"Name":"upper case key"}`,
	`{"ſtationuuid":"folded key"}`,
	`{"n\u0061me":"escaped key"}`,
	`{"name":"tab\there \u00e9 \ud800 \/"}`,
	"{\"name\":\"invalid \xff utf-8\"}",
	"{\"name\":\"control \x01\"}",
	`{"name":1}`,
	`{"bitrate":128}`,
	`{"bitrate":-0}`,
	`{"bitrate":128.0}`,
	`{"bitrate":1e2}`,
	`{"bitrate":99999999999999999999}`,
	`{"bitrate":"128"}`,
	`{"bitrate":null}`,
	`{"geo_lat":52.5,"geo_long":-1e-3}`,
	`{"geo_lat":1e400,"geo_long":"4.3"}`,
	`{"geo_lat":1,"geo_lat":null,"geo_long":{"a":[1,2]}}`,
	`{"geo_lat":01}`,
	`{"geo_lat":-}`,
	`{"extra":{"a":[true,false,null,"x\"y",-1.5E+3,{}]},"name":"n"}`,
	`{"extra":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}`,
	`{"extra":tru}`,
	`{"extra":"\x"}`,
	`{"extra":"\u12G4"}`,
	`{"name":"a",}`,
	`{"name":"a"} x`,
	`{"name":"a"}{}`,
	`{"name" : "a" , "tags" : "b" }`,
}

// FuzzFastDecode holds the fast path to its promise: whatever it accepts,
// json.Unmarshal accepts too, with the same result.
func FuzzFastDecode(f *testing.F) {
	for _, s := range fastDecodeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		checkFastDecode(t, raw)
	})
}

func checkFastDecode(t *testing.T, raw []byte) {
	t.Helper()
	var fast, slow rawInput
	if !decodeStationFast(raw, &fast, true) {
		return
	}
	if err := unmarshalStation(raw, &slow, true); err != nil {
		t.Fatalf("fast path accepted %q, Unmarshal: %v", raw, err)
	}
	if fast != slow {
		t.Fatalf("%q:\nfast %+v\nslow %+v", raw, fast, slow)
	}
}

func TestFastDecodeSeeds(t *testing.T) {
	for _, s := range fastDecodeSeeds {
		checkFastDecode(t, []byte(s))
	}
	// The common shapes must take the fast path, or it gains nothing.
	for _, s := range []string{`{"name":"a","bitrate":128,"geo_lat":null,"votes":7,"has_extended_info":true,"extra":[1,{"x":true}]}`, `{"name":"\tescaped"}`} {
		var st rawInput
		if !decodeStationFast([]byte(s), &st, true) {
			t.Errorf("fast path declined %s", s)
		}
	}
}

// TestFastDecodeRealSnapshot compares the fast path with Unmarshal on
// every record of the real snapshot and of the fixture.
func TestFastDecodeRealSnapshot(t *testing.T) {
	in := openRealSnapshot(t)
	declined := 0
	err := readInput(context.Background(), in, func(_ position, raw []byte) error {
		var st rawInput
		if !decodeStationFast(raw, &st, true) {
			declined++
		}
		checkFastDecode(t, raw)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("fast path declined %d records", declined)
	f, err := os.Open(fixture)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		checkFastDecode(t, sc.Bytes())
	}
}

// BenchmarkDecodeStation decodes the first 20,000 records of the real
// snapshot with the fast path and with json.Unmarshal: the reason the fast
// path exists (see decode.go).
func BenchmarkDecodeStation(b *testing.B) {
	in := openRealSnapshot(b)
	var records [][]byte
	err := readInput(context.Background(), in, func(_ position, raw []byte) error {
		if len(records) < 20000 {
			records = append(records, append([]byte(nil), raw...))
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("fast", func(b *testing.B) {
		for b.Loop() {
			for _, raw := range records {
				var st rawInput
				if !decodeStationFast(raw, &st, true) {
					_ = unmarshalStation(raw, &st, true) // as decodeStation does
				}
			}
		}
	})
	b.Run("unmarshal", func(b *testing.B) {
		for b.Loop() {
			for _, raw := range records {
				var st rawInput
				_ = json.Unmarshal(raw, &st)
			}
		}
	})
}
