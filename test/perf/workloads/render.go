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
	"bytes"
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

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
