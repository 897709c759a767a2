package server

import (
	"strconv"

	"stationdex/query"
)

// /data/catalog.json: the dataset described in schema.org's Dataset
// vocabulary (JSON-LD), with one DataDownload per dump. Sizes and digests
// are those of the documents as served under this base URL (uncompressed;
// gzip is only a transfer encoding).

// dataLicence: Radio Browser's data is public domain.
const dataLicence = "https://creativecommons.org/publicdomain/zero/1.0/"

type catalogDoc struct {
	Context      string         `json:"@context"`
	Type         string         `json:"@type"`
	ID           string         `json:"@id"`
	Name         string         `json:"name"`
	Description  string         `json:"description"`
	URL          string         `json:"url"`
	License      string         `json:"license"`
	CreditText   string         `json:"creditText"`
	Free         bool           `json:"isAccessibleForFree"`
	Creator      catalogAgent   `json:"creator"`
	IsBasedOn    string         `json:"isBasedOn"`
	DateModified string         `json:"dateModified"`
	Version      string         `json:"version"`
	Distribution []catalogDist  `json:"distribution"`
	Size         string         `json:"size"`
	Extra        catalogSummary `json:"stationdex"`
}

type catalogAgent struct {
	Type string `json:"@type"`
	Name string `json:"name"`
	URL  string `json:"url"`
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

func (s *Server) catalog(ix *query.Index) (any, error) {
	m := ix.Meta()
	set, err := s.dumps(ix)
	if err != nil {
		return nil, err
	}
	creator, credit := dataCredit(m.Source, s.base)
	doc := catalogDoc{
		Context:      "https://schema.org/",
		Type:         "Dataset",
		ID:           s.base + pathCatalog,
		Name:         "stationdex radio station directory",
		Description:  "Every radio station of the snapshot in the stationdex API's Station shape. Stream availability, schedules, broadcast rights and regional restrictions can change; no current availability check is implied.",
		URL:          s.base + "/",
		License:      dataLicence,
		CreditText:   credit,
		Free:         true,
		Creator:      creator,
		IsBasedOn:    m.Source,
		DateModified: snapshotAt(m),
		Version:      schemaVersion(m),
		Size:         strconv.Itoa(set.manifest.Stations) + " records",
		Extra:        catalogSummary{SnapshotAt: snapshotAt(m), Source: m.Source, RecordCount: set.manifest.Stations, Licence: "public domain"},
	}
	for _, f := range set.manifest.Files {
		doc.Distribution = append(doc.Distribution, catalogDist{
			Type: "DataDownload", Name: f.Name, ContentURL: s.base + pathData + f.Name,
			EncodingFormat: f.MediaType, ContentSize: strconv.FormatInt(f.Size, 10) + " B",
			SHA256: f.SHA256, Bytes: f.Size, GzipBytes: f.GzipSize,
		})
	}
	return doc, nil
}
