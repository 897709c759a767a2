package server

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"stationdex/indexer/demo"
	"stationdex/query"
)

// TestBrowserPlaysListeningPage opens a station's listening page in
// Debian's chromium, with a local test stream (a generated WAV tone)
// as the station's stream, starts its player and waits until the audio
// element's time advances: the page's player, its Content-Security-Policy
// and the stream address together let a browser play the stream.
func TestBrowserPlaysListeningPage(t *testing.T) {
	chromium, driver := browserBinaries(t)
	stream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.ServeContent(w, r, "tone.wav", time.Time{}, bytes.NewReader(toneWAV(20*time.Second)))
	}))
	defer stream.Close()
	ix := streamIndex(t, stream.URL+"/tone.wav")

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	site := httptest.NewUnstartedServer(serverAt(t, ix, base).Handler())
	site.Listener.Close()
	site.Listener = ln
	site.Start()
	defer site.Close()

	wd := startWebDriver(t, driver, chromium, browserOptions{javaScript: true, args: []string{"--autoplay-policy=no-user-gesture-required"}})
	defer wd.quit()
	wd.navigate(base + "/stations/" + streamStationID + "/listen/")
	var started bool
	wd.execute(`const a = document.querySelector("audio"); a.play(); return a.src !== "";`, &started)
	if !started {
		t.Fatal("the listening page has no audio element with a source")
	}
	var at float64
	deadline := time.Now().Add(30 * time.Second)
	for at < 1 && time.Now().Before(deadline) {
		time.Sleep(200 * time.Millisecond)
		wd.execute(`return document.querySelector("audio").currentTime;`, &at)
	}
	if at < 1 {
		var state map[string]any
		wd.execute(`const a = document.querySelector("audio"); return {error: a.error && a.error.message, ready: a.readyState, paused: a.paused};`, &state)
		t.Fatalf("the player's time stayed at %.2fs; audio element %v", at, state)
	}
}

// streamStationID is the station streamIndex adds.
const streamStationID = "00000000-0000-4000-8000-00000000a0d1"

// streamIndex is the demo snapshot plus one station whose stream is url.
func streamIndex(t *testing.T, url string) *query.Index {
	t.Helper()
	record, err := json.Marshal(map[string]any{
		"stationuuid": streamStationID, "name": "Test Tone", "url": url, "url_resolved": url,
		"countrycode": "PT", "codec": "WAV", "lastchangetime_iso8601": "2025-02-01T00:00:00Z",
	})
	if err != nil {
		t.Fatal(err)
	}
	return indexOf(t, demo.Source, append(append(append([]byte{}, demo.NDJSON...), record...), '\n'))
}

// toneWAV is d of a 440 Hz tone as 8 kHz mono 16-bit PCM in a WAV file.
func toneWAV(d time.Duration) []byte {
	const rate = 8000
	n := int(d.Seconds() * rate)
	var b bytes.Buffer
	le := binary.LittleEndian
	b.WriteString("RIFF")
	_ = binary.Write(&b, le, uint32(36+2*n))
	b.WriteString("WAVEfmt ")
	// fmt chunk: size 16, PCM, mono, rate, bytes per second, block size, bits.
	for _, v := range []any{uint32(16), uint16(1), uint16(1), uint32(rate), uint32(2 * rate), uint16(2), uint16(16)} {
		_ = binary.Write(&b, le, v)
	}
	b.WriteString("data")
	_ = binary.Write(&b, le, uint32(2*n))
	for i := range n {
		_ = binary.Write(&b, le, int16(8000*math.Sin(2*math.Pi*440*float64(i)/rate)))
	}
	return b.Bytes()
}
