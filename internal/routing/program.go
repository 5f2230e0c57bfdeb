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

package routing

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/utils/ptr"

	"github.com/profile-scheduler/profile-scheduler/config"
)

// The routes program: ONE MutatingAdmissionPolicy and one binding, whose
// CEL never changes with the routes, read every route in force from ONE
// parameter object, a RoutingTable, all three of one name. The
// installer (the chart, config/routes, local mode) creates the policy
// and the binding; the operator writes the table, whole, and holds no
// right on admission policies. One object changes atomically:
// kube-apiserver never runs half of a change, the order of the routes
// is the order of the table's list, and "in force" is one revision to
// probe.
const (
	// PolicyName is the default name of the MutatingAdmissionPolicy, its
	// binding and the RoutingTable (--routes-policy-name). A release of
	// the chart under another name uses <fullname>-routes, so that two
	// operators each keep their own.
	PolicyName = "profile-scheduler-routes"
	// OwnerLabel marks the routes policy, binding and table.
	OwnerLabel = "scheduling.profilescheduler.io/owned-by"
	// OwnerValue is the value of OwnerLabel.
	OwnerValue = "profile-scheduler"
	// RevisionAnnotation, on a probe pod, is the revision of the
	// RoutingTable kube-apiserver ran (spec.revision).
	RevisionAnnotation = "scheduling.profilescheduler.io/routes-revision"
	// ProbeAnnotation marks a probe pod: a dry-run create that shows which
	// table kube-apiserver runs. Its value is the name of the table
	// probed: a program stamps the revision of its own table on its own
	// probes only, and routes no probe.
	ProbeAnnotation = "scheduling.profilescheduler.io/routes-probe"
)

// programFile is the routes program as the installer applies it.
const programFile = "routes/routes_policy.yaml"

// Program returns the routes MutatingAdmissionPolicy and its binding
// (config/routes/routes_policy.yaml), both named name, the binding's
// parameter the RoutingTable name.
func Program(name string) (*admissionregistrationv1.MutatingAdmissionPolicy, *admissionregistrationv1.MutatingAdmissionPolicyBinding, error) {
	data, err := config.RoutesPolicy.ReadFile(programFile)
	if err != nil {
		return nil, nil, err
	}
	policy := &admissionregistrationv1.MutatingAdmissionPolicy{}
	binding := &admissionregistrationv1.MutatingAdmissionPolicyBinding{}
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	for _, into := range []any{policy, binding} {
		if err := dec.Decode(into); err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return nil, nil, fmt.Errorf("decoding %s: %w", programFile, err)
		}
	}
	if policy.Kind != "MutatingAdmissionPolicy" || binding.Kind != "MutatingAdmissionPolicyBinding" || binding.Spec.ParamRef == nil {
		return nil, nil, fmt.Errorf("%s: want a MutatingAdmissionPolicy, then its binding with a paramRef", programFile)
	}
	policy.Name, binding.Name = name, name
	binding.Spec.PolicyName, binding.Spec.ParamRef.Name = name, name
	return policy, binding, nil
}

// ProbePod is the pod the operator creates with dryRun=All in namespace
// to learn which revision of the RoutingTable named table kube-apiserver
// runs (the value of RevisionAnnotation it comes back with; none when no
// program runs that table).
func ProbePod(namespace, table string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Namespace:    namespace,
			GenerateName: "profile-scheduler-routes-probe-",
			Annotations:  map[string]string{ProbeAnnotation: table},
		},
		Spec: corev1.PodSpec{
			AutomountServiceAccountToken: ptr.To(false),
			Containers:                   []corev1.Container{{Name: "probe", Image: "registry.k8s.io/pause:3.10"}},
		},
	}
}
