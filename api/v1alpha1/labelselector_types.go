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

package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Label selector bounds: a selector of a route is compiled into the
// routes' CEL expression, so its size, times MaxProfileRoutes, is what
// kube-apiserver stores and runs for every new pod.
const (
	// MaxSelectorLabels bounds matchLabels.
	MaxSelectorLabels = 8
	// MaxSelectorExpressions bounds matchExpressions.
	MaxSelectorExpressions = 4
	// MaxSelectorValues bounds the values of one expression.
	MaxSelectorValues = 8
)

// LabelSelector is metav1.LabelSelector, the same JSON, with bounds on
// its sizes: at most 8 matchLabels, 4 matchExpressions of 8 values each,
// keys of at most 317 characters (a 253-character prefix, "/" and a
// 63-character name) and values of at most 63, as labels are.
// +kubebuilder:validation:XValidation:rule="!has(self.matchLabels) || self.matchLabels.all(k, k.size() <= 317 && self.matchLabels[k].size() <= 63)",message="matchLabels keys must be at most 317 characters and values at most 63"
type LabelSelector struct {
	// MatchLabels is a map of {key,value} pairs, each the same as an In
	// requirement with one value.
	// +optional
	// +kubebuilder:validation:MaxProperties=8
	MatchLabels map[string]string `json:"matchLabels,omitempty"`
	// MatchExpressions are requirements, all of which must hold.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=4
	MatchExpressions []LabelSelectorRequirement `json:"matchExpressions,omitempty"`
}

// LabelSelectorRequirement is metav1.LabelSelectorRequirement with bounds.
type LabelSelectorRequirement struct {
	// Key is the label key the requirement applies to.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=317
	Key string `json:"key"`
	// Operator is In, NotIn, Exists or DoesNotExist.
	// +kubebuilder:validation:Enum=In;NotIn;Exists;DoesNotExist
	Operator metav1.LabelSelectorOperator `json:"operator"`
	// Values: one or more for In and NotIn, none for Exists and
	// DoesNotExist.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=8
	// +kubebuilder:validation:items:MaxLength=63
	Values []string `json:"values,omitempty"`
}

// AsMeta is the selector as metav1.LabelSelector (nil for nil).
func (s *LabelSelector) AsMeta() *metav1.LabelSelector {
	if s == nil {
		return nil
	}
	out := &metav1.LabelSelector{MatchLabels: s.MatchLabels}
	for _, e := range s.MatchExpressions {
		out.MatchExpressions = append(out.MatchExpressions, metav1.LabelSelectorRequirement{Key: e.Key, Operator: e.Operator, Values: e.Values})
	}
	return out
}

// SelectorFromMeta is ls as a LabelSelector (nil for nil).
func SelectorFromMeta(ls *metav1.LabelSelector) *LabelSelector {
	if ls == nil {
		return nil
	}
	out := &LabelSelector{MatchLabels: ls.MatchLabels}
	for _, e := range ls.MatchExpressions {
		out.MatchExpressions = append(out.MatchExpressions, LabelSelectorRequirement{Key: e.Key, Operator: e.Operator, Values: e.Values})
	}
	return out
}
