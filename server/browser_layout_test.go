package server

import (
	"bytes"
	"encoding/base64"
	"image/png"
	"math"
	"net"
	"net/http/httptest"
	"testing"
)

// TestBrowserLayoutAtPhoneAndDesktopWidths opens a search in Debian's
// chromium, headless and without JavaScript, at a phone's width and at a
// desktop's, keeps a screenshot of each, and checks what a reader sees
// first: the form's further filters folded, the first result above the
// fold, and, once the filters are unfolded, every field's control in one
// column, inside the page.
func TestBrowserLayoutAtPhoneAndDesktopWidths(t *testing.T) {
	chromium, driver := browserBinaries(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	site := httptest.NewUnstartedServer(serverAt(t, demoIx(t), base).Handler())
	site.Listener.Close()
	site.Listener = ln
	site.Start()
	defer site.Close()

	wd := startWebDriver(t, driver, chromium, browserOptions{})
	defer wd.quit()
	for _, size := range []struct {
		name          string
		width, height int
	}{{"phone", 390, 844}, {"desktop", 1280, 800}} {
		t.Run(size.name, func(t *testing.T) {
			wd.t = t
			wd.call("POST", wd.session+"/window/rect", map[string]int{"width": size.width, "height": size.height}, nil)
			wd.navigate(base + "/search/?q=radio")
			viewW, viewH := wd.viewport()
			wd.screenshot("browser-search-" + size.name + ".png")
			if wd.displayed(wd.find("#country")) {
				t.Errorf("the country field shows before the results: the further filters are not folded")
			}
			first := wd.rect(wd.find("main section ul li a[href*='/stations/']"))
			if bottom := first.Y + first.Height; bottom > float64(viewH) {
				t.Errorf("the first result ends %.0f px down, below the fold at %.0f px (%dx%d)", bottom, float64(viewH), viewW, viewH)
			}

			wd.click(wd.find("form[role=search] details summary"))
			if !wd.displayed(wd.find("#bitrate_max")) {
				t.Fatalf("the further filters did not unfold")
			}
			left := wd.rect(wd.find("#q")).X
			for _, id := range []string{"country", "language", "genre", "location", "codec", "https", "bitrate_min", "bitrate_max", "near", "radius_km", "distinct"} {
				r := wd.rect(wd.find("#" + id))
				if math.Abs(r.X-left) > 1 {
					t.Errorf("#%s starts at x=%.0f, the words field at x=%.0f: the fields are out of line", id, r.X, left)
				}
				if r.X+r.Width > float64(viewW) {
					t.Errorf("#%s ends at x=%.0f, past the page's width %d", id, r.X+r.Width, viewW)
				}
			}
			wd.screenshot("browser-search-" + size.name + "-filters.png")
		})
	}
}

// elementRect is an element's box in CSS pixels, from the page's top.
type elementRect struct{ X, Y, Width, Height float64 }

func (wd *webDriver) rect(el string) elementRect {
	var r elementRect
	wd.call("GET", wd.session+"/element/"+el+"/rect", nil, &r)
	return r
}

func (wd *webDriver) displayed(el string) bool {
	var shown bool
	wd.call("GET", wd.session+"/element/"+el+"/displayed", nil, &shown)
	return shown
}

// viewport is the size of what the browser shows, read from a screenshot
// (which is of the viewport): without JavaScript, the page cannot say it.
func (wd *webDriver) viewport() (width, height int) {
	var b64 string
	wd.call("GET", wd.session+"/screenshot", nil, &b64)
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		wd.t.Fatal(err)
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(raw))
	if err != nil {
		wd.t.Fatal(err)
	}
	return cfg.Width, cfg.Height
}
