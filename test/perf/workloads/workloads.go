package workloads

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/template"

	corev1 "k8s.io/api/core/v1"
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

// GroupSet is Count PodGroups of Size members each, named
// <prefix>-g<index> (index over the step's groups). MinCount is the
// groups' spec.schedulingPolicy.gang.minCount: Size when left out; above
// Size, a group that never has enough members.
type GroupSet struct {
	Count    Count `json:"count"`
	Size     Count `json:"size"`
	MinCount Count `json:"minCount,omitzero"`
}

// Group is one PodGroup of a step: its name, its members (pods
// First..First+Size-1 of the step) and its minCount.
type Group struct {
	Name     string
	First    int
	Size     int
	MinCount int
}

// GroupName is the name of a step's index-th PodGroup.
func GroupName(prefix string, index int) string { return prefix + "-g" + strconv.Itoa(index) }

// Pods is how many pods the step creates: Count, or with Groups the sum of
// their members.
func (s *CreatePods) Pods(vals map[string]int) (int, error) {
	if len(s.Groups) == 0 {
		return s.Count.Value(vals)
	}
	groups, err := s.Layout(vals)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, g := range groups {
		n += g.Size
	}
	return n, nil
}

// Layout returns the step's PodGroups in creation order (nil without
// Groups): one group of each set in turn, so the sets are interleaved, and
// each group's members consecutive.
func (s *CreatePods) Layout(vals map[string]int) ([]Group, error) {
	type set struct{ left, size, minCount int }
	sets := make([]set, len(s.Groups))
	for i, g := range s.Groups {
		count, err := g.Count.Value(vals)
		if err != nil {
			return nil, fmt.Errorf("groups[%d].count: %w", i, err)
		}
		size, err := g.Size.Value(vals)
		if err != nil {
			return nil, fmt.Errorf("groups[%d].size: %w", i, err)
		}
		minCount, err := g.MinCount.Value(vals)
		if err != nil {
			return nil, fmt.Errorf("groups[%d].minCount: %w", i, err)
		}
		if count < 0 || size < 1 {
			return nil, fmt.Errorf("groups[%d]: want count >= 0 and size >= 1, got %d and %d", i, count, size)
		}
		if minCount == 0 {
			minCount = size
		}
		if minCount < 1 {
			return nil, fmt.Errorf("groups[%d].minCount: want >= 1, got %d", i, minCount)
		}
		sets[i] = set{left: count, size: size, minCount: minCount}
	}
	var out []Group
	for next := 0; ; {
		added := false
		for i := range sets {
			if sets[i].left == 0 {
				continue
			}
			sets[i].left--
			out = append(out, Group{Name: GroupName(s.Prefix, len(out)), First: next, Size: sets[i].size, MinCount: sets[i].minCount})
			next += sets[i].size
			added = true
		}
		if !added {
			return out, nil
		}
	}
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
	"routes", "coexist", "coexist-memory"}

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

// TemplateData is what templates see.
type TemplateData struct {
	// Index of the object within its step, from 0.
	Index int
	// Name of the object (prefix-index).
	Name string
	// Namespace of the run (pods only).
	Namespace string
	// SchedulerName pods must use.
	SchedulerName string
	// Params are the resolved parameters of the case.
	Params map[string]int
}

// Name returns prefix-index, the name of the index-th object of a step.
func Name(prefix string, index int) string { return prefix + "-" + strconv.Itoa(index) }

// Node renders the named template as a Node.
func (c *Case) Node(tpl string, d TemplateData) (*corev1.Node, error) {
	n := &corev1.Node{}
	if err := c.render(tpl, d, n); err != nil {
		return nil, err
	}
	if n.Kind != "Node" {
		return nil, fmt.Errorf("template %s: kind %q, want Node", tpl, n.Kind)
	}
	return n, nil
}

// Pod renders the named template as a Pod.
func (c *Case) Pod(tpl string, d TemplateData) (*corev1.Pod, error) {
	p := &corev1.Pod{}
	if err := c.render(tpl, d, p); err != nil {
		return nil, err
	}
	if p.Kind != "Pod" {
		return nil, fmt.Errorf("template %s: kind %q, want Pod", tpl, p.Kind)
	}
	return p, nil
}

