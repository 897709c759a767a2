package rbapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"math"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"stationdex/server/core"
)

// The parameters of the Radio Browser API under /json/: one row each, read
// from the query string, a form body (urlencoded or multipart) or a JSON
// body, as the upstream server reads them, with the body winning over the
// query string and, within one source, the first value of a name. What
// the upstream server answers, this one answers with the same meaning;
// only where the upstream server fails (a 500) or an answer would be
// unbounded is it a 400 (a JSON body):
//
//   - a name is matched ignoring case and underscores, because the npm
//     client lowercases every name (bitratemin, hasextendedinfo) and
//     others send the documented spelling (bitrateMin,
//     has_extended_info); a name no row has, or one the path does not
//     take, is ignored, as upstream ignores it, and counted (Ignored);
//   - a boolean that is not true or false is false, as upstream takes
//     it, but for has_geo_info, has_extended_info and is_https, on
//     which upstream fails (a 500): those are a 400;
//   - a count that is not a plain decimal up to maxRBCount is its
//     default, as upstream's; a position that is not a number is none;
//   - text is at most MaxRBTextBytes, invalid UTF-8 is replaced
//     (upstream decodes it lossily), a body at most MaxRBBodyBytes: the
//     node's bounds, a 400 beyond them.

// RBParam is one parameter of the Radio Browser API.
type RBParam uint8

const (
	RBName RBParam = iota
	RBNameExact
	rbCountry
	rbCountryExact
	RBCountryCode
	rbState
	rbStateExact
	rbLanguage
	rbLanguageExact
	rbTag
	rbTagExact
	RBTagList
	RBCodec
	rbCodecExact
	RBBitrateMin
	rbBitrateMax
	RBHasGeoInfo
	RBHasExtendedInfo
	RBIsHTTPS
	rbGeoLat
	rbGeoLong
	rbGeoDistance
	RBOrder
	RBReverse
	rbOffset
	RBLimit
	RBHideBroken
	rbUUIDs
	rbURL
	NumRBParams
)

// rbKind is how a parameter's value is checked.
type rbKind uint8

const (
	rbText    rbKind = iota // any text up to maxRBTextBytes
	rbFlag                  // true or false
	rbCount                 // a decimal whole number up to maxRBCount
	rbDecimal               // a finite decimal number
)

// rbParamRow is a parameter as the upstream documentation spells it.
type rbParamRow struct {
	Name string
	kind rbKind
}

var RBParamRows = [NumRBParams]rbParamRow{
	RBName: {"name", rbText}, RBNameExact: {"nameExact", rbFlag},
	rbCountry: {"country", rbText}, rbCountryExact: {"countryExact", rbFlag},
	RBCountryCode: {"countrycode", rbText},
	rbState:       {"state", rbText}, rbStateExact: {"stateExact", rbFlag},
	rbLanguage: {"language", rbText}, rbLanguageExact: {"languageExact", rbFlag},
	rbTag: {"tag", rbText}, rbTagExact: {"tagExact", rbFlag}, RBTagList: {"tagList", rbText},
	RBCodec: {"codec", rbText}, rbCodecExact: {"codecExact", rbFlag}, RBBitrateMin: {"bitrateMin", rbCount}, rbBitrateMax: {"bitrateMax", rbCount},
	RBHasGeoInfo: {"has_geo_info", rbFlag}, RBHasExtendedInfo: {"has_extended_info", rbFlag},
	RBIsHTTPS: {"is_https", rbFlag}, rbGeoLat: {"geo_lat", rbDecimal}, rbGeoLong: {"geo_long", rbDecimal},
	rbGeoDistance: {"geo_distance", rbDecimal},
	RBOrder:       {"order", rbText}, RBReverse: {"reverse", rbFlag}, rbOffset: {"offset", rbCount},
	RBLimit: {"limit", rbCount}, RBHideBroken: {"hidebroken", rbFlag},
	rbUUIDs: {"uuids", rbText}, rbURL: {"url", rbText},
}

// Bounds of values. A url may be as long as the longest the index keeps
// (indexer.MaxURLBytes); a count above maxRBCount asks for more than any
// snapshot holds.
const (
	MaxRBTextBytes = 4096
	maxRBCount     = 999_999_999
	MaxRBBodyBytes = 64 << 10
)

// rbParamSet is a set of parameters, one bit each.
type rbParamSet uint32

func rbSet(ps ...RBParam) rbParamSet {
	var s rbParamSet
	for _, p := range ps {
		s |= 1 << p
	}
	return s
}

func (s rbParamSet) Has(p RBParam) bool { return s&(1<<p) != 0 }

