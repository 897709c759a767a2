package format

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Geo is a station's position in microdegrees (about 0.1 m), the precision
// stored in the index. Known is false for a station without coordinates.
type Geo struct {
	Known    bool
	Lat, Lon int32 // -90e6..90e6 and -180e6..180e6
}

// Microdegrees per degree.
const geoScale = 1e6

// GeoFromDegrees rounds a position to microdegrees; ok is false when it is
// outside the valid ranges or not a number.
func GeoFromDegrees(lat, lon float64) (Geo, bool) {
	if math.IsNaN(lat) || math.IsNaN(lon) || lat < -90 || lat > 90 || lon < -180 || lon > 180 {
		return Geo{}, false
	}
	return Geo{Known: true, Lat: int32(math.Round(lat * geoScale)), Lon: int32(math.Round(lon * geoScale))}, true
}

// LatDeg and LonDeg are the position in degrees.
func (g Geo) LatDeg() float64 { return float64(g.Lat) / geoScale }
func (g Geo) LonDeg() float64 { return float64(g.Lon) / geoScale }

func (g Geo) valid() bool {
	return !g.Known && g.Lat == 0 && g.Lon == 0 ||
		g.Known && g.Lat >= -90*geoScale && g.Lat <= 90*geoScale && g.Lon >= -180*geoScale && g.Lon <= 180*geoScale
}

// EarthRadiusKm is the mean radius of the Earth (IUGG), the sphere that
// distances are measured on.
const EarthRadiusKm = 6371.0088

// DistanceKm is the great-circle distance between two positions in
// degrees, by the haversine formula (accurate at small distances too).
func DistanceKm(lat1, lon1, lat2, lon2 float64) float64 {
	const rad = math.Pi / 180
	dLat := (lat2 - lat1) * rad
	dLon := (lon2 - lon1) * rad
	a := math.Sin(dLat/2)*math.Sin(dLat/2) + math.Cos(lat1*rad)*math.Cos(lat2*rad)*math.Sin(dLon/2)*math.Sin(dLon/2)
	return 2 * EarthRadiusKm * math.Asin(math.Sqrt(min(1, a)))
}

// The geo bucket divides the sphere into cells of one degree by one
// degree. A cell is (lat index, lon index): floor(lat)+90 in 0..179 (a
// latitude of exactly 90 joins the cell below it) and floor(lon)+180 in
// 0..359 (longitude 180 joins -180's cell, the same meridian).
const (
	GeoLatCells = 180
	GeoLonCells = 360
)

// GeoCell is one cell of the geo bucket.
type GeoCell struct{ Lat, Lon int }

// CellOf is the cell holding g.
func CellOf(g Geo) GeoCell {
	lat := int(math.Floor(g.LatDeg())) + 90
	lon := int(math.Floor(g.LonDeg())) + 180
	return GeoCell{Lat: min(max(lat, 0), GeoLatCells-1), Lon: ((lon % GeoLonCells) + GeoLonCells) % GeoLonCells}
}

// GeoCellKey is the geo-bucket key of cell c: both indexes as big-endian
// uint16, so keys sort by latitude band, then longitude.
func GeoCellKey(c GeoCell) []byte {
	var k [4]byte
	binary.BigEndian.PutUint16(k[0:], uint16(c.Lat))
	binary.BigEndian.PutUint16(k[2:], uint16(c.Lon))
	return k[:]
}

// ParseGeoCellKey decodes a key written by GeoCellKey.
func ParseGeoCellKey(k []byte) (GeoCell, error) {
	if len(k) != 4 {
		return GeoCell{}, fmt.Errorf("%w: geo cell key of %d bytes", ErrCorrupt, len(k))
	}
	c := GeoCell{Lat: int(binary.BigEndian.Uint16(k)), Lon: int(binary.BigEndian.Uint16(k[2:]))}
	if c.Lat >= GeoLatCells || c.Lon >= GeoLonCells {
		return GeoCell{}, fmt.Errorf("%w: geo cell %d,%d out of range", ErrCorrupt, c.Lat, c.Lon)
	}
	return c, nil
}

// GeoPoint is one station in a geo cell.
type GeoPoint struct {
	Record uint32
	Geo    Geo
}

// GeoPointSize is the encoded size of a point: record number, latitude
// and longitude, each 4 bytes big-endian. A cell's value is its points in
// ascending record order, back to back.
const GeoPointSize = 12

// AppendGeoPoint appends the encoding of p to dst.
func AppendGeoPoint(dst []byte, p GeoPoint) []byte {
	dst = binary.BigEndian.AppendUint32(dst, p.Record)
	dst = binary.BigEndian.AppendUint32(dst, uint32(p.Geo.Lat))
	return binary.BigEndian.AppendUint32(dst, uint32(p.Geo.Lon))
}

// GeoPoints reads the points of one cell value, calling fn for each in
// stored order. A value that is not whole points, or a point outside the
// valid ranges, is corrupt; fn's error stops the walk.
func GeoPoints(v []byte, fn func(GeoPoint) error) error {
	if len(v)%GeoPointSize != 0 {
		return fmt.Errorf("%w: geo cell of %d bytes", ErrCorrupt, len(v))
	}
	for ; len(v) > 0; v = v[GeoPointSize:] {
		p := GeoPoint{Record: binary.BigEndian.Uint32(v), Geo: Geo{Known: true,
			Lat: int32(binary.BigEndian.Uint32(v[4:])), Lon: int32(binary.BigEndian.Uint32(v[8:]))}}
		if !p.Geo.valid() {
			return fmt.Errorf("%w: geo point of record %d out of range", ErrCorrupt, p.Record)
		}
		if err := fn(p); err != nil {
			return err
		}
	}
	return nil
}
