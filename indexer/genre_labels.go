package indexer

import (
	"bytes"

	bolt "go.etcd.io/bbolt"
)

// A genre's label is the spelling most of its stations list ("top 40" over
// "top40"), so that its directory page and facet entry read as people
// write it. The spellings are counted the way posting lists are built:
// each station's tag is filed under spellingKey(genre key, tag) in the
// postings sorter, whose merge then yields every spelling of a genre
// together, genre keys ascending and a genre's spellings in bytewise order
// within it, each with the stations that list it. Memory stays within the
// sorter's budget however many spellings there are.

// spellingSep ends the genre key in a spelling key. Keys are folded text,
// which never holds a NUL (cleaning drops control characters).
const spellingSep = 0

// spellingKey files tag as a spelling of the genre key genre.
func spellingKey(genre, tag string) string {
	return genre + string(rune(spellingSep)) + tag
}

// genreLabelSource yields the genre_labels bucket: per genre key the
// spelling with the most stations, ties going to the bytewise smallest
// spelling (the first in the merge), so the choice depends on the
// stations alone.
func (s *postingStream) genreLabelSource() kvSource {
	var cur genreLabel // the genre being counted; key nil before the first
	return func(*bolt.Tx) ([]byte, []byte, error) {
		for {
			k, bm, err := s.group(bGenreSpellings)
			if err != nil {
				return nil, nil, err
			}
			if k == nil { // the last genre is done
				done := cur
				cur = genreLabel{}
				return done.key, done.label, nil
			}
			n := int(bm.GetCardinality())
			if n == 0 {
				continue // only dropped duplicates spelled it so
			}
			genre, spelling, _ := bytes.Cut(k, []byte{spellingSep})
			if cur.key != nil && bytes.Equal(genre, cur.key) {
				cur.count(spelling, n)
				continue
			}
			done := cur
			cur = genreLabel{key: genre, label: spelling, stations: n}
			s.keys[bGenreSpellings]++
			if done.key != nil {
				return done.key, done.label, nil
			}
		}
	}
}

// genreLabel is the spelling of one genre key with the most stations so far.
type genreLabel struct {
	key, label []byte
	stations   int
}

// count takes spelling, listed by n stations, if more list it than the
// label so far; spellings come in bytewise order, so an equal count
// keeps the smaller one.
func (g *genreLabel) count(spelling []byte, n int) {
	if n > g.stations {
		g.label, g.stations = spelling, n
	}
}
