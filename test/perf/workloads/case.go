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

package workloads

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"text/template"
)

// Case is one workload: what to create, in which order, with which profile.
type Case struct {
	// Name identifies the case on the command line and in reports.
	Name string `json:"name"`
	// Description says what the case exercises.
	Description string `json:"description"`
	// Params are the default values of the named counts.
	Params map[string]int `json:"params"`
	// Scales override some params under another name (for example small).
	Scales map[string]map[string]int `json:"scales,omitempty"`
	// Profile is a kubescheduler.config.k8s.io/v1 KubeSchedulerProfile
	// without schedulerName (the harness sets it). Upstream gets it in a
	// KubeSchedulerConfiguration file, profile-scheduler as a
	// SchedulerProfile's spec.
	Profile json.RawMessage `json:"profile"`
	// PriorityClasses the case needs (created once, shared by all runs).
	PriorityClasses []PriorityClass `json:"priorityClasses,omitempty"`
	// Steps run in order; the scheduler starts after the last leading
	// createNodes step.
	Steps []Step `json:"steps"`
	// Swap, when set, makes this a profile-swap case: see Swap.
	Swap *Swap `json:"swap,omitempty"`
	// Explain, when set, also measures SchedulingReviews: see Explain.
	Explain *Explain `json:"explain,omitempty"`
	// Coexist, when set, runs two schedulers side by side: see Coexist.
	Coexist *Coexist `json:"coexist,omitempty"`
	// Routes, when set, measures what ProfileRoutes cost pod creation:
	// see Routes.
	Routes *Routes `json:"routes,omitempty"`
	// Rollout, when set, also measures progressive rollouts: see Rollout.
	Rollout *Rollout `json:"rollout,omitempty"`
	// Isolation, when set, measures how far one profile's pods are kept
	// from another's: see Isolation.
	Isolation *Isolation `json:"isolation,omitempty"`
	// Agreement marks a case whose every measured pod has a unique best
	// node by construction: its placements are compared across schedulers.
	Agreement bool `json:"agreement,omitempty"`
	// TimeoutSeconds bounds each wait for pods to be bound.
	TimeoutSeconds Count `json:"timeoutSeconds"`
	// FeatureGates are turned on (or off) on both schedulers for this
	// case's runs, as --feature-gates. GenericWorkload=true also makes the
	// harness's kube-apiserver serve scheduling.k8s.io/v1beta1 (PodGroup);
	// a step with groups needs it.
	FeatureGates map[string]bool `json:"featureGates,omitempty"`

	templates map[string]*template.Template
}

// PriorityClass is a name and a value.
type PriorityClass struct {
	Name  string `json:"name"`
	Value int32  `json:"value"`
}

// Step is exactly one operation.
type Step struct {
	CreateNodes *CreateNodes `json:"createNodes,omitempty"`
	CreatePods  *CreatePods  `json:"createPods,omitempty"`
	Churn       *Churn       `json:"churn,omitempty"`
}

// CreateNodes creates Count nodes named Prefix-<index> from Template.
type CreateNodes struct {
	Count    Count  `json:"count"`
	Prefix   string `json:"prefix"`
	Template string `json:"template"`
}

// CreatePods creates Count pods named Prefix-<index> from Template in the
// run's namespace and waits until all are bound, unless SkipWait. With
// Groups, the pods are the members of PodGroups instead (Count is left
// out): see Groups.
type CreatePods struct {
	Count    Count  `json:"count,omitzero"`
	Prefix   string `json:"prefix"`
	Template string `json:"template"`
	// Measure makes this the measured step (exactly one per non-swap case).
	Measure bool `json:"measure,omitempty"`
	// Rate is how many pods per second the latency run of a measured step
	// creates (the throughput run creates them all while the scheduler is
	// stopped). Required on the measured step.
	Rate Count `json:"rate,omitzero"`
	// SkipWait does not wait for the pods to be bound (unschedulable ones).
	SkipWait bool `json:"skipWait,omitempty"`
	// Groups puts the step's pods into PodGroups (scheduling.k8s.io/v1beta1,
	// gang policy), each created before its members; the members name it in
	// spec.schedulingGroup.podGroupName. Groups of the sets are interleaved
	// (one of each set in turn), members of a group are consecutive pods.
	Groups []GroupSet `json:"groups,omitempty"`
	// ExpectPending marks pods (and groups) that must never be bound: the
	// step does not wait for them, and the measured step's run counts how
	// many of them stayed pending to its end. Not on a measured step.
	ExpectPending bool `json:"expectPending,omitempty"`
}