// Service renders the named template as a Service.
func (c *Case) Service(tpl string, d TemplateData) (*corev1.Service, error) {
	s := &corev1.Service{}
	if err := c.render(tpl, d, s); err != nil {
		return nil, err
	}
	if s.Kind != "Service" {
		return nil, fmt.Errorf("template %s: kind %q, want Service", tpl, s.Kind)
	}
	return s, nil
}

func (c *Case) render(tpl string, d TemplateData, into any) error {
	t, ok := c.templates[tpl]
	if !ok {
		return fmt.Errorf("template %s not found under templates/", tpl)
	}
	var buf bytes.Buffer
	if err := t.Execute(&buf, d); err != nil {
		return fmt.Errorf("template %s: %w", tpl, err)
	}
	if err := yaml.UnmarshalStrict(buf.Bytes(), into); err != nil {
		return fmt.Errorf("template %s (index %d): %w", tpl, d.Index, err)
	}
	return nil
}

func (c *Case) validate() error {
	if c.Name == "" {
		return errors.New("name is required")
	}
	vals, err := c.Values(ScaleDefault, nil)
	if err != nil {
		return err
	}
	for scale := range c.Scales {
		for k := range c.Scales[scale] {
			if _, ok := c.Params[k]; !ok {
				return fmt.Errorf("scale %s sets %q, which is not a parameter", scale, k)
			}
		}
	}
	if _, err := c.TimeoutSeconds.Value(vals); err != nil {
		return err
	}
	if _, err := SchedulerProfile(c.Profile, "validate"); err != nil {
		return err
	}
	d := TemplateData{Name: "validate-0", Namespace: "validate", SchedulerName: "validate", Params: vals}
	measured, podsSeen := 0, false
	prefixes := map[string]bool{}
	prefix := func(p string) error {
		if p == "" {
			return errors.New("prefix is required")
		}
		if prefixes[p] {
			return fmt.Errorf("prefix %q used twice", p)
		}
		prefixes[p] = true
		return nil
	}
	for i, s := range c.Steps {
		n := 0
		for _, set := range []bool{s.CreateNodes != nil, s.CreatePods != nil, s.Churn != nil} {
			if set {
				n++
			}
		}
		if n != 1 {
			return fmt.Errorf("step %d: exactly one of createNodes, createPods, churn", i)
		}
		switch {
		case s.CreateNodes != nil:
			if podsSeen {
				return fmt.Errorf("step %d: createNodes after createPods (nodes come first)", i)
			}
			if err := prefix(s.CreateNodes.Prefix); err != nil {
				return fmt.Errorf("step %d: %w", i, err)
			}
			if _, err := s.CreateNodes.Count.Value(vals); err != nil {
				return fmt.Errorf("step %d: %w", i, err)
			}
			if _, err := c.Node(s.CreateNodes.Template, d); err != nil {
				return fmt.Errorf("step %d: %w", i, err)
			}
		case s.CreatePods != nil:
			podsSeen = true
			if err := prefix(s.CreatePods.Prefix); err != nil {
				return fmt.Errorf("step %d: %w", i, err)
			}
			if err := c.validateGroups(s.CreatePods, vals); err != nil {
				return fmt.Errorf("step %d (%s): %w", i, s.CreatePods.Prefix, err)
			}
			if _, err := c.Pod(s.CreatePods.Template, d); err != nil {
				return fmt.Errorf("step %d: %w", i, err)
			}
			if s.CreatePods.Measure {
				measured++
				if s.CreatePods.SkipWait || s.CreatePods.ExpectPending {
					return fmt.Errorf("step %d: a measured step waits for its pods (no skipWait, no expectPending)", i)
				}
				rate, err := s.CreatePods.Rate.Value(vals)
				if err != nil {
					return fmt.Errorf("step %d: rate: %w", i, err)
				}
				if rate <= 0 {
					return fmt.Errorf("step %d: a measured step needs rate (pods per second of its latency run)", i)
				}
			}
		case s.Churn != nil:
			if err := prefix(s.Churn.Prefix); err != nil {
				return fmt.Errorf("step %d: %w", i, err)
			}
			if _, err := s.Churn.IntervalMillis.Value(vals); err != nil {
				return fmt.Errorf("step %d: %w", i, err)
			}
			if _, err := c.Node(s.Churn.Template, d); err != nil {
				return fmt.Errorf("step %d: %w", i, err)
			}
			if s.Churn.PodTemplate != "" {
				if _, err := c.Pod(s.Churn.PodTemplate, d); err != nil {
					return fmt.Errorf("step %d: churn podTemplate: %w", i, err)
				}
			}
			if s.Churn.ServiceTemplate != "" {
				if _, err := c.Service(s.Churn.ServiceTemplate, d); err != nil {
					return fmt.Errorf("step %d: churn serviceTemplate: %w", i, err)
				}
			}
		}
	}
	kinds := 0
	for _, set := range []bool{c.Swap != nil, c.Explain != nil, c.Coexist != nil, c.Routes != nil} {
		if set {
			kinds++
		}
	}
	if kinds > 1 {
		return errors.New("at most one of swap, explain, coexist and routes")
	}
	if c.Swap != nil || c.Explain != nil {
		for i, s := range c.Steps {
			if s.CreatePods != nil && (len(s.CreatePods.Groups) > 0 || s.CreatePods.ExpectPending) {
				return fmt.Errorf("step %d: groups and expectPending are for plain cases, not swap or explain", i)
			}
		}
	}
	if c.Swap != nil {
		if measured != 0 {
			return errors.New("a swap case measures its own load: no measured createPods step")
		}
		return c.validateSwap(vals, d, prefix)
	}
	if c.Coexist != nil {
		return c.validateCoexist(vals, d)
	}
	if c.Routes != nil {
		return c.validateRoutes(vals, d)
	}
	if measured != 1 {
		return fmt.Errorf("want exactly one measured createPods step, got %d", measured)
	}
	if c.Explain != nil {
		return c.validateExplain(vals, d)
	}
	return nil
}

