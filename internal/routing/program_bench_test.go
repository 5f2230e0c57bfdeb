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
	"context"
	"fmt"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/policy/mutating/patch"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/cel/environment"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
)

// evaluator runs a MutatingAdmissionPolicy the way kube-apiserver's
// plugin does (k8s.io/apiserver's mutating policy compilation): its
// match conditions, then each JSON patch, with the parameter as the
// dynamic informer gives it (unstructured).
type evaluator struct {
	ctx      context.Context
	matcher  matchconditions.Matcher
	patchers []patch.Patcher
}

func newEvaluator(tb testing.TB, policy *admissionregistrationv1.MutatingAdmissionPolicy) *evaluator {
	tb.Helper()
	opts := plugincel.OptionalVariableDeclarations{HasParams: policy.Spec.ParamKind != nil, HasAuthorizer: true}
	compiler, err := plugincel.NewCompositedCompiler(environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()))
	if err != nil {
		tb.Fatal(err)
	}
	var variables []plugincel.NamedExpressionAccessor
	for _, v := range policy.Spec.Variables {
		variables = append(variables, &validating.Variable{Name: v.Name, Expression: v.Expression})
	}
	compiler.CompileAndStoreVariables(variables, opts, environment.StoredExpressions)
	e := &evaluator{ctx: compiler.CreateContext(context.Background())}
	var conditions []plugincel.ExpressionAccessor
	for i := range policy.Spec.MatchConditions {
		conditions = append(conditions, (*matchconditions.MatchCondition)(&policy.Spec.MatchConditions[i]))
	}
	e.matcher = matchconditions.NewMatcher(compiler.CompileCondition(conditions, opts, environment.StoredExpressions), policy.Spec.FailurePolicy, "policy", "validate", policy.Name)
	patchOpts := opts
	patchOpts.HasPatchTypes = true
	for _, m := range policy.Spec.Mutations {
		accessor := &patch.JSONPatchCondition{Expression: m.JSONPatch.Expression}
		e.patchers = append(e.patchers, patch.NewJSONPatcher(compiler.CompileMutatingEvaluator(accessor, patchOpts, environment.StoredExpressions)))
	}
	return e
}

var podsResource = schema.GroupVersionResource{Version: "v1", Resource: "pods"}

// admit runs the policy on a new pod; it returns the pod as stored.
func (e *evaluator) admit(tb testing.TB, pod *corev1.Pod, namespace *corev1.Namespace, params runtime.Object) *corev1.Pod {
	gvk := corev1.SchemeGroupVersion.WithKind("Pod")
	var obj runtime.Object = pod.DeepCopy()
	attrs := func() *admission.VersionedAttributes {
		return &admission.VersionedAttributes{
			Attributes: admission.NewAttributesRecord(obj, nil, gvk, pod.Namespace, pod.Name, podsResource, "", admission.Create,
				&metav1.CreateOptions{}, false, nil),
			VersionedKind:      gvk,
			VersionedObject:    admission.NewLazyObject(obj),
			VersionedOldObject: admission.NewLazyObject(nil),
		}
	}
	if m := e.matcher.Match(e.ctx, attrs(), params, nil); m.Error != nil {
		tb.Fatal(m.Error)
	} else if !m.Matches {
		return obj.(*corev1.Pod)
	}
	for _, p := range e.patchers {
		out, err := p.Patch(e.ctx, patch.Request{
			MatchedResource:     podsResource,
			VersionedAttributes: attrs(),
			ObjectInterfaces:    admission.NewObjectInterfacesFromScheme(clientgoscheme.Scheme),
			OptionalVariables:   plugincel.OptionalVariableBindings{VersionedParams: params},
			Namespace:           namespace,
		}, celconfig.RuntimeCELCostBudget)
		if err != nil {
			tb.Fatal(err)
		}
		obj = out
	}
	return obj.(*corev1.Pod)
}

// benchRoutes are n routes of one namespace label each, the last count
// of them selecting namespaces labelled route=0..count-1 and the others,
// tried first, none: as the admission benchmark of test/perf makes them.
func benchRoutes(n, count int) Table {
	var routes []v1alpha1.ProfileRoute
	for i := range n {
		r := v1alpha1.ProfileRoute{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("bench-%d", i)}, Spec: v1alpha1.ProfileRouteSpec{
			Profile: "pack", NamespaceSelector: &v1alpha1.LabelSelector{MatchLabels: map[string]string{"bench.profilescheduler.io/route": fmt.Sprint(i)}}}}
		if i >= count {
			r.Spec.Priority = 1
		}
		routes = append(routes, r)
	}
	table, _ := Build(Input{Routes: routes, Profiles: []v1alpha1.SchedulerProfile{serving("pack", "pack")}, Protected: DefaultProtected("ops")})
	return table
}

// BenchmarkAdmission is kube-apiserver's evaluation of the routes for one
// new pod (match conditions, variables, JSON patches; not the rest of
// the admission chain): the routes program over the RoutingTable against
// every route compiled into the policy's CEL, with 0, 20 and 100 routes.
func BenchmarkAdmission(b *testing.B) {
	for _, n := range []int{0, 20, 100} {
		table := benchRoutes(n, min(n, 20))
		params := table.Params(PolicyName)
		u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(params)
		if err != nil {
			b.Fatal(err)
		}
		program, _, err := Program(PolicyName)
		if err != nil {
			b.Fatal(err)
		}
		compiled, _, _ := table.CompiledPolicy(PolicyName)
		for _, tc := range []struct {
			name   string
			policy *admissionregistrationv1.MutatingAdmissionPolicy
			params runtime.Object
		}{
			{"compiled", compiled, nil},
			{"table", program, &unstructured.Unstructured{Object: u}},
		} {
			b.Run(fmt.Sprintf("routes=%d/%s", n, tc.name), func(b *testing.B) {
				e := newEvaluator(b, tc.policy)
				ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ns-7", Labels: map[string]string{
					"bench.profilescheduler.io/route": "7", corev1.LabelMetadataName: "ns-7"}}}
				pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns-7", Name: "p"},
					Spec: corev1.PodSpec{SchedulerName: corev1.DefaultSchedulerName, Containers: []corev1.Container{{Name: "c", Image: "i"}}}}
				want := corev1.DefaultSchedulerName
				if n > 0 {
					want = "pack"
				}
				if got := e.admit(b, pod, ns, tc.params).Spec.SchedulerName; got != want {
					b.Fatalf("schedulerName %q, want %q", got, want)
				}
				b.ReportAllocs()
				for b.Loop() {
					e.admit(b, pod, ns, tc.params)
				}
			})
		}
	}
}
