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

package testenv

import (
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
)

// LargestRoutes are ProfileRoutes as large as the API admits: each with
// every selector and fromSchedulerNames at its schema's maxima (keys of
// 317 characters, values of 63, schedulerNames of 253), all of profile,
// at priorities that fall from the first to the last. Every route
// selects the same namespaces and pods but for the last requirement of
// its podSelector, a value of its own; NamespaceLabels and PodLabels(i)
// are the labels of a namespace and a pod that route i selects and the
// routes before it do not, so that every route before it is evaluated
// down to that last requirement, the most CEL kube-apiserver runs for
// one pod. FromSchedulerName is the name such a pod asks for.
type LargestRoutes struct {
	Routes            []v1alpha1.ProfileRoute
	NamespaceLabels   map[string]string
	FromSchedulerName string
	podLabels         []map[string]string
}

// PodLabels are the labels of a pod route i selects and no route before
// it does.
func (l LargestRoutes) PodLabels(i int) map[string]string { return l.podLabels[i] }

// NewLargestRoutes builds n routes, named prefix-0, prefix-1, ...
func NewLargestRoutes(prefix, profile string, n int) LargestRoutes {
	var out LargestRoutes
	from := make([]string, 16)
	for i := range from {
		// 253 characters: labels of at most 63, dot-separated.
		from[i] = fill(fmt.Sprintf("s%02d", i), 253)
	}
	out.FromSchedulerName = from[15]
	selector := func(kind string, last string, lastValues []string) (*v1alpha1.LabelSelector, map[string]string) {
		labels := map[string]string{}
		s := &v1alpha1.LabelSelector{MatchLabels: map[string]string{}}
		for j := range v1alpha1.MaxSelectorLabels {
			k, v := labelKey(fmt.Sprintf("%s-l%d", kind, j)), labelValue(fmt.Sprintf("v%d", j))
			s.MatchLabels[k], labels[k] = v, v
		}
		for j := range v1alpha1.MaxSelectorExpressions {
			key := labelKey(fmt.Sprintf("%s-e%d", kind, j))
			values := make([]string, v1alpha1.MaxSelectorValues)
			for n := range values {
				values[n] = labelValue(fmt.Sprintf("v%d-%d", j, n))
			}
			if j == v1alpha1.MaxSelectorExpressions-1 && last != "" {
				key, values = last, lastValues
			}
			labels[key] = values[len(values)-1]
			s.MatchExpressions = append(s.MatchExpressions, v1alpha1.LabelSelectorRequirement{Key: key, Operator: metav1.LabelSelectorOpIn, Values: values})
		}
		return s, labels
	}
	last := labelKey("route")
	for i := range n {
		values := make([]string, v1alpha1.MaxSelectorValues)
		for n := range values {
			values[n] = labelValue(fmt.Sprintf("r%d-%d", i, n))
		}
		ns, nsLabels := selector("ns", "", nil)
		pod, podLabels := selector("pod", last, values)
		out.NamespaceLabels = nsLabels
		out.podLabels = append(out.podLabels, podLabels)
		out.Routes = append(out.Routes, v1alpha1.ProfileRoute{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-%d", prefix, i)},
			Spec: v1alpha1.ProfileRouteSpec{
				Profile:            profile,
				NamespaceSelector:  ns,
				PodSelector:        pod,
				FromSchedulerNames: from,
				Priority:           int32(1000 - i),
			},
		})
	}
	return out
}

// labelKey is a label key of 317 characters: a prefix of 253 and a name
// of 63, both starting with id.
func labelKey(id string) string {
	return fill(id, 253) + "/" + fill(id, 63)
}

// labelValue is a label value of 63 characters starting with id.
func labelValue(id string) string { return fill(id, 63) }

// fill pads id with letters to n characters, a dot after every 62 (so
// that it is a DNS-1123 subdomain, and within 63 a label value).
func fill(id string, n int) string {
	var b strings.Builder
	b.WriteString(id)
	for b.Len() < n {
		if b.Len()%63 == 62 && b.Len() < n-1 {
			b.WriteByte('.')
			continue
		}
		b.WriteByte('x')
	}
	return b.String()
}
