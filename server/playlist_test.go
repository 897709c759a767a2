package server

import (
	"net/http"
	"strings"
	"testing"

	"stationdex/internal/format"
	"stationdex/server/core"
	"stationdex/server/pages"
)

// httpStationID is a demo station whose stream is plain http://.
const httpStationID = "f832dc06-38fc-4be1-a13f-696cd65761a0"

// TestPlaylists: each station's M3U and PLS name its stream under its
// name, with their media types and a file name, for GET and HEAD.
func TestPlaylists(t *testing.T) {
	s := newDemoServer(t, nil)
	base := "/stations/" + demoStationID + "/"
	for _, tc := range []struct{ file, mediaType, body string }{
		{"listen.m3u", "audio/x-mpegurl", "#EXTM3U\n#EXTINF:-1,Rádio Comercial Demo\nhttps://stream.example.pt/comercial.mp3\n"},
		{"listen.pls", "audio/x-scpls", "[playlist]\nNumberOfEntries=1\nFile1=https://stream.example.pt/comercial.mp3\n" +
			"Title1=Rádio Comercial Demo\nLength1=-1\nVersion=2\n"},
	} {
		for _, method := range []string{http.MethodGet, http.MethodHead} {
			rec := serve(s, method, base+tc.file)
			wantBody := tc.body
			if method == http.MethodHead {
				wantBody = ""
			}
			disposition := `attachment; filename="station-` + demoStationID + "." + strings.TrimPrefix(tc.file, "listen.") + `"`
			if rec.Code != 200 || rec.Header().Get("Content-Type") != tc.mediaType ||
				rec.Header().Get("Content-Disposition") != disposition || rec.Body.String() != wantBody {
				t.Errorf("%s %s: %d %q %q\n%q", method, tc.file, rec.Code, rec.Header().Get("Content-Type"),
					rec.Header().Get("Content-Disposition"), rec.Body.String())
			}
		}
	}
}

// TestPlaylistNotFound: a playlist of no station, of a malformed id or of
// a station without a stream is the not-found page, never a download.
func TestPlaylistNotFound(t *testing.T) {
	s := newDemoServer(t, nil)
	for _, target := range []string{
		"/stations/00000000-0000-0000-0000-000000000000/listen.m3u",
		"/stations/not-an-id/listen.pls",
		"/stations/" + demoStationID + "/listen.mp3",
	} {
		rec := serve(s, http.MethodGet, target)
		if rec.Code != http.StatusNotFound || rec.Header().Get("Content-Disposition") != "" || rec.Header().Get("Content-Type") != core.HTMLType {
			t.Errorf("%s: %d %q %q; want the not-found page", target, rec.Code, rec.Header().Get("Content-Type"), rec.Header().Get("Content-Disposition"))
		}
	}
	if _, err := pages.RenderPlaylist(pages.PlaylistM3U, &format.Record{Name: "x", StreamURL: "rtsp://a/b"}); err != pages.ErrNoStream {
		t.Errorf("a station without an http(s) stream: %v", err)
	}
}

// TestPlaylistNoLineInjection: a station's name or address can add no
// line to a playlist, whatever line breaks it holds.
func TestPlaylistNoLineInjection(t *testing.T) {
	for _, name := range []string{"A\nhttp://evil.example/", "A\r\n#EXTINF:-1,B", "A\u2028File2=x", "A\u0085B", "A\x00\vB"} {
		rec := &format.Record{Name: name, StreamURL: "http://stream.example/a"}
		for _, f := range pages.PlaylistFormats {
			body, err := pages.RenderPlaylist(f, rec)
			lines := strings.Split(strings.TrimSuffix(body, "\n"), "\n")
			want := map[string]int{core.StationM3U: 3, core.StationPLS: 6}[f.Name]
			if err != nil || len(lines) != want || strings.ContainsAny(body, "\r\u2028\u0085\x00\v") {
				t.Errorf("%s of %q: %d lines, %v:\n%q", f.Name, name, len(lines), err, body)
			}
		}
	}
	for _, stream := range []string{"http://a.example/x\nFile2=http://evil/", "http://a.example/x y", "http://a.example/\rx"} {
		if _, err := pages.RenderPlaylist(pages.PlaylistPLS, &format.Record{Name: "A", StreamURL: stream}); err != pages.ErrNoStream {
			t.Errorf("stream %q accepted: %v", stream, err)
		}
	}
}

// TestPagesLinkPlaylists: the station and listening pages and their
// Markdown twins link both playlists; an http:// stream's listening page
// says a browser may block it on an HTTPS site, an https:// one does not.
func TestPagesLinkPlaylists(t *testing.T) {
	s := newDemoServer(t, nil)
	const warning = "may block it on a page served over HTTPS"
	for _, id := range []string{demoStationID, httpStationID} {
		for _, page := range []string{"/stations/" + id + "/", "/stations/" + id + "/listen/"} {
			for _, twin := range []string{"", core.MarkdownIndex} {
				body := serve(s, http.MethodGet, page+twin).Body.String()
				for _, file := range []string{core.StationM3U, core.StationPLS} {
					if !strings.Contains(body, testBase+"/stations/"+id+"/"+file) {
						t.Errorf("%s%s does not link %s", page, twin, file)
					}
				}
				if !strings.HasSuffix(page, "/listen/") {
					continue
				}
				if says := strings.Contains(body, warning); says != (id == httpStationID) {
					t.Errorf("%s%s: mixed-content warning %v", page, twin, says)
				}
			}
		}
	}
}
