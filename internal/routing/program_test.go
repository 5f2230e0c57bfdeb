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
	"strings"
	"testing"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/checker"
	. "github.com/onsi/gomega"
	apiextensionsinternal "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	"k8s.io/apimachinery/pkg/util/version"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/apiserver/pkg/cel/library"
	"sigs.k8s.io/yaml"

	"k8s.io/kubernetes/pkg/apis/admissionregistration"
	admissionregistrationv1conv "k8s.io/kubernetes/pkg/apis/admissionregistration/v1"
	admissionvalidation "k8s.io/kubernetes/pkg/apis/admissionregistration/validation"

	"github.com/profile-scheduler/profile-scheduler/config"
)

// The program and its binding pass kube-apiserver's validation of
// MutatingAdmissionPolicies (their CEL compiles where it is evaluated: a
// match condition reads no variable), under any release's name.
func TestProgramIsValid(t *testing.T) {
	for _, name := range []string{PolicyName, "team-b-profile-scheduler-routes"} {
		g := NewWithT(t)
		policy, binding, err := Program(name)
		g.Expect(err).NotTo(HaveOccurred())
		// As kube-apiserver defaults them before it validates.
		admissionregistrationv1conv.SetObjectDefaults_MutatingAdmissionPolicy(policy)
		admissionregistrationv1conv.SetObjectDefaults_MutatingAdmissionPolicyBinding(binding)
		var p admissionregistration.MutatingAdmissionPolicy
		g.Expect(admissionregistrationv1conv.Convert_v1_MutatingAdmissionPolicy_To_admissionregistration_MutatingAdmissionPolicy(policy, &p, nil)).To(Succeed())
		g.Expect(admissionvalidation.ValidateMutatingAdmissionPolicy(&p)).To(BeEmpty(), name)
		var b admissionregistration.MutatingAdmissionPolicyBinding
		g.Expect(admissionregistrationv1conv.Convert_v1_MutatingAdmissionPolicyBinding_To_admissionregistration_MutatingAdmissionPolicyBinding(binding, &b, nil)).To(Succeed())
		g.Expect(admissionvalidation.ValidateMutatingAdmissionPolicyBinding(&b)).To(BeEmpty(), name)
		g.Expect(b.Spec.PolicyName).To(Equal(name))
		g.Expect(b.Spec.ParamRef.Name).To(Equal(name))
	}
}

