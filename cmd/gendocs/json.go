package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// value is a JSON value that keeps the order of an object's members and
// the text of every scalar as it was read, so that a document written
// back unchanged is the same bytes.
type value struct {
	members []member        // an object's, in order (object: true)
	items   []*value        // an array's
	raw     json.RawMessage // a scalar's text
	object  bool
	array   bool
}

type member struct {
	key string
	val *value
}

// parse reads one JSON value.
func parse(raw []byte) (*value, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil, fmt.Errorf("empty value")
	}
	switch raw[0] {
	case '{', '[':
	default:
		if !json.Valid(raw) {
			return nil, fmt.Errorf("invalid JSON %.40q", raw)
		}
		return &value{raw: raw}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	v := &value{object: raw[0] == '{', array: raw[0] == '['}
	for dec.More() {
		var key string
		if v.object {
			t, err := dec.Token()
			if err != nil {
				return nil, err
			}
			key = t.(string)
		}
		var elem json.RawMessage
		if err := dec.Decode(&elem); err != nil {
			return nil, err
		}
		e, err := parse(elem)
		if err != nil {
			return nil, err
		}
		if v.object {
			v.members = append(v.members, member{key, e})
		} else {
			v.items = append(v.items, e)
		}
	}
	return v, nil
}

// str is a JSON string value.
func str(s string) *value { return &value{raw: quote(s)} }

// obj is a JSON object of the members given as key, value pairs.
func obj(kv ...any) *value {
	v := &value{object: true}
	for i := 0; i < len(kv); i += 2 {
		v.members = append(v.members, member{kv[i].(string), kv[i+1].(*value)})
	}
	return v
}

// arr is a JSON array.
func arr(items ...*value) *value { return &value{array: true, items: items} }

// num is a JSON number or literal.
func num(text string) *value { return &value{raw: json.RawMessage(text)} }

// quote is s as a JSON string, as the document writes strings: ASCII,
// with HTML's characters as they are.
func quote(s string) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		panic(err) // a string always encodes
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// get is the member key of an object, nil when it has none.
func (v *value) get(key string) *value {
	for _, m := range v.members {
		if m.key == key {
			return m.val
		}
	}
	return nil
}

// path follows keys from v, nil when one is missing.
func (v *value) path(keys ...string) *value {
	for _, k := range keys {
		if v == nil {
			return nil
		}
		v = v.get(k)
	}
	return v
}

// set gives key the value val: in its place when the object has it, else
// after the member after (or last, when it has none).
func (v *value) set(key string, val *value, after string) {
	for i := range v.members {
		if v.members[i].key == key {
			v.members[i].val = val
			return
		}
	}
	at := len(v.members)
	for i := range v.members {
		if v.members[i].key == after {
			at = i + 1
		}
	}
	v.members = append(v.members[:at], append([]member{{key, val}}, v.members[at:]...)...)
}

// text is a string value's text ("" for anything else).
func (v *value) text() string {
	var s string
	if v == nil || json.Unmarshal(v.raw, &s) != nil {
		return ""
	}
	return s
}

// write appends v to b as the document is written: two spaces per level,
// a member or item per line, empty containers as {} and [].
func (v *value) write(b *strings.Builder, indent string) {
	switch {
	case v.object && len(v.members) == 0:
		b.WriteString("{}")
	case v.array && len(v.items) == 0:
		b.WriteString("[]")
	case v.object:
		b.WriteString("{")
		for i, m := range v.members {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString("\n" + indent + "  ")
			b.Write(quote(m.key))
			b.WriteString(": ")
			m.val.write(b, indent+"  ")
		}
		b.WriteString("\n" + indent + "}")
	case v.array:
		b.WriteString("[")
		for i, it := range v.items {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString("\n" + indent + "  ")
			it.write(b, indent+"  ")
		}
		b.WriteString("\n" + indent + "]")
	default:
		b.Write(v.raw)
	}
}

// walkStrings calls fn with every string value under v, replacing it with
// what fn returns.
func (v *value) walkStrings(fn func(string) string) {
	switch {
	case v.object:
		for _, m := range v.members {
			m.val.walkStrings(fn)
		}
	case v.array:
		for _, it := range v.items {
			it.walkStrings(fn)
		}
	case len(v.raw) > 0 && v.raw[0] == '"':
		if s := v.text(); fn(s) != s {
			v.raw = quote(fn(s))
		}
	}
}
