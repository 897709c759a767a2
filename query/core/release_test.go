package core

import (
	"os"
	"reflect"
	"testing"
	"unsafe"

	bolt "go.etcd.io/bbolt"
)

// TestReleaseLeavesNothingInTheMapping runs searches of every kind in one
// workspace and, after each release, walks everything the workspace can
// reach (every field, slice element up to its capacity, pointer, map and
// interface) for a pointer into the index's mapping, which Close unmaps:
// the pool must not hand such a pointer to the next search. release is
// written field by field; this walk is derived from the types, so a field
// added without a reset fails here.
func TestReleaseLeavesNothingInTheMapping(t *testing.T) {
	ix, _ := realIndex(t)
	if err := Warm(ix); err != nil {
		t.Fatal(err)
	}
	queries := []Query{
		{Q: "radio", Limit: 20}, {Q: "rock fm", Filter: filters("US", "", ""), Limit: 5, Offset: 40},
		{Q: "jazz", Facets: DimsOf(DimCountry, DimGenre, DimLocation, DimCodec), FacetLimit: 10, Limit: 3},
		{Q: "music radio", Facets: threeFacets, FacetLimit: 50, Limit: 3},
		{Filter: filters("DE", "", "pop"), Facets: threeFacets, Limit: 10},
		{Q: "radoi", Suggest: true, Limit: 10}, {Filter: filters("", "", "", "MP3"), BitrateMin: 128, Limit: 10},
		{Q: "fm", Near: &Near{Lat: 52.52, Lon: 13.405, RadiusKm: 50}, Facets: threeFacets, Limit: 10},
		{Filter: Filters{DimHTTPS: {"true"}, DimLocation: {"berlin"}}, Limit: 10},
		// facets of sets the memo does not hold: counted by posting lists
		{Q: "r a", Facets: threeFacets, FacetLimit: 50, Limit: 10},
		{Q: "radio", Filter: filters("", "english", ""), Facets: threeFacets, FacetLimit: 50, Limit: 10},
	}
	inMap := inMappings(t, ix)
	w := GetWorkspace()
	for _, q := range queries {
		err := ix.View(func(tx *bolt.Tx) error {
			s := w.NewSearch(ix)
			s.Tx = tx
			var res Result
			return s.run(q, ix.meta.Stations, &res, nil, Count, Suggest)
		})
		if err != nil {
			t.Fatalf("%s: %v", q.String(), err)
		}
		w.Release()
		workspaces.Get() // take it back from the pool: this test owns it
		if path := intoMapping(inMap, reflect.ValueOf(w), "w", map[uintptr]bool{}); path != "" {
			t.Fatalf("after %s: %s points into the mapping", q.String(), path)
		}
	}
}

// inMappings reports whether a pointer lies in one of ix's mappings (the
// page tree's, bbolt's).
func inMappings(t *testing.T, ix *Index) func(unsafe.Pointer) bool {
	boltAt := ix.db.Info().Data
	st, err := os.Stat(ix.Path())
	if err != nil {
		t.Fatal(err)
	}
	return func(p unsafe.Pointer) bool {
		if p == nil {
			return false
		}
		_, inTree := ix.Tree.Offset(unsafe.Slice((*byte)(p), 1))
		return inTree || uintptr(p) >= boltAt && uintptr(p) < boltAt+uintptr(st.Size())
	}
}

// intoMapping is the path of the first pointer reachable from v for
// which inMap holds, or "".
func intoMapping(inMap func(unsafe.Pointer) bool, v reflect.Value, path string, seen map[uintptr]bool) string {
	switch v.Kind() {
	case reflect.Pointer, reflect.UnsafePointer:
		if v.IsNil() {
			return ""
		}
		p := v.UnsafePointer()
		if inMap(p) {
			return path
		}
		if seen[uintptr(p)] || v.Kind() == reflect.UnsafePointer {
			return ""
		}
		seen[uintptr(p)] = true
		return intoMapping(inMap, v.Elem(), "(*"+path+")", seen)
	case reflect.Slice:
		if v.IsNil() || v.Cap() == 0 {
			return ""
		}
		if inMap(v.UnsafePointer()) {
			return path
		}
		full := v.Slice(0, v.Cap())
		for i := range full.Len() {
			if p := intoMapping(inMap, full.Index(i), path+"[i]", seen); p != "" {
				return p
			}
		}
	case reflect.Array:
		for i := range v.Len() {
			if p := intoMapping(inMap, v.Index(i), path+"[i]", seen); p != "" {
				return p
			}
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if p := intoMapping(inMap, v.Field(i), path+"."+v.Type().Field(i).Name, seen); p != "" {
				return p
			}
		}
	case reflect.Interface:
		if !v.IsNil() {
			return intoMapping(inMap, v.Elem(), path, seen)
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			if p := intoMapping(inMap, it.Value(), path+"[k]", seen); p != "" {
				return p
			}
		}
	case reflect.String:
		if v.Len() > 0 && inMap(unsafe.Pointer(unsafe.StringData(v.String()))) {
			return path
		}
	}
	return ""
}
