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

// Package decode turns JSON that the API server stored without a schema
// (a review's pod template, a plugin's args) into a Go type, strictly, and
// names the field at fault by its path in the object: unknown fields,
// values of the wrong JSON type and values a type's own decoder refuses
// (a quantity such as "two") all come back as field errors.
//
// Strict (decode.go) is the whole package; its table tests and a fuzz
// target (FuzzStrict) hold it to the rules below.
//
// It never panics on input and never decodes partially into the caller's
// value: on error, into is left as it was.
package decode
