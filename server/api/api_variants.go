package api

import (
	"strconv"

	"stationdex/internal/format"
	"stationdex/internal/stationjson"
	"stationdex/server/core"
)

// A station record, as getStation answers it, is the spec's Station with
// the other entries of its group (see the groups section of package
// format): "variants", at most query.MaxVariants, the group's
// representative first, and "variants_total", how many there are in all.
// Search results and the data dumps carry the Station alone, as the index
// stores it.

// StationWithVariants is the station of a single-station answer.
type StationWithVariants struct {
	stationjson.Station
	Variants      []variantJSON `json:"variants"`
	VariantsTotal int           `json:"variants_total"`
}

// variantJSON is one entry of variants; codec and bitrate are null when
// unknown, as in a Station.
type variantJSON struct {
	ID          string  `json:"id"`
	PageURL     string  `json:"page_url"`
	Codec       *string `json:"codec"`
	BitrateKbps *uint32 `json:"bitrate_kbps"`
}

// VariantsOf reads the variants of station id, with their pages on base,
// and their number in all.
func VariantsOf(ix core.Index, base string, id format.UUID) ([]variantJSON, int, error) {
	vs, total, err := ix.Variants(id)
	out := make([]variantJSON, len(vs))
	for i, v := range vs {
		out[i] = variantJSON{ID: v.ID.String(), PageURL: stationjson.StationURL(base, v.ID),
			Codec: stationjson.Nullable(v.Codec)}
		if v.BitrateKbps > 0 {
			out[i].BitrateKbps = &vs[i].BitrateKbps
		}
	}
	return out, total, err
}

// appendVariants appends the variants to an open station object, as its
// fields ,"variants":[...],"variants_total":n.
func appendVariants(dst []byte, vs []variantJSON, total int) []byte {
	dst = append(dst, `,"variants":[`...)
	for i, v := range vs {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = stationjson.AppendString(append(dst, `{"id":`...), v.ID)
		dst = stationjson.AppendString(append(dst, `,"page_url":`...), v.PageURL)
		dst = appendNullable(append(dst, `,"codec":`...), v.Codec)
		dst = append(dst, `,"bitrate_kbps":`...)
		if v.BitrateKbps == nil {
			dst = append(dst, "null"...)
		} else {
			dst = strconv.AppendUint(dst, uint64(*v.BitrateKbps), 10)
		}
		dst = append(dst, '}')
	}
	dst = append(dst, `],"variants_total":`...)
	return strconv.AppendInt(dst, int64(total), 10)
}
