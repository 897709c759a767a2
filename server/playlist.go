package server

import (
	"net/http"
	"strings"

	"github.com/julienschmidt/httprouter"

	"stationdex/internal/format"
	"stationdex/internal/stationjson"
	"stationdex/query"
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
	name      string // the file name below the station's path (paths.go)
	mediaType string
	body      func(title, stream string) string
}

var (
	playlistM3U = playlistFormat{stationM3U, "audio/x-mpegurl", func(title, stream string) string {
		return "#EXTM3U\n#EXTINF:-1," + title + "\n" + stream + "\n"
	}}
	playlistPLS = playlistFormat{stationPLS, "audio/x-scpls", func(title, stream string) string {
		return "[playlist]\nNumberOfEntries=1\nFile1=" + stream + "\nTitle1=" + title + "\nLength1=-1\nVersion=2\n"
	}}
	playlistFormats = []playlistFormat{playlistM3U, playlistPLS}
)

// errNoStream answers a playlist of a station without a playable address.
var errNoStream = &Error{CodeNotFound, "no playable http(s) stream address is listed for this station"}

// playlistFiles are the stations tree's playlist routes by shape.
func (s *Server) playlistFiles() map[string]httprouter.Handle {
	files := map[string]httprouter.Handle{}
	for _, f := range playlistFormats {
		files["/:id/"+f.name] = s.playlist(f)
	}
	return files
}

// playlistURL is the address of a station's playlist of format f.
func playlistURL(base string, id format.UUID, f playlistFormat) string {
	return stationjson.StationFileURL(base, id, f.name)
}

// playlist serves a station's playlist file through the one response
// writer. Its file name is the station id, known before the lookup; an
// unknown station or one without a stream gets the not-found page.
func (s *Server) playlist(f playlistFormat) httprouter.Handle {
	return func(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
		segment := ps.ByName("segments")
		id, err := format.ParseUUID(segment)
		if err != nil {
			s.servePage(w, r, failedPage(errNoStation), nil, wantsMarkdown(r))
			return
		}
		w.Header().Set("Content-Disposition", `attachment; filename="station-`+id.String()+"."+strings.TrimPrefix(f.name, "listen.")+`"`)
		s.serveResource(w, r, "playlist "+r.URL.EscapedPath(), func(ix *query.Index, dst []byte) (entityHead, []byte, error) {
			body, err := playlistBody(ix, id, f)
			return entityHead{contentType: f.mediaType}, append(dst, body...), err
		}, func(w http.ResponseWriter, r *http.Request, err error) {
			w.Header().Del("Content-Disposition")
			if err == errNoIndex {
				s.failPage(w, r, err, wantsMarkdown(r))
				return
			}
			s.servePage(w, r, failedPage(err), nil, wantsMarkdown(r))
		})
	}
}

func playlistBody(ix *query.Index, id format.UUID, f playlistFormat) (string, error) {
	rec, err := ix.Station(id)
	if err != nil {
		return "", err
	}
	return renderPlaylist(f, &rec)
}

// renderPlaylist writes a station's playlist: one line per field, none of
// which can hold a line break (cleanText; isWebURL refuses any space or
// control character in the address).
func renderPlaylist(f playlistFormat, rec *format.Record) (string, error) {
	if !isWebURL(rec.StreamURL) {
		return "", errNoStream
	}
	return f.body(cleanText(rec.Name), rec.StreamURL), nil
}

// failedPage is a page builder that fails with err: the error page.
func failedPage(err error) pageFunc {
	return func(*http.Request, *query.Index, []string) (*page, error) { return nil, err }
}

// addPlaylists appends the links to rec's playlists and its stream: none
// when it has no playable stream.
func (p *pageLinks) addPlaylists(base string, rec *format.Record) {
	if !isWebURL(rec.StreamURL) {
		return
	}
	*p = append(*p,
		internalLink("Playlist for a desktop or phone player (M3U)", playlistURL(base, rec.ID, playlistM3U)),
		internalLink("Playlist (PLS)", playlistURL(base, rec.ID, playlistPLS)),
		externalLink("Direct stream address", rec.StreamURL),
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
