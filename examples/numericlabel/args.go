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

package numericlabel

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// DefaultLabelKey is the label read when args name none.
const DefaultLabelKey = "example.com/rank"

// NumericLabelArgs are the args of NumericLabel, as a SchedulerProfile's
// pluginConfig gives them:
//
//	pluginConfig:
//	- name: NumericLabel
//	  args: {labelKey: example.com/cost, preferLow: true}
type NumericLabelArgs struct {
	metav1.TypeMeta `json:",inline"`

	// LabelKey is the node label whose integer value ranks nodes.
	// Default: DefaultLabelKey.
	LabelKey string `json:"labelKey,omitempty"`
	// PreferLow ranks the lowest value first; by default the highest wins.
	PreferLow bool `json:"preferLow,omitempty"`
}

// DeepCopyObject implements runtime.Object.
func (a *NumericLabelArgs) DeepCopyObject() runtime.Object {
	c := *a
	return &c
}

var _ runtime.Object = &NumericLabelArgs{}

// SetDefaults fills in what args leave unset.
func SetDefaults(args *NumericLabelArgs) {
	if args.LabelKey == "" {
		args.LabelKey = DefaultLabelKey
	}
}

// ValidateArgs checks args; path is where they are in the profile
// (spec.pluginConfig[i].args), so an error names the field.
func ValidateArgs(path *field.Path, args *NumericLabelArgs) error {
	var errs field.ErrorList
	for _, msg := range validation.IsQualifiedName(args.LabelKey) {
		errs = append(errs, field.Invalid(path.Child("labelKey"), args.LabelKey, msg))
	}
	return errs.ToAggregate()
}
