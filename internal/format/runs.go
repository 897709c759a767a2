package format

import "github.com/RoaringBitmap/roaring/v2"

// MaxRunContainerBytes is the mean size of a posting list's run containers
// above which they are not worth keeping: about 128 runs (4 bytes each)
// per container. roaring combines containers of many short runs slowly,
// and several of its operations on them (in-place union, conversion to an
// array) are quadratic in the number of runs. The writer stores such a
// list as array and bitmap containers; a reader flattens one it finds in
// a file from elsewhere before combining it.
const MaxRunContainerBytes = 512

// ManyShortRuns reports whether bm's run containers are, on average, past
// MaxRunContainerBytes.
func ManyShortRuns(bm *roaring.Bitmap) bool {
	st := bm.Stats()
	return st.RunContainers > 0 && st.RunContainerBytes/st.RunContainers > MaxRunContainerBytes
}
