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

// Package validation checks the Deadline plugin's args, as upstream's
// pkg/scheduler/apis/config/validation checks in-tree plugins' args: on the
// internal type, after defaulting and conversion.
package validation

import (
	"time"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/profile-scheduler/profile-scheduler/examples/deadline/apis/config"
)

// maxDuration bounds the deadlines and the urgency window.
const maxDuration = 7 * 24 * time.Hour

// ValidateDeadlineArgs checks args; path is where they are in the profile
// (spec.pluginConfig[i].args), so each error names its field by the name
// users write.
func ValidateDeadlineArgs(path *field.Path, args *config.DeadlineArgs) error {
	var errs field.ErrorList
	for _, msg := range validation.IsQualifiedName(args.DeadlineAnnotation) {
		errs = append(errs, field.Invalid(path.Child("deadlineAnnotation"), args.DeadlineAnnotation, msg))
	}
	for _, msg := range validation.IsQualifiedName(args.FastNodeLabel) {
		errs = append(errs, field.Invalid(path.Child("fastNodeLabel"), args.FastNodeLabel, msg))
	}
	for _, d := range []struct {
		name  string
		value time.Duration
	}{{"defaultDeadlineSeconds", args.DefaultDeadline}, {"urgentWithinSeconds", args.UrgentWithin}} {
		if d.value <= 0 || d.value > maxDuration {
			errs = append(errs, field.Invalid(path.Child(d.name), int64(d.value/time.Second), "must be greater than 0 and at most 604800 (7 days)"))
		}
	}
	return errs.ToAggregate()
}
