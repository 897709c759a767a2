package rbapi

import (
	"encoding/json"
	"io"
	"math"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"stationdex/server/core"
)

// The parameters of the Radio Browser API under /json/: one row each, read
// from the query string, a form body (urlencoded or multipart) or a JSON
// body, as the upstream server reads them, with the body winning over the
// query string. Where the upstream server is lenient to a fault, this
// one refuses (a 400 with a JSON body):
//
//   - a name is matched ignoring case and underscores, because the npm
//     client lowercases every name (bitratemin, hasextendedinfo) and
//     others send the documented spelling (bitrateMin,
//     has_extended_info); a name no row has, or one the path does not
//     take, is unknown (upstream ignored it, so a misspelt filter
//     silently did not filter);
//   - a boolean is exactly true or false (upstream: anything else was
//     false, or a 500 for three of them);
//   - a count is a plain decimal (upstream: anything else was its
//     default, so limit=abc answered 999999 stations).

// RBParam is one parameter of the Radio Browser API.
type RBParam uint8

const (
	rbName RBParam = iota
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
	rbReverse
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
	rbName: {"name", rbText}, RBNameExact: {"nameExact", rbFlag},
	rbCountry: {"country", rbText}, rbCountryExact: {"countryExact", rbFlag},
	RBCountryCode: {"countrycode", rbText},
	rbState:       {"state", rbText}, rbStateExact: {"stateExact", rbFlag},
	rbLanguage: {"language", rbText}, rbLanguageExact: {"languageExact", rbFlag},
	rbTag: {"tag", rbText}, rbTagExact: {"tagExact", rbFlag}, RBTagList: {"tagList", rbText},
	RBCodec: {"codec", rbText}, rbCodecExact: {"codecExact", rbFlag}, RBBitrateMin: {"bitrateMin", rbCount}, rbBitrateMax: {"bitrateMax", rbCount},
	RBHasGeoInfo: {"has_geo_info", rbFlag}, RBHasExtendedInfo: {"has_extended_info", rbFlag},
	RBIsHTTPS: {"is_https", rbFlag}, rbGeoLat: {"geo_lat", rbDecimal}, rbGeoLong: {"geo_long", rbDecimal},
	rbGeoDistance: {"geo_distance", rbDecimal},
	RBOrder:       {"order", rbText}, rbReverse: {"reverse", rbFlag}, rbOffset: {"offset", rbCount},
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
	RBPaging       = rbSet(RBOrder, rbReverse, rbOffset, RBLimit, RBHideBroken)
	RBSearchParams = RBPaging | rbSet(rbName, RBNameExact, rbCountry, rbCountryExact, RBCountryCode,
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

// rbParams are the parameters of one request: a value for each given.
type rbParams struct {
	given  rbParamSet
	values [NumRBParams]string
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

// add takes the values of vals; override lets them replace values given
// before (the body's replace the query string's, as upstream), but not
// one another: two names of one parameter in vals (countryCode and
// countrycode) are a repeat wherever they come from.
func (p *rbParams) add(vals url.Values, takes rbParamSet, override bool) error {
	var here rbParamSet
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range vals {
			if !yield(k) {
				return
			}
		}
	}) {
		q, ok := RBParamByName[RBFoldName(name)]
		if !ok || !takes.Has(q) {
			return core.Errorf(core.CodeUnknownParameter, "this path takes no parameter %s; it takes %s", core.QuoteClip(name), takes.Names())
		}
		if len(vals[name]) > 1 || here.Has(q) || p.Has(q) && !override {
			return core.Errorf(core.CodeRepeatedParameter, "parameter %s is given more than once", RBParamRows[q].Name)
		}
		if err := checkRBValue(q, vals[name][0]); err != nil {
			return err
		}
		here |= 1 << q
		p.given |= 1 << q
		p.values[q] = vals[name][0]
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

// checkRBValue checks a value against its row's kind.
func checkRBValue(q RBParam, v string) error {
	row := RBParamRows[q]
	switch {
	case len(v) > MaxRBTextBytes || !utf8.ValidString(v):
		return core.Errorf(core.CodeInvalidParameter, "%s must be UTF-8 text of at most %d bytes", row.Name, MaxRBTextBytes)
	case row.kind == rbFlag && v != "true" && v != "false":
		return core.Errorf(core.CodeInvalidParameter, "%s must be true or false, not %s", row.Name, core.QuoteClip(v))
	case row.kind == rbCount && !isRBCount(v):
		return core.Errorf(core.CodeInvalidParameter, "%s must be a whole number from 0 to %d, not %s", row.Name, maxRBCount, core.QuoteClip(v))
	case row.kind == rbDecimal && !isRBDecimal(v):
		return core.Errorf(core.CodeInvalidParameter, "%s must be a decimal number, not %s", row.Name, core.QuoteClip(v))
	}
	return nil
}

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
// multipart) or a JSON object. Other requests have none.
func readRBBody(r *http.Request) (url.Values, error) {
	if r.Method != http.MethodPost || !core.HasBody(r) {
		return nil, nil
	}
	media, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil {
		media = ""
	}
	r.Body = http.MaxBytesReader(nil, r.Body, MaxRBBodyBytes)
	switch media {
	case "application/x-www-form-urlencoded":
		b, err := io.ReadAll(r.Body)
		if err != nil {
			return nil, rbBodyError(err)
		}
		v, err := url.ParseQuery(string(b))
		if err != nil {
			return nil, core.Errorf(core.CodeInvalidRequest, "the form body cannot be read: %v", err)
		}
		return v, nil
	case "multipart/form-data":
		if err := r.ParseMultipartForm(MaxRBBodyBytes); err != nil {
			return nil, rbBodyError(err)
		}
		return url.Values(r.MultipartForm.Value), nil
	case "application/json":
		return readRBJSON(r.Body)
	}
	return nil, core.Errorf(core.CodeInvalidRequest, "a POST body must be a form (application/x-www-form-urlencoded or multipart/form-data) or application/json")
}

func rbBodyError(err error) error {
	return core.Errorf(core.CodeInvalidRequest, "the body cannot be read (at most %d bytes): %v", MaxRBBodyBytes, err)
}

// readRBJSON reads a JSON object of parameters: strings as they are,
// numbers and booleans as written, arrays (tagList, uuids) joined with
// commas, as upstream reads them. Nested objects are refused.
func readRBJSON(body io.Reader) (url.Values, error) {
	dec := json.NewDecoder(body)
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil {
		return nil, core.Errorf(core.CodeInvalidRequest, "the JSON body must be one object of parameters: %v", err)
	}
	vals := url.Values{}
	for name, v := range obj {
		s, ok := rbJSONValue(v)
		if !ok {
			return nil, core.Errorf(core.CodeInvalidParameter, "parameter %s must be a string, number, boolean or list of them", core.QuoteClip(name))
		}
		if v != nil {
			vals.Set(name, s)
		}
	}
	return vals, nil
}

func rbJSONValue(v any) (string, bool) {
	switch v := v.(type) {
	case nil:
		return "", true
	case string:
		return v, true
	case json.Number:
		return v.String(), true
	case bool:
		return strconv.FormatBool(v), true
	case []any:
		parts := make([]string, len(v))
		for i, e := range v {
			s, ok := rbJSONValue(e)
			if _, nested := e.([]any); !ok || nested || e == nil {
				return "", false
			}
			parts[i] = s
		}
		return strings.Join(parts, ","), true
	}
	return "", false
}
