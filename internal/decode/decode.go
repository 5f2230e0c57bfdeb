/*
Copyright 2026 The profile-scheduler Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package decode

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
	sigsjson "sigs.k8s.io/json"
)

// Strict decodes data into into (a pointer), as kube-apiserver decodes an
// object: case-sensitive field names, unknown and duplicate fields refused.
// Each error names its field under path: for example
// "spec.podTemplate.spec.containers: Invalid value: \"string\": must be of type array".
func Strict(data []byte, into any, path *field.Path) field.ErrorList {
	rv := reflect.ValueOf(into)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return field.ErrorList{field.InternalError(path, fmt.Errorf("decode into %T: not a non-nil pointer", into))}
	}
	fresh := reflect.New(rv.Elem().Type())
	strict, err := sigsjson.UnmarshalStrict(data, fresh.Interface())
	if err != nil {
		return field.ErrorList{locate(data, rv.Elem().Type(), path, err)}
	}
	if len(strict) > 0 {
		errs := make(field.ErrorList, 0, len(strict))
		for _, e := range strict {
			errs = append(errs, strictError(path, e))
		}
		return errs
	}
	rv.Elem().Set(fresh.Elem())
	return nil
}

// strictError turns one of sigs.k8s.io/json's strict errors (`unknown field
// "containers[0].resourcez"`, `duplicate field "name"`) into a field error.
func strictError(path *field.Path, err error) *field.Error {
	msg := err.Error()
	for _, kind := range []string{"unknown field", "duplicate field"} {
		if rest, ok := strings.CutPrefix(msg, kind+" "); ok {
			return &field.Error{Type: field.ErrorTypeInvalid, Field: join(path, strings.Trim(rest, `"`)), BadValue: field.OmitValueType{}, Detail: kind}
		}
	}
	return field.Invalid(path, nil, msg)
}

// join appends a sub-path as sigs.k8s.io/json writes it ("a.b[0].c") to path.
func join(path *field.Path, sub string) string {
	if path == nil || path.String() == "" {
		return sub
	}
	if strings.HasPrefix(sub, "[") {
		return path.String() + sub
	}
	return path.String() + "." + sub
}

// locate finds the deepest field of data, decoded as t, that its decoder
// refuses, and returns an error naming it. cause is the error decoding the
// whole of data gave; it is reported when no deeper field can be blamed.
func locate(data []byte, t reflect.Type, path *field.Path, cause error) *field.Error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var value any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&value); err != nil {
		return field.Invalid(path, nil, "not valid JSON: "+err.Error())
	}
	if value != nil && !implementsUnmarshaler(t) {
		switch t.Kind() {
		case reflect.Struct:
			obj, ok := value.(map[string]any)
			if !ok {
				return typeError(path, value, t)
			}
			fields := jsonFields(t)
			for _, name := range sortedKeys(obj) {
				f, ok := fields[name]
				if !ok {
					continue // unknown fields are reported by the strict pass
				}
				if e := check(obj[name], f.Type, path.Child(name)); e != nil {
					return e
				}
			}
		case reflect.Slice, reflect.Array:
			if t.Elem().Kind() == reflect.Uint8 && t.Kind() == reflect.Slice {
				break // []byte is a base64 string
			}
			list, ok := value.([]any)
			if !ok {
				return typeError(path, value, t)
			}
			for i, item := range list {
				if e := check(item, t.Elem(), path.Index(i)); e != nil {
					return e
				}
			}
		case reflect.Map:
			obj, ok := value.(map[string]any)
			if !ok {
				return typeError(path, value, t)
			}
			for _, k := range sortedKeys(obj) {
				if e := check(obj[k], t.Elem(), path.Key(k)); e != nil {
					return e
				}
			}
		default:
			// A scalar of the wrong JSON type.
			return typeError(path, value, t)
		}
	}
	return field.Invalid(path, shortValue(value), plainCause(cause, t))
}

// check decodes one value of the parsed document as t and, if t's decoder
// refuses it, locates the field at fault below path.
func check(value any, t reflect.Type, path *field.Path) *field.Error {
	data, err := json.Marshal(value)
	if err != nil {
		return field.Invalid(path, nil, err.Error())
	}
	if err := sigsjson.UnmarshalCaseSensitivePreserveInts(data, reflect.New(t).Interface()); err != nil {
		return locate(data, t, path, err)
	}
	return nil
}

var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

func implementsUnmarshaler(t reflect.Type) bool {
	return reflect.PointerTo(t).Implements(unmarshalerType) || t.Implements(unmarshalerType)
}

// jsonFields maps the JSON names of t's fields (inlined embedded structs
// included) to the fields.
func jsonFields(t reflect.Type) map[string]reflect.StructField {
	out := map[string]reflect.StructField{}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				for k, v := range jsonFields(ft) {
					if _, taken := out[k]; !taken {
						out[k] = v
					}
				}
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f
	}
	return out
}

// typeError says which JSON type the field needs.
func typeError(path *field.Path, value any, t reflect.Type) *field.Error {
	return field.Invalid(path, shortValue(value), "must be of type "+jsonType(t))
}

func jsonType(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		return "object"
	case reflect.Slice, reflect.Array:
		if t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8 {
			return "string"
		}
		return "array"
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return fmt.Sprintf("integer (%s)", t.Kind())
	case reflect.Float32, reflect.Float64:
		return "number"
	}
	return t.String()
}

// shortValue is what an error quotes of a bad value: scalars as they are,
// objects and lists by their JSON type only.
func shortValue(value any) any {
	switch v := value.(type) {
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case json.Number:
		return v.String()
	default:
		return v
	}
}

// plainCause is a decoder's error without the JSON decoder's mention of Go
// struct fields and types, which name Go code rather than the object's
// paths; a type's own decoder's error (a quantity's) is kept as it is.
func plainCause(err error, t reflect.Type) string {
	msg := err.Error()
	if strings.HasPrefix(msg, "json: cannot unmarshal") {
		return "must be of type " + jsonType(t)
	}
	return strings.TrimPrefix(msg, "json: ")
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	// Sorted so that, of several bad fields, the same one is named each time.
	slices.Sort(keys)
	return keys
}
