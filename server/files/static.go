package files

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"strings"

	"github.com/julienschmidt/httprouter"

	"stationdex/server/core"
	"stationdex/server/pages"
)

var (
	faviconSVG   = core.NewStaticAsset([]byte(faviconSource), "image/svg+xml")
	faviconICO   = core.NewStaticAsset(icoOf(faviconPNG(32)), "image/x-icon")
	ImmutableAge = "public, max-age=31536000, immutable"
	// DailyAge is for names that cannot carry a digest (/favicon.ico is
	// asked for by that name) and for the unfingerprinted style sheet.
	DailyAge = "public, max-age=86400"
)

// staticFile serves the style sheet: immutable under its fingerprinted name,
// for a day under its plain name or a fingerprint of another version (a
// page from a node running another binary during a rolling update).
func (s *Server) staticFile(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	name := ps.ByName("file")
	switch {
	case "/static/"+name == pages.StylePath:
		s.serveAsset(pages.StyleAsset, ImmutableAge)(w, r, ps)
	case strings.HasPrefix(name, "style.") && strings.HasSuffix(name, ".css"):
		s.serveAsset(pages.StyleAsset, DailyAge)(w, r, ps)
	default:
		s.pages.NotFound(w, r, ps)
	}
}

func (s *Server) serveAsset(a *core.Entity, cacheControl string) httprouter.Handle {
	field := []string{cacheControl}
	return func(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
		s.Send(w, r, a, core.Reply{CacheControl: field, Ranged: true}, core.KeepVariant)
	}
}

// robotsTxt allows every path and names the sitemap, whose address depends
// on the base URL: built once, when the routes are.
func (s *Server) robotsTxt() *core.Entity {
	body := "# stationdex: every page and file may be crawled; the sitemap lists them.\n" +
		"User-agent: *\nDisallow:\n\nSitemap: " + s.Base + core.PathSitemap + "\n"
	return core.NewStaticAsset([]byte(body), "text/plain; charset=utf-8")
}

// faviconSource is the icon: a dot and two arcs, a station on the air.
const faviconSource = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">` +
	`<rect width="32" height="32" rx="6" fill="#1d4e89"/>` +
	`<circle cx="16" cy="20" r="3.5" fill="#fff"/>` +
	`<path d="M9.5 13.5a9 9 0 0 1 13 0M5.5 9.5a14.5 14.5 0 0 1 21 0" fill="none" stroke="#fff" stroke-width="2.5" stroke-linecap="round"/>` +
	`</svg>`

// faviconPNG draws the icon's dot on its background at size×size pixels,
// for /favicon.ico: clients that ask for it by name take no SVG.
func faviconPNG(size int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, size, size))
	bg, fg := color.RGBA{0x1d, 0x4e, 0x89, 0xff}, color.RGBA{0xff, 0xff, 0xff, 0xff}
	c, r := float64(size)/2, float64(size)/5
	for y := range size {
		for x := range size {
			dx, dy := float64(x)+0.5-c, float64(y)+0.5-c
			img.Set(x, y, bg)
			if dx*dx+dy*dy <= r*r {
				img.Set(x, y, fg)
			}
		}
	}
	var b bytes.Buffer
	_ = png.Encode(&b, img) // encoding an in-memory image cannot fail
	return b.Bytes()
}

// icoOf wraps one PNG image in the ICO container (a 6-byte header and one
// 16-byte directory entry), which every browser reads.
func icoOf(pngData []byte) []byte {
	cfg, _ := png.DecodeConfig(bytes.NewReader(pngData))
	b := make([]byte, 22, 22+len(pngData))
	binary.LittleEndian.PutUint16(b[2:], 1) // type: icon
	binary.LittleEndian.PutUint16(b[4:], 1) // one image
	b[6], b[7] = byte(cfg.Width), byte(cfg.Height)
	binary.LittleEndian.PutUint16(b[10:], 1)  // colour planes
	binary.LittleEndian.PutUint16(b[12:], 32) // bits per pixel
	binary.LittleEndian.PutUint32(b[14:], uint32(len(pngData)))
	binary.LittleEndian.PutUint32(b[18:], 22) // offset of the image
	return append(b, pngData...)
}
