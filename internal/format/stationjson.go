package format

// Stored station JSON (BucketStationJSON). Block b holds the stations of
// record block b, in the same slots, in the block layout of block.go
// (AppendBlock, BlockLen, BlockRecord), each the exact bytes the API sends
// for the station (stationjson.Station.AppendJSON) except that every URL
// of the service's own starts with BaseURLMark instead of the escaped base
// URL. The base URL is then a serving choice, not an indexing one: a
// server splices its own in while copying (stationjson.Splice), and an
// index built for one address serves any other without a fallback path.
//
// BaseURLMark is a control character, which a JSON encoder can never emit
// raw (JSON text escapes every byte below 0x20 inside strings, and ours
// writes none outside them), so each one in a stored station is a mark and
// nothing else. Splicing the escaped base URL in its place gives what
// encoding the station with that base URL gives, because the escaping of a
// string is the escaping of its parts when they are cut at a character
// boundary, and every URL continues with an ASCII '/' after the base.
const BaseURLMark = '\x00'
