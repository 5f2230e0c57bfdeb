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
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"
	"text/template"

	schedv1 "k8s.io/kube-scheduler/config/v1"
	"sigs.k8s.io/yaml"
)

// Embedded holds the case files (*.yaml) and templates (templates/*.yaml)
// shipped with the benchmark.
//
//go:embed *.yaml templates/*.yaml
var Embedded embed.FS

// ScaleDefault names the parameter values written under params.
const ScaleDefault = "default"

// ScaleSmall and ScaleLarge name the quick set and the set at upstream
// scheduler_perf's sizes (5000 nodes).
const (
	ScaleSmall = "small"
	ScaleLarge = "scale"
)

// Load reads every *.yaml at the top of fsys as a case and the templates
// under templates/, and validates them. Cases come back sorted by the order
// given in order (names not listed come after, alphabetically).
func Load(fsys fs.FS) ([]*Case, error) {
	tpls, err := loadTemplates(fsys)
	if err != nil {
		return nil, err
	}
	files, err := fs.Glob(fsys, "*.yaml")
	if err != nil {
		return nil, err
	}
	var cases []*Case
	seen := map[string]bool{}
	for _, f := range files {
		b, err := fs.ReadFile(fsys, f)
		if err != nil {
			return nil, err
		}
		c := &Case{}
		if err := yaml.UnmarshalStrict(b, c); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		c.templates = tpls
		if err := c.validate(); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		if seen[c.Name] {
			return nil, fmt.Errorf("%s: case %q defined twice", f, c.Name)
		}
		seen[c.Name] = true
		cases = append(cases, c)
	}
	sort.SliceStable(cases, func(i, j int) bool {
		return orderOf(cases[i].Name) < orderOf(cases[j].Name) ||
			orderOf(cases[i].Name) == orderOf(cases[j].Name) && cases[i].Name < cases[j].Name
	})
	return cases, nil
}

// order is the order cases run and appear in reports.
var order = []string{"basic", "node-affinity", "pod-anti-affinity", "topology-spreading",
	"preemption", "unschedulable-churn", "mixed-churn", "placement", "gang", "swap", "explain",
	"rollout", "routes", "coexist", "coexist-memory", "isolation"}

func orderOf(name string) int {
	if i := slices.Index(order, name); i >= 0 {
		return i
	}
	return len(order)
}

func loadTemplates(fsys fs.FS) (map[string]*template.Template, error) {
	files, err := fs.Glob(fsys, "templates/*.yaml")
	if err != nil {
		return nil, err
	}
	out := map[string]*template.Template{}
	for _, f := range files {
		b, err := fs.ReadFile(fsys, f)
		if err != nil {
			return nil, err
		}
		t, err := template.New(path.Base(f)).Option("missingkey=error").Funcs(funcs).Parse(string(b))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		out[path.Base(f)] = t
	}
	return out, nil
}

var funcs = template.FuncMap{
	"add": func(a, b int) int { return a + b },
	"mul": func(a, b int) int { return a * b },
	"div": func(a, b int) int {
		if b == 0 {
			return 0
		}
		return a / b
	},
	"mod": func(a, b int) int {
		if b == 0 {
			return 0
		}
		return a % b
	},
}

// HasScale reports whether the case can run at scale: the default set
// always, another only when the case lists it under scales.
func (c *Case) HasScale(scale string) bool {
	if scale == "" || scale == ScaleDefault {
		return true
	}
	_, ok := c.Scales[scale]
	return ok
}

// Values returns the parameters for a scale ("default" or a key of Scales)
// with overrides applied on top. Unknown override names are errors.
func (c *Case) Values(scale string, overrides map[string]int) (map[string]int, error) {
	v := map[string]int{}
	for k, x := range c.Params {
		v[k] = x
	}
	if scale != "" && scale != ScaleDefault {
		s, ok := c.Scales[scale]
		if !ok {
			return nil, fmt.Errorf("case %s has no scale %q", c.Name, scale)
		}
		for k, x := range s {
			v[k] = x
		}
	}
	for k, x := range overrides {
		if _, ok := v[k]; !ok {
			return nil, fmt.Errorf("case %s has no parameter %q", c.Name, k)
		}
		v[k] = x
	}
	return v, nil
}

// SchedulerProfile decodes raw (a case's or a swap profile's) into the
// upstream v1 type, strictly, and sets its schedulerName.
func SchedulerProfile(raw json.RawMessage, schedulerName string) (schedv1.KubeSchedulerProfile, error) {
	var p schedv1.KubeSchedulerProfile
	if len(raw) > 0 {
		if err := yaml.UnmarshalStrict(raw, &p); err != nil {
			return p, fmt.Errorf("profile: %w", err)
		}
	}
	if p.SchedulerName != nil {
		return p, errors.New("profile: schedulerName is set by the harness, leave it out")
	}
	p.SchedulerName = &schedulerName
	return p, nil
}
