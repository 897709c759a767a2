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

// The parameters of the compatible API under /json/: one row each, read
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

// UpParam is one parameter of the compatible API.
type UpParam uint8

const (
	upName UpParam = iota
	UpNameExact
	upCountry
	upCountryExact
	UpCountryCode
	upState
	upStateExact
	upLanguage
	upLanguageExact
	upTag
	upTagExact
	UpTagList
	UpCodec
	upCodecExact
	UpBitrateMin
	upBitrateMax
	UpHasGeoInfo
	UpHasExtendedInfo
	UpIsHTTPS
	upGeoLat
	upGeoLong
	upGeoDistance
	UpOrder
	upReverse
	upOffset
	UpLimit
	UpHideBroken
	upUUIDs
	upURL
	NumUpParams
)

// upKind is how a parameter's value is checked.
type upKind uint8

const (
	upText    upKind = iota // any text up to maxUpTextBytes
	upFlag                  // true or false
	upCount                 // a decimal whole number up to maxUpCount
	upDecimal               // a finite decimal number
)

// upParamRow is a parameter as the upstream documentation spells it.
type upParamRow struct {
	Name string
	kind upKind
}

var UpParamRows = [NumUpParams]upParamRow{
	upName: {"name", upText}, UpNameExact: {"nameExact", upFlag},
	upCountry: {"country", upText}, upCountryExact: {"countryExact", upFlag},
	UpCountryCode: {"countrycode", upText},
	upState:       {"state", upText}, upStateExact: {"stateExact", upFlag},
	upLanguage: {"language", upText}, upLanguageExact: {"languageExact", upFlag},
	upTag: {"tag", upText}, upTagExact: {"tagExact", upFlag}, UpTagList: {"tagList", upText},
	UpCodec: {"codec", upText}, upCodecExact: {"codecExact", upFlag}, UpBitrateMin: {"bitrateMin", upCount}, upBitrateMax: {"bitrateMax", upCount},
	UpHasGeoInfo: {"has_geo_info", upFlag}, UpHasExtendedInfo: {"has_extended_info", upFlag},
	UpIsHTTPS: {"is_https", upFlag}, upGeoLat: {"geo_lat", upDecimal}, upGeoLong: {"geo_long", upDecimal},
	upGeoDistance: {"geo_distance", upDecimal},
	UpOrder:       {"order", upText}, upReverse: {"reverse", upFlag}, upOffset: {"offset", upCount},
	UpLimit: {"limit", upCount}, UpHideBroken: {"hidebroken", upFlag},
	upUUIDs: {"uuids", upText}, upURL: {"url", upText},
}

// Bounds of values. A url may be as long as the longest the index keeps
// (indexer.MaxURLBytes); a count above maxUpCount asks for more than any
// snapshot holds.
const (
	MaxUpTextBytes = 4096
	maxUpCount     = 999_999_999
	MaxUpBodyBytes = 64 << 10
)

// upParamSet is a set of parameters, one bit each.
type upParamSet uint32

func upSet(ps ...UpParam) upParamSet {
	var s upParamSet
	for _, p := range ps {
		s |= 1 << p
	}
	return s
}

func (s upParamSet) Has(p UpParam) bool { return s&(1<<p) != 0 }

// The parameter sets of the paths.
var (
	UpPaging       = upSet(UpOrder, upReverse, upOffset, UpLimit, UpHideBroken)
	UpSearchParams = UpPaging | upSet(upName, UpNameExact, upCountry, upCountryExact, UpCountryCode,
		upState, upStateExact, upLanguage, upLanguageExact, upTag, upTagExact, UpTagList, UpCodec, upCodecExact,
		UpBitrateMin, upBitrateMax, UpHasGeoInfo, UpHasExtendedInfo, UpIsHTTPS, upGeoLat, upGeoLong, upGeoDistance)
)

// UpParamByName finds a row by its name folded as upFoldName folds it.
var UpParamByName = func() map[string]UpParam {
	m := make(map[string]UpParam, NumUpParams)
	for p, row := range UpParamRows {
		m[UpFoldName(row.Name)] = UpParam(p)
	}
	return m
}()

// UpFoldName is a parameter name with case and underscores left out.
func UpFoldName(name string) string {
	return strings.ReplaceAll(strings.ToLower(name), "_", "")
}

// upParams are the parameters of one request: a value for each given.
type upParams struct {
	given  upParamSet
	values [NumUpParams]string
}

func (p *upParams) Has(q UpParam) bool    { return p.given.Has(q) }
func (p *upParams) Text(q UpParam) string { return p.values[q] }
func (p *upParams) flag(q UpParam) bool   { return p.values[q] == "true" }
func (p *upParams) count(q UpParam, def int) int {
	if !p.Has(q) {
		return def
	}
	n, _ := strconv.Atoi(p.values[q]) // checked by checkUpValue
	return n
}

func (p *upParams) decimal(q UpParam) float64 {
	f, _ := strconv.ParseFloat(p.values[q], 64) // checked by checkUpValue
	return f
}

// canonical is the parameters as one string, in row order: what names
// an answer in the response cache, wherever the values came from.
func (p *upParams) canonical() string {
	v := url.Values{}
	for q := range NumUpParams {
		if p.Has(q) {
			v.Set(UpParamRows[q].Name, p.values[q])
		}
	}
	return v.Encode()
}