// The parameter sets of the paths.
var (
	RBPaging       = rbSet(RBOrder, RBReverse, rbOffset, RBLimit, RBHideBroken)
	RBSearchParams = RBPaging | rbSet(RBName, RBNameExact, rbCountry, rbCountryExact, RBCountryCode,
		rbState, rbStateExact, rbLanguage, rbLanguageExact, rbTag, rbTagExact, RBTagList, RBCodec, rbCodecExact,
		RBBitrateMin, rbBitrateMax, RBHasGeoInfo, RBHasExtendedInfo, RBIsHTTPS, rbGeoLat, rbGeoLong, rbGeoDistance)
)

// RBParamByName finds a row by its name folded as rbFoldName folds it.
var RBParamByName = func() map[string]RBParam {
	m := make(map[string]RBParam, NumRBParams)
	for p, row := range RBParamRows {
		m[RBFoldName(row.Name)] = RBParam(p)
	}
	return m
}()

// RBFoldName is a parameter name with case and underscores left out.
func RBFoldName(name string) string {
	return strings.ReplaceAll(strings.ToLower(name), "_", "")
}

// rbParams are the parameters of one request: a value for each given,
// and the labels (IgnoredLabel) of the names ignored.
type rbParams struct {
	given   rbParamSet
	values  [NumRBParams]string
	ignored []string
	out     *rbFormat // the output format of the path (/json/, /xml/...)
}

func (p *rbParams) Has(q RBParam) bool    { return p.given.Has(q) }
func (p *rbParams) Text(q RBParam) string { return p.values[q] }
func (p *rbParams) flag(q RBParam) bool   { return p.values[q] == "true" }
func (p *rbParams) count(q RBParam, def int) int {
	if !p.Has(q) {
		return def
	}
	n, _ := strconv.Atoi(p.values[q]) // checked by checkRBValue
	return n
}

func (p *rbParams) decimal(q RBParam) float64 {
	f, _ := strconv.ParseFloat(p.values[q], 64) // checked by checkRBValue
	return f
}

// Ignored are the labels of the parameters the request gave and the path
// ignored, one per name given.
func (p *rbParams) Ignored() []string { return p.ignored }

// upstreamNames are the parameter names the upstream server reads that
// no row of ours has: ignored here too, but counted by their own name.
var upstreamNames = []string{"tags", "homepage", "favicon", "lastchangeuuid", "lastcheckuuid", "lastclickuuid", "languagecodes", "seconds"}

// IgnoredLabel is the metric label of an ignored parameter name: the
// upstream's spelling of its own names (any case, underscores aside),
// "other" for the rest, so that what a client sends cannot grow the
// series.
func IgnoredLabel(name string) string {
	f := RBFoldName(name)
	if q, ok := RBParamByName[f]; ok {
		return RBParamRows[q].Name
	}
	for _, n := range upstreamNames {
		if RBFoldName(n) == f {
			return n
		}
	}
	return "other"
}

// canonical is the parameters as one string, in row order: what names
// an answer in the response cache, wherever the values came from.
func (p *rbParams) canonical() string {
	v := url.Values{}
	for q := range NumRBParams {
		if p.Has(q) {
			v.Set(RBParamRows[q].Name, p.values[q])
		}
	}
	return v.Encode()
}

// ParseRBParams reads the parameters of r that the path takes.
func ParseRBParams(r *http.Request, takes rbParamSet) (rbParams, error) {
	var p rbParams
	query, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return p, core.Errorf(core.CodeInvalidRequest, "the query string cannot be read: %v", err)
	}
	if err := p.add(query, takes, false); err != nil {
		return p, err
	}
	body, err := readRBBody(r)
	if err != nil {
		return p, err
	}
	return p, p.add(body, takes, true)
}

// add takes the values of vals that the path takes; override lets them
// replace values given before (the body's replace the query string's: the
// body is read first upstream), but not one another. Of two names of one
// parameter in vals (countryCode and countrycode) the one spelt as the
// row is taken, else the first in byte order; of two values of a name,
// the first, as upstream takes it. Names the path does not take are
// ignored (p.ignored).
func (p *rbParams) add(vals url.Values, takes rbParamSet, override bool) error {
	var here rbParamSet
	for _, name := range slices.Sorted(maps.Keys(vals)) {
		q, ok := RBParamByName[RBFoldName(name)]
		if !ok || !takes.Has(q) {
			p.ignored = append(p.ignored, IgnoredLabel(name))
			continue
		}
		if here.Has(q) && name != RBParamRows[q].Name || p.Has(q) && !here.Has(q) && !override {
			continue
		}
		v, keep, err := checkRBValue(q, vals[name][0])
		if err != nil {
			return err
		}
		here |= 1 << q
		if !keep {
			p.given &^= 1 << q
			continue
		}
		p.given |= 1 << q
		p.values[q] = v
	}
	return nil
}

