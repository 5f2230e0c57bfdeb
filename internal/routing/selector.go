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

package routing

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// selector is a validated label selector: the upstream labels.Selector
// for matching in Go, and its requirements, in order, for CEL and for
// comparing selectors. A nil *selector selects everything.
type selector struct {
	match labels.Selector
	reqs  []requirement
}

type requirement struct {
	key    string
	op     metav1.LabelSelectorOperator
	values []string
}

// compileSelector validates ls, naming the field at fault under path, and
// compiles it. A nil ls compiles to nil (everything).
func compileSelector(ls *metav1.LabelSelector, path *field.Path) (*selector, error) {
	if ls == nil {
		return nil, nil
	}
	if errs := metav1validation.ValidateLabelSelector(ls, metav1validation.LabelSelectorValidationOptions{}, path); len(errs) > 0 {
		return nil, errs.ToAggregate()
	}
	match, err := metav1.LabelSelectorAsSelector(ls)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	s := &selector{match: match}
	for _, k := range slices.Sorted(maps.Keys(ls.MatchLabels)) {
		s.reqs = append(s.reqs, requirement{key: k, op: metav1.LabelSelectorOpIn, values: []string{ls.MatchLabels[k]}})
	}
	for _, e := range ls.MatchExpressions {
		s.reqs = append(s.reqs, requirement{key: e.Key, op: e.Operator, values: slices.Clone(e.Values)})
	}
	return s, nil
}

// matches reports whether the selector selects set.
func (s *selector) matches(set map[string]string) bool {
	return s == nil || s.match.Matches(labels.Set(set))
}

// cel returns a CEL expression, over the map(string, string) expression
// m, that is true exactly when the selector selects m: matchLabels and
// In need the key with one of the values, NotIn the key absent or with
// another value, Exists the key, DoesNotExist its absence (the
// semantics of labels.Selector).
func (s *selector) cel(m string) string {
	if s == nil || len(s.reqs) == 0 {
		return "true"
	}
	terms := make([]string, 0, len(s.reqs))
	for _, r := range s.reqs {
		k := quote(r.key)
		switch r.op {
		case metav1.LabelSelectorOpIn:
			terms = append(terms, fmt.Sprintf("(%s in %s && %s[%s] in %s)", k, m, m, k, quoteList(r.values)))
		case metav1.LabelSelectorOpNotIn:
			terms = append(terms, fmt.Sprintf("(!(%s in %s) || !(%s[%s] in %s))", k, m, m, k, quoteList(r.values)))
		case metav1.LabelSelectorOpExists:
			terms = append(terms, fmt.Sprintf("(%s in %s)", k, m))
		case metav1.LabelSelectorOpDoesNotExist:
			terms = append(terms, fmt.Sprintf("!(%s in %s)", k, m))
		}
	}
	return strings.Join(terms, " && ")
}

// names reports whether the selector names namespace ns: a requirement on
// the label kubernetes.io/metadata.name that needs the value ns.
func (s *selector) names(ns string) bool {
	if s == nil {
		return false
	}
	for _, r := range s.reqs {
		if r.key == corev1.LabelMetadataName && r.op == metav1.LabelSelectorOpIn && slices.Contains(r.values, ns) {
			return true
		}
	}
	return false
}

// keyConstraint is what a selector asks of one label key.
type keyConstraint struct {
	present, absent bool
	// allowed values; nil when any value is allowed.
	allowed   sets.Set[string]
	forbidden sets.Set[string]
}

func (s *selector) constraints() map[string]*keyConstraint {
	out := map[string]*keyConstraint{}
	if s == nil {
		return out
	}
	for _, r := range s.reqs {
		c := out[r.key]
		if c == nil {
			c = &keyConstraint{forbidden: sets.New[string]()}
			out[r.key] = c
		}
		switch r.op {
		case metav1.LabelSelectorOpIn:
			c.present = true
			if c.allowed == nil {
				c.allowed = sets.New(r.values...)
			} else {
				c.allowed = c.allowed.Intersection(sets.New(r.values...))
			}
		case metav1.LabelSelectorOpNotIn:
			c.forbidden.Insert(r.values...)
		case metav1.LabelSelectorOpExists:
			c.present = true
		case metav1.LabelSelectorOpDoesNotExist:
			c.absent = true
		}
	}
	return out
}

// excludes reports whether no label set is selected by both a and b
// because of one key they both constrain: one needs the key and the other
// its absence, or the values one allows are all absent from, or
// forbidden by, the other.
func excludes(a, b *selector) bool {
	ca, cb := a.constraints(), b.constraints()
	for k, x := range ca {
		y, ok := cb[k]
		if !ok {
			continue
		}
		switch {
		case x.present && y.absent, x.absent && y.present:
			return true
		case x.allowed != nil && y.allowed != nil && x.allowed.Intersection(y.allowed).Len() == 0:
			return true
		case x.allowed != nil && y.forbidden.IsSuperset(x.allowed):
			return true
		case y.allowed != nil && x.forbidden.IsSuperset(y.allowed):
			return true
		}
	}
	return false
}

// quote returns s as a CEL string literal. Go's double-quoted escapes are
// a subset of CEL's.
func quote(s string) string {
	return strconv.Quote(s)
}

func quoteList(vs []string) string {
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = quote(v)
	}
	return "[" + strings.Join(q, ", ") + "]"
}