// validateGroups checks a createPods step's count or groups: groups need
// the GenericWorkload gate and replace count.
func (c *Case) validateGroups(s *CreatePods, vals map[string]int) error {
	if len(s.Groups) == 0 {
		if s.ExpectPending {
			return errors.New("expectPending counts groups: give the step groups")
		}
		_, err := s.Count.Value(vals)
		return err
	}
	if s.Count != (Count{}) {
		return errors.New("count and groups: leave count out, the groups' members are the pods")
	}
	if !c.PodGroups() {
		return fmt.Errorf("groups need featureGates: {%s: true} (PodGroups are served and scheduled only with it)", GenericWorkload)
	}
	groups, err := s.Layout(vals)
	if err != nil {
		return err
	}
	if len(groups) == 0 {
		return errors.New("groups: no group (every set has count 0)")
	}
	return nil
}

func (c *Case) validateSwap(vals map[string]int, d TemplateData, prefix func(string) error) error {
	s := c.Swap
	for _, n := range []Count{s.Rate, s.Updates, s.Restarts, s.DwellMillis, s.WarmupMillis} {
		if _, err := n.Value(vals); err != nil {
			return fmt.Errorf("swap: %w", err)
		}
	}
	if err := prefix(s.Prefix); err != nil {
		return fmt.Errorf("swap: %w", err)
	}
	if _, err := c.Pod(s.PodTemplate, d); err != nil {
		return fmt.Errorf("swap: %w", err)
	}
	if s.NodeLabel == "" || len(s.Profiles) != 2 {
		return errors.New("swap: nodeLabel and exactly two profiles are required")
	}
	if s.Profiles[0].NodeLabelValue == s.Profiles[1].NodeLabelValue {
		return errors.New("swap: the two profiles must send pods to different nodes")
	}
	for _, p := range s.Profiles {
		if _, err := SchedulerProfile(p.Profile, "validate"); err != nil {
			return fmt.Errorf("swap profile %s: %w", p.Name, err)
		}
	}
	if string(c.Profile) != "" && string(c.Profile) != "null" {
		return errors.New("swap: the case profile is swap.profiles[0]; leave profile out")
	}
	c.Profile = s.Profiles[0].Profile
	return nil
}