// ParseUpParams reads the parameters of r that the path takes.
func ParseUpParams(r *http.Request, takes upParamSet) (upParams, error) {
	var p upParams
	query, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return p, core.Errorf(core.CodeInvalidRequest, "the query string cannot be read: %v", err)
	}
	if err := p.add(query, takes, false); err != nil {
		return p, err
	}
	body, err := readUpBody(r)
	if err != nil {
		return p, err
	}
	return p, p.add(body, takes, true)
}

// add takes the values of vals; override lets them replace values given
// before (the body's replace the query string's, as upstream), but not
// one another: two names of one parameter in vals (countryCode and
// countrycode) are a repeat wherever they come from.
func (p *upParams) add(vals url.Values, takes upParamSet, override bool) error {
	var here upParamSet
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range vals {
			if !yield(k) {
				return
			}
		}
	}) {
		q, ok := UpParamByName[UpFoldName(name)]
		if !ok || !takes.Has(q) {
			return core.Errorf(core.CodeUnknownParameter, "this path takes no parameter %s; it takes %s", core.QuoteClip(name), takes.Names())
		}
		if len(vals[name]) > 1 || here.Has(q) || p.Has(q) && !override {
			return core.Errorf(core.CodeRepeatedParameter, "parameter %s is given more than once", UpParamRows[q].Name)
		}
		if err := checkUpValue(q, vals[name][0]); err != nil {
			return err
		}
		here |= 1 << q
		p.given |= 1 << q
		p.values[q] = vals[name][0]
	}
	return nil
}

// Names lists the parameters of s, for messages.
func (s upParamSet) Names() string {
	var names []string
	for q := range NumUpParams {
		if s.Has(q) {
			names = append(names, UpParamRows[q].Name)
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// checkUpValue checks a value against its row's kind.
func checkUpValue(q UpParam, v string) error {
	row := UpParamRows[q]
	switch {
	case len(v) > MaxUpTextBytes || !utf8.ValidString(v):
		return core.Errorf(core.CodeInvalidParameter, "%s must be UTF-8 text of at most %d bytes", row.Name, MaxUpTextBytes)
	case row.kind == upFlag && v != "true" && v != "false":
		return core.Errorf(core.CodeInvalidParameter, "%s must be true or false, not %s", row.Name, core.QuoteClip(v))
	case row.kind == upCount && !isUpCount(v):
		return core.Errorf(core.CodeInvalidParameter, "%s must be a whole number from 0 to %d, not %s", row.Name, maxUpCount, core.QuoteClip(v))
	case row.kind == upDecimal && !isUpDecimal(v):
		return core.Errorf(core.CodeInvalidParameter, "%s must be a decimal number, not %s", row.Name, core.QuoteClip(v))
	}
	return nil
}

func isUpCount(v string) bool {
	if v == "" || len(v) > len(strconv.Itoa(maxUpCount)) {
		return false
	}
	for i := 0; i < len(v); i++ {
		if v[i] < '0' || v[i] > '9' {
			return false
		}
	}
	n, _ := strconv.Atoi(v)
	return n <= maxUpCount
}

func isUpDecimal(v string) bool {
	f, err := strconv.ParseFloat(v, 64)
	return err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) && !strings.ContainsAny(v, "xXpP_")
}

// readUpBody reads the parameters of a POST body: a form (urlencoded or
// multipart) or a JSON object. Other requests have none.
func readUpBody(r *http.Request) (url.Values, error) {
	if r.Method != http.MethodPost || !core.HasBody(r) {
		return nil, nil
	}
	media, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil {
		media = ""
	}
	r.Body = http.MaxBytesReader(nil, r.Body, MaxUpBodyBytes)
	switch media {
	case "application/x-www-form-urlencoded":
		b, err := io.ReadAll(r.Body)
		if err != nil {
			return nil, upBodyError(err)
		}
		v, err := url.ParseQuery(string(b))
		if err != nil {
			return nil, core.Errorf(core.CodeInvalidRequest, "the form body cannot be read: %v", err)
		}
		return v, nil
	case "multipart/form-data":
		if err := r.ParseMultipartForm(MaxUpBodyBytes); err != nil {
			return nil, upBodyError(err)
		}
		return url.Values(r.MultipartForm.Value), nil
	case "application/json":
		return readUpJSON(r.Body)
	}
	return nil, core.Errorf(core.CodeInvalidRequest, "a POST body must be a form (application/x-www-form-urlencoded or multipart/form-data) or application/json")
}

func upBodyError(err error) error {
	return core.Errorf(core.CodeInvalidRequest, "the body cannot be read (at most %d bytes): %v", MaxUpBodyBytes, err)
}

// readUpJSON reads a JSON object of parameters: strings as they are,
// numbers and booleans as written, arrays (tagList, uuids) joined with
// commas, as upstream reads them. Nested objects are refused.
func readUpJSON(body io.Reader) (url.Values, error) {
	dec := json.NewDecoder(body)
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil {
		return nil, core.Errorf(core.CodeInvalidRequest, "the JSON body must be one object of parameters: %v", err)
	}
	vals := url.Values{}
	for name, v := range obj {
		s, ok := upJSONValue(v)
		if !ok {
			return nil, core.Errorf(core.CodeInvalidParameter, "parameter %s must be a string, number, boolean or list of them", core.QuoteClip(name))
		}
		if v != nil {
			vals.Set(name, s)
		}
	}
	return vals, nil
}

func upJSONValue(v any) (string, bool) {
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
			s, ok := upJSONValue(e)
			if _, nested := e.([]any); !ok || nested || e == nil {
				return "", false
			}
			parts[i] = s
		}
		return strings.Join(parts, ","), true
	}
	return "", false
}
