package server

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestEnvelopesAppendAsEncodingJSON: the envelopes' appenders write exactly
// what encoding/json writes for them, for searches over the hostile demo
// stations with and without filters, echoes and next links.
func TestEnvelopesAppendAsEncodingJSON(t *testing.T) {
	s := newDemoServer(t, nil)
	ix, _ := demoIndex()
	meta := ix.Meta()
	for _, raw := range []string{"", "q=radio&limit=3", "q=%3Cscript%3E", "country=us&limit=50", "genre=jazz&language=en", "q=zzzz"} {
		p, err := parseSearchParams(raw)
		if err != nil {
			t.Fatal(err)
		}
		res, err := ix.Search(p.query())
		if err != nil {
			t.Fatal(err)
		}
		env := s.searchEnvelope(meta, p, res)
		requireAppendsAsJSON(t, &env)
		for _, st := range env.Results {
			requireAppendsAsJSON(t, &stationEnvelope{SchemaVersion: "1.0", SnapshotAt: env.SnapshotAt, Source: meta.Source, Station: st})
		}
	}
}

func requireAppendsAsJSON(t *testing.T, v jsonAppender) {
	t.Helper()
	want, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if got := v.AppendJSON(nil); !bytes.Equal(got, want) {
		t.Fatalf("AppendJSON:\n%s\nencoding/json:\n%s", got, want)
	}
}
