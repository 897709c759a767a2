package pages

import (
	"strconv"

	"stationdex/internal/format"
	"stationdex/internal/stationjson"
	"stationdex/server/core"
)

// variantsBlock is a station page's "Also listed as": the other entries of
// its group (the same stream, or the same station in other codecs and
// bitrates), each a link to its own page; nothing for a station that
// stands alone.
func (s *Server) variantsBlock(ix core.Index, r *format.Record) (Block, error) {
	vs, total, err := ix.Variants(r.ID)
	if err != nil || total == 0 {
		return Block{}, err
	}
	text := "The directory lists this station " + timesMore(total) +
		": the same stream submitted again, or the station in other codecs and bitrates. Each entry keeps its own page."
	links := make([]Link, len(vs), len(vs)+1)
	for i := range vs {
		links[i] = internalLink(vs[i].Name, stationjson.StationURL(s.Base, vs[i].ID))
		links[i].Note = resultNote("", &vs[i])
	}
	if more := total - len(vs); more > 0 {
		links = append(links, textValue("and "+strconv.Itoa(more)+" more"))
	}
	return Block{Heading: "Also listed as", Text: []string{text}, Links: links}, nil
}

// timesMore is "once more" or "n more times".
func timesMore(n int) string {
	if n == 1 {
		return "once more"
	}
	return strconv.Itoa(n) + " more times"
}

// groupsText counts a directory value's entries and the stations they
// stand for (their groups), and says what makes entries one station.
func groupsText(entries, groups int) string {
	return entriesOf(entries, groups) + " (" + sameStation + ")."
}

// entriesOf is "n entries of m stations": a directory value's entries and
// their groups, the way its page and the index of its kind count them.
// An index page writes a hundred, so it is built in one allocation.
func entriesOf(entries, groups int) string {
	b := make([]byte, 0, 64)
	b = appendCount(b, entries, "entry", "entries")
	b = append(b, " of "...)
	return string(appendCount(b, groups, "station", "stations"))
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
