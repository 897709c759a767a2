package traffic

import (
	"net/url"
	"strconv"

	"stationdex/bench/internal/mix"
)

// The search page (/search/, the path its links and form use; /search
// redirects to it) as people reach it: the form's fields (words, country,
// language, genre) and the pager's offsets, with no limit (the page's own
// size) and nothing else, so that the page answers with its defaults:
// one result per group of entries, each with its count of other entries,
// and the facets the page shows beside the results. The suite's search
// page mixes are the cold and hot searches (Cold, NewHot) asked this way.

// SearchPageSize is the search page's number of results when no limit
// is given (the API's default limit); its pager's offsets are multiples
// of it.
const SearchPageSize = 20

// SearchPagePath is the search page's request path for q, as the form
// and its pager send it: q's offset rounded down to a page boundary, its
// limit left out.
func SearchPagePath(q mix.Query) string {
	v := url.Values{}
	for _, f := range [][2]string{{"q", q.Q}, {"country", q.Country}, {"language", q.Language}, {"genre", q.Genre}} {
		if f[1] != "" {
			v.Set(f[0], f[1])
		}
	}
	if off := q.Offset / SearchPageSize * SearchPageSize; off > 0 {
		v.Set("offset", strconv.Itoa(off))
	}
	return "/search/?" + v.Encode()
}

// SearchPages lists the distinct search page paths of qs in their first
// order, and for each query of qs the index of its page in that list:
// searches that differ only in their limit, or in an offset within the
// same page, are one page.
func SearchPages(qs []mix.Query) (paths []string, page []int) {
	seen := make(map[string]int, len(qs))
	page = make([]int, len(qs))
	for i, q := range qs {
		p := SearchPagePath(q)
		k, ok := seen[p]
		if !ok {
			k = len(paths)
			seen[p] = k
			paths = append(paths, p)
		}
		page[i] = k
	}
	return paths, page
}

// SearchPagePaths lists the search page of every request of the
// sequence.
func (h *Hot) SearchPagePaths() []string {
	pages, page := SearchPages(h.Queries)
	out := make([]string, len(h.Seq))
	for i, k := range h.Seq {
		out[i] = pages[page[k]]
	}
	return out
}
