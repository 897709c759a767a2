package server

import (
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"stationdex/indexer/realdata"
	"stationdex/internal/format"
	"stationdex/server/core"
	"stationdex/server/files"
)

type sitemapIndexDoc struct {
	XMLName  xml.Name `xml:"http://www.sitemaps.org/schemas/sitemap/0.9 sitemapindex"`
	Sitemaps []struct {
		Loc     string `xml:"loc"`
		Lastmod string `xml:"lastmod"`
	} `xml:"sitemap"`
}

type urlsetDoc struct {
	XMLName xml.Name `xml:"http://www.sitemaps.org/schemas/sitemap/0.9 urlset"`
	URLs    []struct {
		Loc     string `xml:"loc"`
		Lastmod string `xml:"lastmod"`
	} `xml:"url"`
}

// sitemapURLs reads /sitemap.xml and every child sitemap, checking the
// protocol's rules on the way, and returns every page URL listed. Each
// child is also validated against sitemap.xsd when xmllint and the schema
// are available (required under CI=true).
func sitemapURLs(t testing.TB, s *Server, base string) []string {
	t.Helper()
	rec := fetchOK(t, s, "/sitemap.xml")
	if ct := rec.Header().Get("Content-Type"); ct != files.XMLType {
		t.Errorf("sitemap index type %q", ct)
	}
	var index sitemapIndexDoc
	if err := xml.Unmarshal(rec.Body.Bytes(), &index); err != nil {
		t.Fatalf("sitemap index: %v", err)
	}
	lastmod := core.SnapshotAt(mustMeta(t, s))
	var urls []string
	seen := map[string]bool{}
	for _, sm := range index.Sitemaps {
		if sm.Lastmod != lastmod {
			t.Errorf("%s lastmod %q, want the snapshot %q", sm.Loc, sm.Lastmod, lastmod)
		}
		child := fetchOK(t, s, local(t, base, sm.Loc))
		var set urlsetDoc
		if err := xml.Unmarshal(child.Body.Bytes(), &set); err != nil {
			t.Fatalf("%s: %v", sm.Loc, err)
		}
		if len(set.URLs) == 0 || len(set.URLs) > files.SitemapMaxURLs {
			t.Errorf("%s has %d URLs", sm.Loc, len(set.URLs))
		}
		xmllintSitemap(t, sm.Loc, child.Body.Bytes())
		for _, u := range set.URLs {
			if u.Lastmod != lastmod || seen[u.Loc] || !strings.HasPrefix(u.Loc, base+"/") {
				t.Errorf("%s: url %q lastmod %q (duplicate %v)", sm.Loc, u.Loc, u.Lastmod, seen[u.Loc])
			}
			seen[u.Loc] = true
			urls = append(urls, u.Loc)
		}
	}
	return urls
}

func mustMeta(t testing.TB, s *Server) format.Meta {
	t.Helper()
	ix, release := s.Acquire()
	if ix == nil {
		t.Fatal("no index")
	}
	defer release()
	return ix.Meta()
}

// sitemapXSD finds sitemap.xsd of npm's sitemap package (9.0.1), installed
// by .ci/run into the npm prefix, or named by STATIONDEX_SITEMAP_XSD.
func sitemapXSD() string {
	candidates := []string{os.Getenv("STATIONDEX_SITEMAP_XSD")}
	prefix := os.Getenv("STATIONDEX_NPM_PREFIX")
	if prefix == "" {
		if home, err := os.UserHomeDir(); err == nil {
			prefix = filepath.Join(home, ".cache", "stationdex-npm")
		}
	}
	candidates = append(candidates, filepath.Join(prefix, "node_modules", "sitemap", "schema", "sitemap.xsd"))
	for _, c := range candidates {
		if c != "" {
			if _, err := os.Stat(c); err == nil {
				return c
			}
		}
	}
	return ""
}

var xmllintWarned bool

// xmllintSitemap validates one urlset against sitemap.xsd. Without xmllint
// or the schema it is skipped (logged once), except under CI=true, where
// .ci/run installs both and their absence is a failure.
func xmllintSitemap(t testing.TB, name string, body []byte) {
	t.Helper()
	xsd := sitemapXSD()
	lint, err := exec.LookPath("xmllint")
	if xsd == "" || err != nil {
		if realdata.InCI() {
			t.Fatalf("CI=true but xmllint (%v) or sitemap.xsd (%q) is missing", err, xsd)
		}
		if !xmllintWarned {
			xmllintWarned = true
			t.Logf("sitemap.xsd validation skipped: xmllint or npm sitemap@9.0.1 schema not found")
		}
		return
	}
	f := filepath.Join(tempDir(t), "sitemap.xml")
	if err := os.WriteFile(f, body, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(lint, "--noout", "--nonet", "--schema", xsd, f).CombinedOutput()
	if err != nil {
		t.Errorf("%s does not validate against sitemap.xsd: %v\n%s", name, err, out)
	}
}

// TestSitemapNames: only the children the index lists exist.
func TestSitemapNames(t *testing.T) {
	s := newDemoServer(t, nil)
	for _, name := range []string{"stations-0.xml", "stations-01.xml", "stations-2.xml", "nothing-1.xml", "stations.xml", "pages"} {
		if rec := serve(s, "GET", "/sitemaps/"+name); rec.Code != 404 {
			t.Errorf("%s: status %d", name, rec.Code)
		}
	}
	if _, n, ok := files.ParseSitemapName("genres-12.xml"); !ok || n != 12 {
		t.Errorf("genres-12.xml: %d %v", n, ok)
	}
}
