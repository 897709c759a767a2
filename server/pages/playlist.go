package pages

import (
	"net/http"
	"strings"

	"github.com/julienschmidt/httprouter"

	"stationdex/internal/format"
	"stationdex/server/core"
)

// Playlist files of a station's stream, for players outside the browser:
// a page served over HTTPS cannot play an http:// stream (browsers block
// or upgrade mixed content), and 44% of the real snapshot's streams are
// http:// only. A desktop or phone player opening the playlist has no such
// rule. Both formats name the one stream with the station's name; the name
// passes through cleanText, which turns every line break and control
// character into a space, so no station can add a line to the file.

// playlistFormat is one playlist file type.
type playlistFormat struct {
	Name      string // the file name below the station's path (paths.go)
	mediaType string
	body      func(title, stream string) string
}

var (
	PlaylistM3U = playlistFormat{core.StationM3U, "audio/x-mpegurl", func(title, stream string) string {
		return "#EXTM3U\n#EXTINF:-1," + title + "\n" + stream + "\n"
	}}
	PlaylistPLS = playlistFormat{core.StationPLS, "audio/x-scpls", func(title, stream string) string {
		return "[playlist]\nNumberOfEntries=1\nFile1=" + stream + "\nTitle1=" + title + "\nLength1=-1\nVersion=2\n"
	}}
	PlaylistFormats = []playlistFormat{PlaylistM3U, PlaylistPLS}
)

// ErrNoStream answers a playlist of a station without a playable address.
var ErrNoStream = &core.Error{Code: core.CodeNotFound, Message: "no playable http(s) stream address is listed for this station"}

// playlist serves a station's playlist file through the one response
// writer. Its file name is the station id, known before the lookup; an
// unknown station or one without a stream gets the not-found page.
func (s *Server) playlist(f playlistFormat) httprouter.Handle {
	return func(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
		segment := ps.ByName("id")
		id, err := format.ParseUUID(segment)
		if err != nil {
			s.servePage(w, r, failedPage(core.ErrNoStation), "", false)
			return
		}
		w.Header().Set("Content-Disposition", `attachment; filename="station-`+id.String()+"."+strings.TrimPrefix(f.Name, "listen.")+`"`)
		s.ServeResource(w, r, "playlist "+r.URL.EscapedPath(), func(ix core.Index, dst []byte) (core.EntityHead, []byte, error) {
			body, err := playlistBody(ix, id, f)
			return core.EntityHead{ContentType: f.mediaType}, append(dst, body...), err
		}, func(w http.ResponseWriter, r *http.Request, err error) {
			w.Header().Del("Content-Disposition")
			if err == core.ErrNoIndex {
				s.failPage(w, r, err, wantsMarkdown(r))
				return
			}
			s.servePage(w, r, failedPage(err), "", false)
		})
	}
}

func playlistBody(ix core.Index, id format.UUID, f playlistFormat) (string, error) {
	rec, err := ix.Station(id)
	if err != nil {
		return "", err
	}
	return RenderPlaylist(f, &rec)
}

// RenderPlaylist writes a station's playlist: one line per field, none of
// which can hold a line break (cleanText; isWebURL refuses any space or
// control character in the address).
func RenderPlaylist(f playlistFormat, rec *format.Record) (string, error) {
	if !IsWebURL(rec.StreamURL) {
		return "", ErrNoStream
	}
	return f.body(CleanText(rec.Name), rec.StreamURL), nil
}

// failedPage is a page builder that fails with err: the error page.
func failedPage(err error) PageFunc {
	return func(*http.Request, core.Index, string) (*Page, error) { return nil, err }
}

// addPlaylistLinks appends the links to a station's playlists, at the
// addresses m3u and pls, and to its stream, a playable one.
func (p *pageLinks) addPlaylistLinks(m3u, pls, stream string) {
	*p = append(*p,
		internalLink("Playlist for a desktop or phone player (M3U)", m3u),
		internalLink("Playlist (PLS)", pls),
		externalLink("Direct stream address", stream),
	)
}

// mixedContentNotice is said of an http:// stream: a browser may refuse it
// on a page served over HTTPS.
func mixedContentNotice(stream string) string {
	if !strings.HasPrefix(strings.ToLower(stream), "http://") {
		return ""
	}
	return "This stream is served over plain http://. A browser may block it on a page served over HTTPS, " +
		"so this player may stay silent: open a playlist below in a desktop or phone player, " +
		"or the direct stream address, instead."
}
