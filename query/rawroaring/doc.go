// Package rawroaring reads roaring bitmaps in their portable
// serialization in place, container by container, without decoding them:
// the posting lists of an index file, straight out of its mapping.
//
// roaring's own FromBuffer allocates a container value per container and
// combines some containers slowly (run containers of many short runs);
// the engine's hot paths (intersecting posting lists range by range,
// counting a facet's values against a match set) need neither. The door:
// Parse splits a list into Containers (Key, Kind, Card, Data, every
// length checked against the bytes), Cardinality reads a list's size from
// its headers; OrInto, AndCount, Each and the Dense bitset copies combine
// containers with plain bitsets; CountArrays and IntersectArrays
// intersect two array containers, with an SSE4.2 kernel on amd64
// (intersect_amd64.s) and a merge elsewhere. AppendDense goes the other
// way: it writes a bitset in the serialization, a faster road from a
// bitset to a roaring bitmap than roaring's FromDense for sparse sets.
// Nothing here knows what the values stand for.
//
// File map:
//   - doc.go: this comment
//   - container.go: Parse, which splits a serialized posting list into
//     Containers and checks every length; Cardinality from the headers;
//     AndCount and Each, which read containers against a bitset
//   - blocks.go: DenseBlock, the bitset copy of an array container, and
//     OrInto and RunCard for the other kinds
//   - intersect.go: Merge, the portable intersection of two array
//     containers and the tail of the kernel's
//   - dense.go: AppendDense, which writes a bitset in the portable
//     serialization, for roaring's FromBuffer to read
//   - intersect_amd64.go, intersect_other.go: CountArrays and
//     IntersectArrays, over the SSE4.2 block kernel of intersect_amd64.s
//     on amd64 and over Merge elsewhere
package rawroaring
