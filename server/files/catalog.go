package files

import (
	"strconv"

	"stationdex/server/core"
	"stationdex/server/pages"
)

// /data/catalog.json: the dataset described in schema.org's Dataset
// vocabulary (JSON-LD), with one DataDownload per dump. Sizes and digests
// are those of the documents as served under this base URL (uncompressed;
// gzip is only a transfer encoding).

// dataLicence: Radio Browser's data is public domain.
const dataLicence = "https://creativecommons.org/publicdomain/zero/1.0/"

type CatalogDoc struct {
	Context      string             `json:"@context"`
	Type         string             `json:"@type"`
	ID           string             `json:"@id"`
	Name         string             `json:"name"`
	Description  string             `json:"description"`
	URL          string             `json:"url"`
	License      string             `json:"license"`
	CreditText   string             `json:"creditText"`
	Free         bool               `json:"isAccessibleForFree"`
	Creator      pages.CatalogAgent `json:"creator"`
	IsBasedOn    string             `json:"isBasedOn"`
	DateModified string             `json:"dateModified"`
	Version      string             `json:"version"`
	Distribution []catalogDist      `json:"distribution"`
	Size         string             `json:"size"`
	Extra        catalogSummary     `json:"stationdex"`
}

type catalogDist struct {
	Type           string `json:"@type"`
	Name           string `json:"name"`
	ContentURL     string `json:"contentUrl"`
	EncodingFormat string `json:"encodingFormat"`
	ContentSize    string `json:"contentSize"`
	SHA256         string `json:"sha256"`
	Bytes          int64  `json:"byte_size"`
	GzipBytes      int64  `json:"gzip_byte_size"`
}

// catalogSummary repeats the facts clients look for under plain names.
type catalogSummary struct {
	SnapshotAt  string `json:"snapshot_at"`
	Source      string `json:"source"`
	RecordCount int    `json:"record_count"`
	Licence     string `json:"licence"`
}

func (s *Server) catalog(ix core.Index) (any, error) {
	m := ix.Meta()
	set, err := s.dumps(ix)
	if err != nil {
		return nil, err
	}
	creator, credit := pages.DataCredit(m.Source, s.Base)
	doc := CatalogDoc{
		Context:      "https://schema.org/",
		Type:         "Dataset",
		ID:           s.Base + core.PathCatalog,
		Name:         "stationdex radio station directory",
		Description:  "Every radio station of the snapshot in the stationdex API's Station shape. Stream availability, schedules, broadcast rights and regional restrictions can change; no current availability check is implied.",
		URL:          s.Base + "/",
		License:      dataLicence,
		CreditText:   credit,
		Free:         true,
		Creator:      creator,
		IsBasedOn:    m.Source,
		DateModified: core.SnapshotAt(m),
		Version:      core.SchemaVersion(m),
		Size:         strconv.Itoa(set.manifest.Stations) + " records",
		Extra:        catalogSummary{SnapshotAt: core.SnapshotAt(m), Source: m.Source, RecordCount: set.manifest.Stations, Licence: "public domain"},
	}
	for _, f := range set.manifest.Files {
		doc.Distribution = append(doc.Distribution, catalogDist{
			Type: "DataDownload", Name: f.Name, ContentURL: s.Base + core.PathData + f.Name,
			EncodingFormat: f.MediaType, ContentSize: strconv.FormatInt(f.Size, 10) + " B",
			SHA256: f.SHA256, Bytes: f.Size, GzipBytes: f.GzipSize,
		})
	}
	return doc, nil
}
