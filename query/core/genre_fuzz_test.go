package core

import (
	"testing"

	"stationdex/internal/format"
	qoracle "stationdex/oracle"
)

// FuzzGenreKey: the engine's genre key (format.GenreKey, what the index
// files genres under and a filter looks them up with) agrees with the
// oracle's, written apart from it, and a key is its own key, so that a
// directory page's key given back as a filter finds the same genre.
func FuzzGenreKey(f *testing.F) {
	for _, row := range genreSpellings {
		for _, g := range row {
			f.Add(g)
		}
	}
	for _, s := range []string{"", "-", "#", "...", "# hip hop", "c#", "Música", "r&b", "80\u02bcs", "ǅ", "\u00b4"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, tag string) {
		key := format.GenreKey(tag)
		if want := qoracle.GenreKey(tag); key != want {
			t.Fatalf("GenreKey(%q) = %q, oracle %q", tag, key, want)
		}
		if again := format.GenreKey(key); again != key && Filterable(DimGenre, key) {
			t.Fatalf("GenreKey(%q) = %q, but GenreKey(%q) = %q", tag, key, key, again)
		}
	})
}
