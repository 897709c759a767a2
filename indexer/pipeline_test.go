package indexer

import "testing"

// TestBatchPoolRecycles: a recycled batch comes back empty, with a done
// channel of its own, and keeps its buffers; an outsize one is let go.
func TestBatchPoolRecycles(t *testing.T) {
	p := newBatchPool()
	b := p.get("a", 0)
	b.add(position{}, []byte(`{"name":"x"}`))
	b.decode(newPostingKeyer(), nil)
	p.put(b)
	r := p.get("b", 0)
	if r != b {
		t.Fatal("batch not recycled")
	}
	if r.input != "b" || len(r.pos) != 0 || len(r.raw) != 0 || len(r.data) != 0 {
		t.Errorf("recycled batch not empty: %+v", r)
	}
	select {
	case <-r.done:
		t.Error("recycled batch is already done")
	default:
	}
	if cap(r.data) == 0 || cap(r.out) == 0 {
		t.Error("recycled batch lost its buffers")
	}
	r.data = make([]byte, 0, maxBatchHint+1)
	p.put(r)
	if p.get("c", 0) == r {
		t.Error("outsize batch recycled")
	}
}
