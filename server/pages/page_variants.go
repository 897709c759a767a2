package pages

import (
	"strconv"

	"stationdex/internal/format"
	"stationdex/server/core"
)

// variantsBlock is a station page's "Also listed as": the other entries of
// its group (the same stream, or the same station in other codecs and
// bitrates), each a link to its own page; nothing for a station that
// stands alone. Its text and the entries' notes are cut from one string.
func (s *Server) variantsBlock(ix core.Index, r *format.Record) (Block, error) {
	vs, total, err := ix.Variants(r.ID)
	if err != nil || total == 0 {
		return Block{}, err
	}
	var stack [2048]byte
	b := append(stack[:0], "The directory lists this station "...)
	b = appendTimesMore(b, total)
	b = append(b, ": the same stream submitted again, or the station in other codecs and bitrates. Each entry keeps its own page."...)
	ends := make([]int, 0, 2*len(vs)+2)
	ends = append(ends, len(b))
	for i := range vs {
		b = appendNote(b, &vs[i])
		ends = append(ends, len(b))
	}
	more := total - len(vs)
	if more > 0 {
		b = append(strconv.AppendInt(append(b, "and "...), int64(more), 10), " more"...)
		ends = append(ends, len(b))
	}
	urls := len(ends) // each entry's address follows
	for i := range vs {
		b = appendStationURL(b, s.Base, vs[i].ID, "")
		ends = append(ends, len(b))
	}
	text := string(b)
	piece := func(i int) string { return text[ends[i-1]:ends[i]] }
	links := make([]Link, len(vs), len(vs)+1)
	for i := range vs {
		links[i] = internalLink(vs[i].Name, piece(urls+i))
		links[i].Note = piece(i + 1)
	}
	if more > 0 {
		links = append(links, textValue(piece(len(vs)+1)))
	}
	return Block{Heading: "Also listed as", Text: []string{text[:ends[0]]}, Links: links}, nil
}

// appendTimesMore appends "once more" or "n more times".
func appendTimesMore(b []byte, n int) []byte {
	if n == 1 {
		return append(b, "once more"...)
	}
	return append(strconv.AppendInt(b, int64(n), 10), " more times"...)
}

// valueSummary says, once, how many stations a directory value has, and
// how many entries they are listed as where that differs.
func valueSummary(d Directory, label string, entries, groups int) string {
	what := stationCount(groups) + " with the " + d.one + " " + label
	if entries == groups {
		return what + ", in alphabetical order."
	}
	return what + ", listed as " + strconv.Itoa(entries) + " entries in alphabetical order (" + sameStation + ")."
}

// entriesWord is what a directory value's list counts: its entries,
// which are its stations unless some stand for one station.
func entriesWord(entries, groups int) string {
	if entries == groups {
		return "Stations"
	}
	return "Entries"
}

// appendEntries appends how a directory value is counted in the index of
// its kind: "n stations", and "n stations in m entries" where entries of
// one station are counted once (an index page writes a hundred, into one
// buffer).
func appendEntries(b []byte, entries, groups int) []byte {
	b = appendCount(b, groups, "station", "stations")
	if entries == groups {
		return b
	}
	return appendCount(append(b, " in "...), entries, "entry", "entries")
}

// appendCount appends "1 one" or "n many".
func appendCount(dst []byte, n int, one, many string) []byte {
	dst = append(strconv.AppendInt(dst, int64(n), 10), ' ')
	if n == 1 {
		return append(dst, one...)
	}
	return append(dst, many...)
}

// sameStation says which entries a directory counts as one station.
const sameStation = "entries of the same stream, or of one station in several codecs and bitrates, count as one station"