// GenericWorkload is the feature gate that serves PodGroups and turns on
// pod-group scheduling.
const GenericWorkload = "GenericWorkload"

// FeatureGatesFlag is the case's gates as one --feature-gates flag for the
// schedulers' command lines, sorted by name; "" without gates.
func (c *Case) FeatureGatesFlag() string {
	if len(c.FeatureGates) == 0 {
		return ""
	}
	names := make([]string, 0, len(c.FeatureGates))
	for n := range c.FeatureGates {
		names = append(names, n)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = n + "=" + strconv.FormatBool(c.FeatureGates[n])
	}
	return "--feature-gates=" + strings.Join(parts, ",")
}

// PodGroups reports whether the case needs the PodGroup API (its
// GenericWorkload gate is on).
func (c *Case) PodGroups() bool { return c.FeatureGates[GenericWorkload] }

// Churn recreates a node from Template every IntervalMillis while the
// measured step runs: the new node is created, the previous one deleted.
// With PodTemplate and ServiceTemplate it recreates a pod and a service in
// the run's namespace alongside (scheduler_perf's mixed churn).
type Churn struct {
	Prefix          string `json:"prefix"`
	Template        string `json:"template"`
	PodTemplate     string `json:"podTemplate,omitempty"`
	ServiceTemplate string `json:"serviceTemplate,omitempty"`
	IntervalMillis  Count  `json:"intervalMillis"`
}

// Swap describes the profile-swap benchmark: pods are created at Rate per
// second from PodTemplate while the profile alternates between Profiles
// (Updates times for profile-scheduler, Restarts times for upstream, which
// can only restart). Each profile sends pods to nodes whose NodeLabel has
// its own value, so every bind says which profile placed it.
type Swap struct {
	Rate         Count         `json:"rate"`
	Updates      Count         `json:"updates"`
	Restarts     Count         `json:"restarts"`
	DwellMillis  Count         `json:"dwellMillis"`
	WarmupMillis Count         `json:"warmupMillis"`
	Prefix       string        `json:"prefix"`
	PodTemplate  string        `json:"podTemplate"`
	NodeLabel    string        `json:"nodeLabel"`
	Profiles     []SwapProfile `json:"profiles"`
}

// SwapProfile is one of the alternating profiles.
type SwapProfile struct {
	Name string `json:"name"`
	// NodeLabelValue is the value of Swap.NodeLabel on the nodes this
	// profile places pods on.
	NodeLabelValue string          `json:"nodeLabelValue"`
	Profile        json.RawMessage `json:"profile"`
}

// Count is a number given either literally or as "$name" of a parameter.
type Count struct {
	literal int
	param   string
}

// UnmarshalJSON accepts 12 or "$name".
func (c *Count) UnmarshalJSON(b []byte) error {
	var n int
	if err := json.Unmarshal(b, &n); err == nil {
		c.literal = n
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("count must be a number or \"$param\": %s", b)
	}
	if !strings.HasPrefix(s, "$") || len(s) < 2 {
		if n, err := strconv.Atoi(s); err == nil {
			c.literal = n
			return nil
		}
		return fmt.Errorf("count %q: want a number or \"$param\"", s)
	}
	c.param = s[1:]
	return nil
}

// MarshalJSON writes the count back in the form it was read.
func (c Count) MarshalJSON() ([]byte, error) {
	if c.param != "" {
		return json.Marshal("$" + c.param)
	}
	return json.Marshal(c.literal)
}

// Value resolves the count against parameter values.
func (c Count) Value(params map[string]int) (int, error) {
	if c.param == "" {
		return c.literal, nil
	}
	v, ok := params[c.param]
	if !ok {
		return 0, fmt.Errorf("unknown parameter $%s", c.param)
	}
	return v, nil
}
