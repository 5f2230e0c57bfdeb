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
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// TestEveryStringAndListBounded walks the generated CRDs
// (config/crd/bases, which make manifests copies into the chart) and
// fails on a string without maxLength, unless an enum, a format or a
// pattern bounds it, or a CEL rule of its map bounds each value
// (self[k].size() <= n), and on a list without maxItems: what a tenant
// may write has a bound, so CEL costs and etcd sizes stay bounded. The
// root's apiVersion and kind are kube-apiserver's; a free-form object
// (pluginConfig args, pod and node templates) has no schema to walk, its
// size is checked where it is decoded (MaxPluginArgsBytes).
func TestEveryStringAndListBounded(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "config", "crd", "bases", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no CRDs in config/crd/bases: %v", err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var crd struct {
			Spec struct {
				Versions []struct {
					Name   string `json:"name"`
					Schema struct {
						OpenAPIV3Schema map[string]any `json:"openAPIV3Schema"`
					} `json:"schema"`
				} `json:"versions"`
			} `json:"spec"`
		}
		if err := yaml.Unmarshal(data, &crd); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, v := range crd.Spec.Versions {
			var unbounded []string
			root := v.Schema.OpenAPIV3Schema
			props, _ := root["properties"].(map[string]any)
			for name, p := range props {
				if name == "apiVersion" || name == "kind" {
					continue
				}
				walkBounds(p.(map[string]any), "."+name, false, &unbounded)
			}
			sort.Strings(unbounded)
			for _, u := range unbounded {
				t.Errorf("%s (%s): %s has no bound", filepath.Base(f), v.Name, u)
			}
		}
	}
}

// walkBounds appends to out the path of every string and list under s
// without a bound. valuesBounded: s is the value of a map a CEL rule
// bounds.
func walkBounds(s map[string]any, path string, valuesBounded bool, out *[]string) {
	switch s["type"] {
	case "string":
		_, maxLen := s["maxLength"]
		_, enum := s["enum"]
		_, format := s["format"]
		_, pattern := s["pattern"]
		if !maxLen && !enum && !format && !pattern && !valuesBounded {
			*out = append(*out, path+" (string)")
		}
	case "array":
		if _, ok := s["maxItems"]; !ok {
			*out = append(*out, path+" (list)")
		}
		if items, ok := s["items"].(map[string]any); ok {
			walkBounds(items, path+"[*]", false, out)
		}
	}
	props, _ := s["properties"].(map[string]any)
	for name, p := range props {
		child := p.(map[string]any)
		if values, ok := child["additionalProperties"].(map[string]any); ok {
			// A map: a rule of its own (self[k]) or of s (self.name[k])
			// may bound its values.
			bounded := hasRule(child, "self[k].size() <=") || hasRule(s, "self."+name+"[k].size() <=")
			walkBounds(values, path+"."+name+"{*}", bounded, out)
			continue
		}
		walkBounds(child, path+"."+name, false, out)
	}
}

func hasRule(s map[string]any, fragment string) bool {
	rules, _ := s["x-kubernetes-validations"].([]any)
	for _, r := range rules {
		if rule, ok := r.(map[string]any)["rule"].(string); ok && strings.Contains(rule, fragment) {
			return true
		}
	}
	return false
}
