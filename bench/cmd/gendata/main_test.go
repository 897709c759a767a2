package main

import (
	"math/rand/v2"
	"regexp"
	"testing"
)

var uuidRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

func TestUUIDDeterministicAndDistinct(t *testing.T) {
	seen := map[string]bool{}
	for k := 0; k < 1000; k++ {
		a, b := uuid(1, k, "station"), uuid(1, k, "change")
		if a != uuid(1, k, "station") {
			t.Fatal("not deterministic")
		}
		if !uuidRE.MatchString(a) || !uuidRE.MatchString(b) {
			t.Fatalf("not a canonical v4 UUID: %s %s", a, b)
		}
		if seen[a] || seen[b] || a == b {
			t.Fatalf("collision at %d", k)
		}
		seen[a], seen[b] = true, true
	}
	if uuid(1, 5, "station") == uuid(2, 5, "station") {
		t.Error("seed does not change ids")
	}
}

func TestNewNameDeterministic(t *testing.T) {
	tpl := &template{name: []string{"Radio", "Jazz", "Berlin"}}
	pool := []string{"Welle", "Kultur", "FM", "Klassik"}
	a := newName(rand.New(rand.NewPCG(1, 2)), tpl, pool)
	b := newName(rand.New(rand.NewPCG(1, 2)), tpl, pool)
	if a != b || a == "" {
		t.Fatalf("newName: %q vs %q", a, b)
	}
}
