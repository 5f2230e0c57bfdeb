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

package lint

import (
	"fmt"
	"io"
	"strings"
)

// Severity tells a refusal from what is only said.
type Severity string

const (
	// Refused: kube-apiserver or the operator would refuse the object.
	Refused Severity = "refused"
	// Warning: admitted, with a warning (as the webhook's).
	Warning Severity = "warning"
	// Note: not checked, or checked in part, and why.
	Note Severity = "note"
)

// Finding is one thing said about a document.
type Finding struct {
	File     string
	Document int
	// Kind and Name of the object, when the document has them.
	Kind, Name string
	// Field is the path at fault ("spec.pluginConfig[0].args"), when known.
	Field    string
	Severity Severity
	// Reason is the condition reason the operator would give (or
	// Invalid, UnknownField, StrictDecoding for kube-apiserver's).
	Reason  string
	Message string
}

// String is the finding as kubectl sp lint prints it:
// FILE:DOCUMENT: KIND NAME: SEVERITY: REASON: FIELD: MESSAGE.
func (f Finding) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s:%d:", f.File, f.Document)
	if f.Kind != "" {
		fmt.Fprintf(&b, " %s %s:", f.Kind, f.Name)
	}
	fmt.Fprintf(&b, " %s", f.Severity)
	if f.Reason != "" {
		fmt.Fprintf(&b, ": %s", f.Reason)
	}
	if f.Field != "" && !strings.Contains(f.Message, f.Field) {
		fmt.Fprintf(&b, ": %s", f.Field)
	}
	fmt.Fprintf(&b, ": %s", f.Message)
	return b.String()
}

// Result is what Documents found.
type Result struct {
	// Checked counts the objects of the operator's kinds.
	Checked int
	// Findings, in the order of the documents.
	Findings []Finding
}

// Refused counts the refusals.
func (r Result) Refused() int {
	n := 0
	for _, f := range r.Findings {
		if f.Severity == Refused {
			n++
		}
	}
	return n
}

// Print writes the findings, one a line, then a summary line.
func (r Result) Print(w io.Writer) error {
	for _, f := range r.Findings {
		if _, err := fmt.Fprintln(w, f); err != nil {
			return err
		}
	}
	objects := "objects"
	if r.Checked == 1 {
		objects = "object"
	}
	_, err := fmt.Fprintf(w, "%d %s checked, %d refused\n", r.Checked, objects, r.Refused())
	return err
}
