package oracle

import (
	"bytes"
	"cmp"
	"slices"
	"strings"

	"stationdex/internal/fold"
	"stationdex/internal/format"
)

// Groups lists every group of more than one entry, by the API guide's
// rule and apart from the indexer's code: entries of one stream address
// or of one folded name, homepage and country are joined, transitively,
// with a union-find of its own. Each group is in representative order
// (highest bitrate, a known codec, smallest id); the groups in the order
// of their representatives' ids.
func (o *Oracle) Groups() [][]format.UUID {
	parent := make([]int, len(o.stations))
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		if parent[i] != i {
			parent[i] = find(parent[i])
		}
		return parent[i]
	}
	firstOf := map[string]int{}
	join := func(key string, i int) {
		if j, ok := firstOf[key]; ok {
			parent[find(i)] = find(j)
		} else {
			firstOf[key] = i
		}
	}
	for i := range o.stations {
		s := &o.stations[i]
		if k := addressKey(s.stream); k != "" {
			join("stream "+k, i)
		}
		if k := addressKey(s.homepage); k != "" {
			join("station "+fold.String(s.name)+"\x00"+k+"\x00"+s.country, i)
		}
	}
	return o.collectGroups(find)
}

func (o *Oracle) collectGroups(find func(int) int) [][]format.UUID {
	members := map[int][]*oracleStation{}
	for i := range o.stations {
		members[find(i)] = append(members[find(i)], &o.stations[i])
	}
	var out [][]format.UUID
	for _, ms := range members {
		if len(ms) < 2 {
			continue
		}
		slices.SortFunc(ms, betterEntry)
		ids := make([]format.UUID, len(ms))
		for i, m := range ms {
			ids[i] = m.id
		}
		out = append(out, ids)
	}
	slices.SortFunc(out, func(a, b []format.UUID) int { return bytes.Compare(a[0][:], b[0][:]) })
	return out
}

// betterEntry orders a group's entries, the representative first.
func betterEntry(a, b *oracleStation) int {
	known := func(s *oracleStation) int {
		if s.codec != "" {
			return 0
		}
		return 1
	}
	return cmp.Or(cmp.Compare(b.bitrate, a.bitrate), cmp.Compare(known(a), known(b)), bytes.Compare(a.id[:], b.id[:]))
}

// addressKey compares addresses as the guide says: scheme and host in
// lower case, the default port (http 80, https 443), a trailing '/' of
// the path and an empty query or fragment left out. Written with string
// cuts, not net/url.
func addressKey(addr string) string {
	addr = strings.TrimSpace(addr)
	scheme, rest, ok := strings.Cut(addr, "://")
	if !ok || scheme == "" {
		return addr
	}
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	auth, tail := rest[:end], rest[end:]
	user := ""
	if at := strings.LastIndex(auth, "@"); at >= 0 {
		user, auth = auth[:at+1], auth[at+1:]
	}
	if auth == "" {
		return addr
	}
	scheme, host := strings.ToLower(scheme), strings.ToLower(auth)
	if scheme == "http" {
		host = strings.TrimSuffix(host, ":80")
	} else if scheme == "https" {
		host = strings.TrimSuffix(host, ":443")
	}
	tail, fragment, _ := strings.Cut(tail, "#")
	path, query, _ := strings.Cut(tail, "?")
	key := scheme + "://" + user + host + strings.TrimSuffix(path, "/")
	if query != "" {
		key += "?" + query
	}
	if fragment != "" {
		key += "#" + fragment
	}
	return key
}

// groupOf is the group of an entry: the id of its group's
// representative, or its own id when it stands alone.
func (o *Oracle) groupOf(id format.UUID) format.UUID {
	o.grouping.Do(func() {
		o.group = map[format.UUID]format.UUID{}
		for _, g := range o.Groups() {
			for _, m := range g {
				o.group[m] = g[0]
			}
		}
	})
	if g, ok := o.group[id]; ok {
		return g
	}
	return id
}

// Distinct keeps the first entry of each group in ids, a search's result
// in rank order: what a distinct search lists.
func (o *Oracle) Distinct(ids []format.UUID) []format.UUID {
	seen := map[format.UUID]bool{}
	var out []format.UUID
	for _, id := range ids {
		if g := o.groupOf(id); !seen[g] {
			seen[g] = true
			out = append(out, id)
		}
	}
	return out
}

// DistinctFacets is Facets counting groups: a value's count is the
// number of groups with a matching entry that has the value.
func (o *Oracle) DistinctFacets(q Request, facet string) []FacetCount {
	return o.facets(q, facet, o.groupOf)
}