// Names lists the parameters of s, for messages.
func (s rbParamSet) Names() string {
	var names []string
	for q := range NumRBParams {
		if s.Has(q) {
			names = append(names, RBParamRows[q].Name)
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// checkRBValue reads a value by its row's kind, as upstream reads it:
// the value to take, or keep false when it is to be taken as not given
// (a count or a position that is not one); an error only past the
// node's bounds or where upstream fails.
func checkRBValue(q RBParam, v string) (string, bool, error) {
	row := RBParamRows[q]
	if len(v) > MaxRBTextBytes {
		return "", false, core.Errorf(core.CodeInvalidParameter, "%s must be text of at most %d bytes", row.Name, MaxRBTextBytes)
	}
	v = strings.ToValidUTF8(v, "\uFFFD")
	switch {
	case row.kind == rbFlag && v != "true" && v != "false":
		if rbTriState.Has(q) {
			return "", false, core.Errorf(core.CodeInvalidParameter, "%s must be true or false, not %s (upstream answers 500)", row.Name, core.QuoteClip(v))
		}
		return "false", true, nil
	case row.kind == rbCount && !isRBCount(v), row.kind == rbDecimal && !isRBDecimal(v):
		return "", false, nil
	}
	return v, true, nil
}

// rbTriState are the flags that filter both ways, which upstream parses
// strictly (a 500 on anything but true or false).
var rbTriState = rbSet(RBHasGeoInfo, RBHasExtendedInfo, RBIsHTTPS)

func isRBCount(v string) bool {
	if v == "" || len(v) > len(strconv.Itoa(maxRBCount)) {
		return false
	}
	for i := 0; i < len(v); i++ {
		if v[i] < '0' || v[i] > '9' {
			return false
		}
	}
	n, _ := strconv.Atoi(v)
	return n <= maxRBCount
}

func isRBDecimal(v string) bool {
	f, err := strconv.ParseFloat(v, 64)
	return err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) && !strings.ContainsAny(v, "xXpP_")
}

// readRBBody reads the parameters of a POST body: a form (urlencoded or
// multipart) or a JSON object. Other requests have none; a body of
// another type, or one that is not what its type says, is ignored, as
// upstream ignores it. A body beyond MaxRBBodyBytes is a 400.
func readRBBody(r *http.Request) (url.Values, error) {
	if r.Method != http.MethodPost || !core.HasBody(r) {
		return nil, nil
	}
	media, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil {
		return nil, nil
	}
	r.Body = http.MaxBytesReader(nil, r.Body, MaxRBBodyBytes)
	switch media {
	case "application/x-www-form-urlencoded":
		b, err := io.ReadAll(r.Body)
		if err != nil {
			return nil, rbBodyError(err)
		}
		v, _ := url.ParseQuery(string(b)) // what can be read of it, as upstream
		return v, nil
	case "multipart/form-data":
		err := r.ParseMultipartForm(MaxRBBodyBytes)
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) || errors.Is(err, multipart.ErrMessageTooLarge) {
			return nil, rbBodyError(err)
		}
		if err != nil || r.MultipartForm == nil {
			return nil, nil
		}
		return url.Values(r.MultipartForm.Value), nil
	case "application/json":
		b, err := io.ReadAll(r.Body)
		if err != nil {
			return nil, rbBodyError(err)
		}
		return readRBJSON(b), nil
	}
	return nil, nil
}

func rbBodyError(err error) error {
	return core.Errorf(core.CodeInvalidRequest, "the body cannot be read (at most %d bytes): %v", MaxRBBodyBytes, err)
}

// readRBJSON reads a JSON object of parameters as upstream reads it:
// strings as they are, numbers and booleans as written, arrays (tagList,
// uuids) of strings joined with commas (another item is an empty one),
// null and objects ignored; a body that is not an object is none.
func readRBJSON(body []byte) url.Values {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var obj map[string]any
	if dec.Decode(&obj) != nil {
		return nil
	}
	vals := url.Values{}
	for name, v := range obj {
		if s, ok := rbJSONValue(v); ok {
			vals.Set(name, s)
		}
	}
	return vals
}

func rbJSONValue(v any) (string, bool) {
	switch v := v.(type) {
	case string:
		return v, true
	case json.Number:
		return v.String(), true
	case bool:
		return strconv.FormatBool(v), true
	case []any:
		parts := make([]string, 0, len(v))
		for _, e := range v {
			s, _ := e.(string)
			if s = strings.TrimSpace(s); s != "" {
				parts = append(parts, s)
			}
		}
		return strings.Join(parts, ","), true
	}
	return "", false
}
