package core

import "sync"

// derivedValues holds what callers derive from a snapshot once (see
// Derived), by key: a sync.Map, as the keys are written once and read on
// every request that needs them.
type derivedValues struct {
	values sync.Map // string -> *derivedValue
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
	e, ok := ix.derived.values.Load(key)
	if !ok {
		e, _ = ix.derived.values.LoadOrStore(key, &derivedValue{})
	}
	d := e.(*derivedValue)
	d.once.Do(func() { d.v, d.err = build(ix) })
	return d.v, d.err
}
