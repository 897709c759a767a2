package query

import "sync"

// derivedValues holds what callers derive from a snapshot once (see
// Derived), by key.
type derivedValues struct {
	mu     sync.Mutex
	values map[string]*derivedValue
}

type derivedValue struct {
	once sync.Once
	v    any
	err  error
}

// Derived is the value build makes of the index for key, made on the
// first call and kept as long as the index: a snapshot never changes, so
// what is computed from it alone (the compatible API's lists, folded and
// sorted) is computed once, and goes when a reload replaces the index.
// Concurrent first calls for one key wait for one build; an error is kept
// like a value (an index's errors are damage, which stays).
func (ix *Index) Derived(key string, build func(ix *Index) (any, error)) (any, error) {
	d := &ix.derived
	d.mu.Lock()
	if d.values == nil {
		d.values = map[string]*derivedValue{}
	}
	e := d.values[key]
	if e == nil {
		e = &derivedValue{}
		d.values[key] = e
	}
	d.mu.Unlock()
	e.once.Do(func() { e.v, e.err = build(ix) })
	return e.v, e.err
}
