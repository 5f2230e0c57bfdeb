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

package controllers

import (
	"fmt"
	"sort"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
)

// maxExtenderProfiles bounds status.profiles, as the schema does.
const maxExtenderProfiles = 1000

// extenderStatus computes the status of an ExtenderConfig from the outcome
// of building its upstream extender (refusal nil: it builds) and the
// profiles that reference it. It is pure.
func extenderStatus(st v1alpha1.ExtenderConfigStatus, generation int64, urlPrefix string, refusal *Refusal, profiles []string, now metav1.Time) v1alpha1.ExtenderConfigStatus {
	st = *st.DeepCopy()
	st.ObservedGeneration = generation
	st.Profiles = nil
	if len(profiles) > 0 {
		st.Profiles = append([]string(nil), profiles...)
		sort.Strings(st.Profiles)
		// The schema's maximum (status.profiles).
		st.Profiles = first(st.Profiles, maxExtenderProfiles)
	}
	if refusal == nil {
		setCondition(&st.Conditions, generation, v1alpha1.ConditionReconciling, metav1.ConditionFalse, v1alpha1.ReasonActive, "", now)
		setCondition(&st.Conditions, generation, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonActive,
			fmt.Sprintf("extender %s builds; %d profiles reference it", urlPrefix, len(st.Profiles)), now)
		setCondition(&st.Conditions, generation, v1alpha1.ConditionStalled, metav1.ConditionFalse, v1alpha1.ReasonActive, "", now)
		return st
	}
	msg := fmt.Sprintf("generation %d refused: %s", generation, refusal.Message)
	setCondition(&st.Conditions, generation, v1alpha1.ConditionReconciling, metav1.ConditionFalse, refusal.Reason, "", now)
	setCondition(&st.Conditions, generation, v1alpha1.ConditionReady, metav1.ConditionFalse, refusal.Reason, msg, now)
	setCondition(&st.Conditions, generation, v1alpha1.ConditionStalled, metav1.ConditionTrue, refusal.Reason, msg, now)
	return st
}