// The program's estimated CEL cost, with the RoutingTable typed by its
// CRD's schema (every list at its maxItems, every string at its
// maxLength), stays under kube-apiserver's limits: each expression under
// the per-call limit, and all of them, which one admission evaluates at
// most, under the runtime budget of one policy. An unbounded list or
// string in the schema makes the estimate unbounded and fails the test.
func TestProgramCostAtTheSchemaMaxima(t *testing.T) {
	g := NewWithT(t)
	policy, binding, err := Program(PolicyName)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(binding.Spec.ParamRef.Name).To(Equal(PolicyName))
	g.Expect(policy.Spec.ParamKind.Kind).To(Equal("RoutingTable"))

	params := routingTableDeclType(t)
	routes := params.Fields["spec"].Type.Fields["routes"].Type
	g.Expect(routes.MaxElements).To(BeEquivalentTo(200))
	labels := apiservercel.NewMapType(apiservercel.StringType, apiservercel.StringType, -1)
	meta := apiservercel.NewObjectType("meta", map[string]*apiservercel.DeclField{
		"name":        apiservercel.NewDeclField("name", apiservercel.StringType, false, nil, nil),
		"labels":      apiservercel.NewDeclField("labels", labels, false, nil, nil),
		"annotations": apiservercel.NewDeclField("annotations", labels, false, nil, nil),
	})
	pod := apiservercel.NewObjectType("pod", map[string]*apiservercel.DeclField{
		"metadata": apiservercel.NewDeclField("metadata", meta, true, nil, nil),
		"spec": apiservercel.NewDeclField("spec", apiservercel.NewObjectType("podSpec", map[string]*apiservercel.DeclField{
			"schedulerName": apiservercel.NewDeclField("schedulerName", apiservercel.StringType, false, nil, nil),
		}), true, nil, nil),
	})
	namespace, request := plugincel.BuildNamespaceType(), plugincel.BuildRequestType()
	set, err := environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()).Extend(environment.VersionedOptions{
		IntroducedVersion: version.MajorMinor(1, 0),
		EnvOptions: []cel.EnvOption{
			cel.Variable("object", pod.CelType()),
			cel.Variable("namespaceObject", namespace.CelType()),
			cel.Variable("request", request.CelType()),
			cel.Variable("params", params.CelType()),
			// kube-apiserver types a variable by its expression's
			// type, lists and maps of unknown size: so do these.
			cel.Variable("variables_probe", cel.BoolType),
			cel.Variable("variables_ownProbe", cel.BoolType),
			cel.Variable("variables_from", cel.StringType),
			cel.Variable("variables_protected", cel.BoolType),
			cel.Variable("variables_namespaceLabels", cel.MapType(cel.StringType, cel.StringType)),
			cel.Variable("variables_podLabels", cel.MapType(cel.StringType, cel.StringType)),
			cel.Variable("variables_matched", cel.ListType(cel.DynType)),
		},
		DeclTypes: []*apiservercel.DeclType{pod, meta, namespace, request, params},
	}, environment.StrictCostOpt)
	g.Expect(err).NotTo(HaveOccurred())
	env, err := set.Env(environment.StoredExpressions)
	g.Expect(err).NotTo(HaveOccurred())

	sizes := &sizeEstimator{roots: map[string]*apiservercel.DeclType{
		"object": pod, "namespaceObject": namespace, "request": request, "params": params}}
	expressions := map[string]string{}
	for _, c := range policy.Spec.MatchConditions {
		expressions["matchCondition "+c.Name] = c.Expression
	}
	for _, v := range policy.Spec.Variables {
		expressions["variable "+v.Name] = v.Expression
	}
	for i, m := range policy.Spec.Mutations {
		g.Expect(m.JSONPatch).NotTo(BeNil())
		// A JSONPatch is built as a map of the same fields (of type dyn):
		// the typed variables above do not resolve through the
		// JSONPatch type provider, and a literal costs the same either
		// way.
		expressions["mutation "+string(rune('0'+i))] = jsonPatchAsMap.Replace(m.JSONPatch.Expression)
	}
	var total uint64
	for name, expr := range expressions {
		ast, issues := env.Compile(strings.ReplaceAll(expr, "variables.", "variables_"))
		g.Expect(issues.Err()).NotTo(HaveOccurred(), name)
		est, err := env.EstimateCost(ast, &library.CostEstimator{SizeEstimator: sizes})
		g.Expect(err).NotTo(HaveOccurred(), name)
		t.Logf("%s: estimated cost %d", name, est.Max)
		g.Expect(est.Max).To(BeNumerically("<=", celconfig.PerCallLimit), name)
		total += est.Max
	}
	t.Logf("total: estimated cost %d (per-call limit %d, runtime budget %d)", total, celconfig.PerCallLimit, celconfig.RuntimeCELCostBudget)
	g.Expect(total).To(BeNumerically("<=", celconfig.RuntimeCELCostBudget))
}

// sizeEstimator bounds the size of a value by its declared type (a
// list's maxItems, a string's maxLength), as kube-apiserver's estimator
// of CRD validation rules does; unknown, or unbounded, is the most.
type sizeEstimator struct {
	roots map[string]*apiservercel.DeclType
}

func (s *sizeEstimator) EstimateSize(element checker.AstNode) *checker.SizeEstimate {
	path := element.Path()
	if len(path) == 0 || s.roots[path[0]] == nil {
		return nil
	}
	t := s.roots[path[0]]
	for _, name := range path[1:] {
		switch name {
		case "@items", "@values":
			t = t.ElemType
		case "@keys":
			t = t.KeyType
		default:
			f, ok := t.Fields[name]
			if !ok {
				return nil
			}
			t = f.Type
		}
		if t == nil {
			return nil
		}
	}
	if t.MaxElements < 0 {
		return nil
	}
	return &checker.SizeEstimate{Min: 0, Max: uint64(t.MaxElements)}
}

func (s *sizeEstimator) EstimateCallCost(string, string, *checker.AstNode, []checker.AstNode) *checker.CallEstimate {
	return nil
}

var jsonPatchAsMap = strings.NewReplacer(`JSONPatch{op: "add", path:`, `{"op": dyn("add"), "path": dyn(`, `, value:`, `), "value": dyn(`, `}]`, `)}]`)

// routingTableDeclType is the CEL type of a RoutingTable, from the
// generated CRD, as kube-apiserver builds it.
func routingTableDeclType(t *testing.T) *apiservercel.DeclType {
	t.Helper()
	data, err := config.CRDs.ReadFile("crd/bases/scheduling.profilescheduler.io_routingtables.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.UnmarshalStrict(data, &crd); err != nil {
		t.Fatal(err)
	}
	var internal apiextensionsinternal.JSONSchemaProps
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(crd.Spec.Versions[0].Schema.OpenAPIV3Schema, &internal, nil); err != nil {
		t.Fatal(err)
	}
	s, err := structuralschema.NewStructural(&internal)
	if err != nil {
		t.Fatal(err)
	}
	dt := model.SchemaDeclType(model.WithTypeAndObjectMeta(s), true)
	if dt == nil {
		t.Fatal("no CEL type for the RoutingTable schema")
	}
	return dt.MaybeAssignTypeName("routingTable")
}
