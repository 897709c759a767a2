package extsort

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"testing"
)

type kv struct{ k, v []byte }

// records returns n records with many repeated keys, so that stability is
// observable, and values that name their insertion position.
func records(n int, seed uint64) []kv {
	rng := rand.New(rand.NewPCG(seed, 1))
	out := make([]kv, n)
	for i := range out {
		k := make([]byte, rng.IntN(12))
		for j := range k {
			k[j] = byte(rng.IntN(4)) // few distinct bytes: many equal keys
		}
		out[i] = kv{k, fmt.Appendf(nil, "%d/%s", i, bytes.Repeat([]byte("v"), rng.IntN(300)))}
	}
	return out
}

func collect(t *testing.T, s *Sorter) []kv {
	t.Helper()
	it, err := s.Iter()
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	var out []kv
	for it.Next() {
		out = append(out, kv{bytes.Clone(it.Key()), bytes.Clone(it.Value())})
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSortStable compares the sorter against an in-memory stable sort, with
// budgets from "never spills" to "a run every few records", the latter
// forcing more runs than one merge takes.
func TestSortStable(t *testing.T) {
	in := records(20000, 7)
	want := slices.Clone(in)
	slices.SortStableFunc(want, func(a, b kv) int { return bytes.Compare(a.k, b.k) })
	for _, budget := range []int{64 << 20, 1 << 20, 4096} {
		t.Run(fmt.Sprint(budget), func(t *testing.T) {
			s := New(t.TempDir(), budget)
			s.budget = budget // below chunkSize, to force many runs
			defer s.Close()
			for _, r := range in {
				if err := s.Add(r.k, r.v); err != nil {
					t.Fatal(err)
				}
			}
			for pass := 0; pass < 2; pass++ { // Iter may be repeated
				got := collect(t, s)
				if len(got) != len(want) {
					t.Fatalf("pass %d: %d records, want %d", pass, len(got), len(want))
				}
				for i := range got {
					if !bytes.Equal(got[i].k, want[i].k) || !bytes.Equal(got[i].v, want[i].v) {
						t.Fatalf("pass %d, record %d: %q=%q, want %q=%q", pass, i, got[i].k, got[i].v, want[i].k, want[i].v)
					}
				}
			}
			if budget == 4096 && s.Runs() > maxFanIn {
				t.Errorf("%d runs after compaction, want at most %d", s.Runs(), maxFanIn)
			}
			if budget == 64<<20 && s.Runs() != 0 {
				t.Errorf("%d runs written under a budget the data fits in", s.Runs())
			}
		})
	}
}

func TestFlushAndClose(t *testing.T) {
	dir := t.TempDir()
	s := New(dir, 1<<20)
	for i, r := range records(100, 3) {
		s.Add(r.k, r.v)
		if i%10 == 9 {
			if err := s.Flush(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if s.Runs() != 10 {
		t.Errorf("%d runs after 10 flushes", s.Runs())
	}
	if got := collect(t, s); len(got) != 100 {
		t.Errorf("%d records, want 100", len(got))
	}
	if err := s.Add([]byte("k"), nil); err == nil {
		t.Error("Add after Iter succeeded")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("Close left %d files", len(left))
	}
}

// TestDamagedRun: a run that ends mid-record is an error, not a short
// result.
func TestDamagedRun(t *testing.T) {
	s := New(t.TempDir(), 1<<20)
	defer s.Close()
	for _, r := range records(50, 5) {
		s.Add(r.k, r.v)
	}
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(s.runs[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(s.runs[0], fi.Size()-3); err != nil {
		t.Fatal(err)
	}
	it, err := s.Iter()
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	n := 0
	for it.Next() {
		n++
	}
	if it.Err() == nil {
		t.Errorf("truncated run read without error (%d records)", n)
	}
}

// TestCompactionPlan: compaction merges each run at most once, in groups
// of at most maxFanIn, and no more runs than it takes to leave maxFanIn.
func TestCompactionPlan(t *testing.T) {
	for runs := range 20 * maxFanIn {
		plan := compactionPlan(runs)
		merged, left := 0, runs
		for _, n := range plan {
			if n < 2 || n > maxFanIn {
				t.Fatalf("%d runs: group of %d in %v", runs, n, plan)
			}
			merged += n
			left -= n - 1
		}
		if merged > runs {
			t.Fatalf("%d runs: plan %v merges %d", runs, plan, merged)
		}
		if want := min(runs, maxFanIn); left != want {
			t.Fatalf("%d runs: plan %v leaves %d, want %d", runs, plan, left, want)
		}
		if full := max(0, runs-maxFanIn) / (maxFanIn - 1); merged > full*maxFanIn+maxFanIn {
			t.Fatalf("%d runs: plan %v merges %d runs, more than needed", runs, plan, merged)
		}
	}
}

// TestCompactBeforeIter: Compact leaves at most maxFanIn runs, Iter then
// yields the same sorted records as without it, and Add is refused.
func TestCompactBeforeIter(t *testing.T) {
	in := records(20000, 9)
	want := slices.Clone(in)
	slices.SortStableFunc(want, func(a, b kv) int { return bytes.Compare(a.k, b.k) })
	s := New(t.TempDir(), 4096)
	s.budget = 4096 // below chunkSize, to force many runs
	defer s.Close()
	for _, r := range in {
		if err := s.Add(r.k, r.v); err != nil {
			t.Fatal(err)
		}
	}
	if s.Runs() <= maxFanIn {
		t.Fatalf("%d runs: too few to need compaction", s.Runs())
	}
	if err := s.Compact(); err != nil {
		t.Fatal(err)
	}
	if s.Runs() > maxFanIn {
		t.Errorf("%d runs after Compact, want at most %d", s.Runs(), maxFanIn)
	}
	if err := s.Add([]byte("k"), nil); err == nil {
		t.Error("Add after Compact succeeded")
	}
	got := collect(t, s)
	if len(got) != len(want) {
		t.Fatalf("%d records, want %d", len(got), len(want))
	}
	for i := range got {
		if !bytes.Equal(got[i].k, want[i].k) || !bytes.Equal(got[i].v, want[i].v) {
			t.Fatalf("record %d: %q=%q, want %q=%q", i, got[i].k, got[i].v, want[i].k, want[i].v)
		}
	}
}

// TestKeyPrefixOrder checks that keys whose prefixes differ compare as
// their prefixes do, keys of few distinct bytes (zero among them) and of
// lengths around 8 included, where the padding could mislead.
func TestKeyPrefixOrder(t *testing.T) {
	in := records(3000, 11)
	for i := 1; i < len(in); i++ {
		a, b := in[i-1].k, in[i].k
		pa, pb := keyPrefix(a), keyPrefix(b)
		if pa == pb {
			continue
		}
		want := bytes.Compare(a, b)
		if got := map[bool]int{true: -1, false: 1}[pa < pb]; got != want {
			t.Fatalf("keys %v and %v: prefixes order %d, bytes %d", a, b, got, want)
		}
	}
}

// sortCases are buffers whose keys the radix sort splits in different
// ways: short keys of few bytes (deep ties), long keys sharing a prefix
// longer than eight bytes (every bucket tied), random bytes (one level
// splits all) and a common first byte followed by text.
func sortCases() map[string]func(rng *rand.Rand) []byte {
	return map[string]func(rng *rand.Rand) []byte{
		"few bytes": func(rng *rand.Rand) []byte {
			k := make([]byte, rng.IntN(12))
			for j := range k {
				k[j] = byte(rng.IntN(4))
			}
			return k
		},
		"shared prefix": func(rng *rand.Rand) []byte {
			return fmt.Appendf(nil, "radio station %d", rng.IntN(5000))
		},
		"random": func(rng *rand.Rand) []byte {
			return binaryKey(rng.Uint64(), rng.Uint64())
		},
		"bucket and word": func(rng *rand.Rand) []byte {
			return fmt.Appendf([]byte{byte(rng.IntN(3))}, "w%x", rng.IntN(1<<16))
		},
	}
}

func binaryKey(a, b uint64) []byte {
	return fmt.Appendf(nil, "%016x%016x", a, b)[:16]
}

// TestRadixSortAsComparison: the buffer sorted by the radix sort is the
// buffer sorted by comparison of prefix, key and place, record for record.
func TestRadixSortAsComparison(t *testing.T) {
	for name, key := range sortCases() {
		for _, n := range []int{0, 1, 63, 64, 65, 1000, 30000} {
			rng := rand.New(rand.NewPCG(uint64(n), 3))
			s := New(t.TempDir(), 1<<30)
			for i := range n {
				if err := s.Add(key(rng), fmt.Appendf(nil, "%d", i)); err != nil {
					t.Fatal(err)
				}
			}
			want := slices.Clone(s.recs)
			s.tied(want, false)
			s.sortBuffer()
			if !slices.Equal(s.recs, want) {
				t.Errorf("%s, %d records: the radix sort's order differs from the comparison's", name, n)
			}
			s.Close()
		}
	}
}

func BenchmarkSortBuffer(b *testing.B) {
	for name, key := range sortCases() {
		rng := rand.New(rand.NewPCG(1, 3))
		s := New(b.TempDir(), 1<<30)
		for i := range 200000 {
			if err := s.Add(key(rng), fmt.Appendf(nil, "%d", i)); err != nil {
				b.Fatal(err)
			}
		}
		added := slices.Clone(s.recs)
		for _, way := range []string{"radix", "comparison"} {
			b.Run(name+"/"+way, func(b *testing.B) {
				for b.Loop() {
					copy(s.recs, added)
					if way == "radix" {
						s.radixSort(s.recs, 56)
					} else {
						s.tied(s.recs, false)
					}
				}
			})
		}
		s.Close()
	}
}
