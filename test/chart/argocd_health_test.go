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

package chart

import (
	"fmt"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	lua "github.com/yuin/gopher-lua"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
)

const healthKeyPrefix = "resource.customizations.health.scheduling.profilescheduler.io_"

// argoHealthScripts returns the Lua health checks of the README's argocd-cm
// ConfigMap, by kind.
func argoHealthScripts(t *testing.T) map[string]string {
	t.Helper()
	for _, block := range fencedBlocks(section(t, readme(t), "## Argo CD health check"), "yaml") {
		var cm struct {
			Kind     string            `json:"kind"`
			Metadata metav1.ObjectMeta `json:"metadata"`
			Data     map[string]string `json:"data"`
		}
		if err := yaml.Unmarshal([]byte(block), &cm); err != nil {
			t.Fatalf("README YAML block does not parse: %v\n%s", err, block)
		}
		if cm.Kind != "ConfigMap" || cm.Metadata.Name != "argocd-cm" {
			continue
		}
		scripts := map[string]string{}
		for k, v := range cm.Data {
			if kind, ok := strings.CutPrefix(k, healthKeyPrefix); ok {
				scripts[kind] = v
			}
		}
		return scripts
	}
	t.Fatal("README has no argocd-cm ConfigMap in its Argo CD section")
	return nil
}

// health runs a health script the way Argo CD does: a fresh interpreter with
// the package, base, table, string and math libraries, the object as the
// global obj, and the returned table read as {status, message}.
func health(script string, obj map[string]any) (status, message string, err error) {
	L := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer L.Close()
	for _, lib := range []struct {
		name string
		open lua.LGFunction
	}{
		{lua.LoadLibName, lua.OpenPackage},
		{lua.BaseLibName, lua.OpenBase},
		{lua.TabLibName, lua.OpenTable},
		{lua.StringLibName, lua.OpenString},
		{lua.MathLibName, lua.OpenMath},
	} {
		L.Push(L.NewFunction(lib.open))
		L.Push(lua.LString(lib.name))
		L.Call(1, 0)
	}
	L.SetGlobal("obj", toLua(L, obj))
	if err := L.DoString(script); err != nil {
		return "", "", err
	}
	ret, ok := L.Get(-1).(*lua.LTable)
	if !ok {
		return "", "", fmt.Errorf("script returned %s, not a table", L.Get(-1).Type())
	}
	return lua.LVAsString(ret.RawGetString("status")), lua.LVAsString(ret.RawGetString("message")), nil
}

// toLua converts decoded JSON (what Argo CD hands a script) into Lua values.
func toLua(L *lua.LState, v any) lua.LValue {
	switch v := v.(type) {
	case nil:
		return lua.LNil
	case bool:
		return lua.LBool(v)
	case string:
		return lua.LString(v)
	case int64:
		return lua.LNumber(v)
	case int:
		return lua.LNumber(v)
	case float64:
		return lua.LNumber(v)
	case []any:
		t := L.NewTable()
		for _, e := range v {
			t.Append(toLua(L, e))
		}
		return t
	case map[string]any:
		t := L.NewTable()
		for k, e := range v {
			t.RawSetString(k, toLua(L, e))
		}
		return t
	default:
		panic(fmt.Sprintf("unexpected JSON value %T", v))
	}
}

func cond(typ string, status metav1.ConditionStatus, gen int64, reason, msg string) metav1.Condition {
	return metav1.Condition{
		Type: typ, Status: status, ObservedGeneration: gen, Reason: reason, Message: msg,
		LastTransitionTime: metav1.Now(),
	}
}

type healthCase struct {
	name       string
	generation int64
	observed   int64
	conditions []metav1.Condition
	status     string
	message    string
}

// The conditions are those controllers/ writes: Reconciling=True for the
// new generation while it is applied, then Ready and Stalled for the outcome.
var healthCases = []healthCase{
	{
		name: "just created, no status yet", generation: 1,
		status: "Progressing", message: "Waiting for generation 1 to be reconciled",
	},
	{
		name: "live", generation: 3, observed: 3,
		conditions: []metav1.Condition{
			cond(v1alpha1.ConditionReady, metav1.ConditionTrue, 3, v1alpha1.ReasonActive, `generation 3 serves pods with schedulerName "bin-packing"`),
			cond(v1alpha1.ConditionReconciling, metav1.ConditionFalse, 3, v1alpha1.ReasonActive, ""),
			cond(v1alpha1.ConditionStalled, metav1.ConditionFalse, 3, v1alpha1.ReasonActive, ""),
		},
		status: "Healthy", message: `generation 3 serves pods with schedulerName "bin-packing"`,
	},
	{
		name: "new spec not yet observed, old one still ready", generation: 4, observed: 3,
		conditions: []metav1.Condition{
			cond(v1alpha1.ConditionReady, metav1.ConditionTrue, 3, v1alpha1.ReasonActive, `generation 3 serves pods with schedulerName "bin-packing"`),
			cond(v1alpha1.ConditionReconciling, metav1.ConditionFalse, 3, v1alpha1.ReasonActive, ""),
		},
		status: "Progressing", message: "Waiting for generation 4 to be reconciled",
	},
	{
		name: "being applied", generation: 4, observed: 3,
		conditions: []metav1.Condition{
			cond(v1alpha1.ConditionReady, metav1.ConditionTrue, 3, v1alpha1.ReasonActive, `generation 3 serves pods with schedulerName "bin-packing"`),
			cond(v1alpha1.ConditionReconciling, metav1.ConditionTrue, 4, v1alpha1.ReasonApplying, "applying generation 4"),
			cond(v1alpha1.ConditionStalled, metav1.ConditionFalse, 3, v1alpha1.ReasonActive, ""),
		},
		status: "Progressing", message: "applying generation 4",
	},
	{
		name: "stalled: unknown plugin", generation: 5, observed: 5,
		conditions: []metav1.Condition{
			cond(v1alpha1.ConditionReady, metav1.ConditionFalse, 5, v1alpha1.ReasonUnknownPlugin, stalledMessage),
			cond(v1alpha1.ConditionReconciling, metav1.ConditionFalse, 5, v1alpha1.ReasonUnknownPlugin, ""),
			cond(v1alpha1.ConditionStalled, metav1.ConditionTrue, 5, v1alpha1.ReasonUnknownPlugin, stalledMessage),
		},
		status: "Degraded", message: stalledMessage,
	},
	{
		name: "stalled for an older generation while the new one is not yet observed", generation: 6, observed: 5,
		conditions: []metav1.Condition{
			cond(v1alpha1.ConditionReady, metav1.ConditionFalse, 5, v1alpha1.ReasonUnknownPlugin, stalledMessage),
			cond(v1alpha1.ConditionReconciling, metav1.ConditionFalse, 5, v1alpha1.ReasonUnknownPlugin, ""),
			cond(v1alpha1.ConditionStalled, metav1.ConditionTrue, 5, v1alpha1.ReasonUnknownPlugin, stalledMessage),
		},
		status: "Progressing", message: "Waiting for generation 6 to be reconciled",
	},
	{
		name: "fixed spec being applied after a refusal", generation: 6, observed: 5,
		conditions: []metav1.Condition{
			cond(v1alpha1.ConditionReady, metav1.ConditionFalse, 5, v1alpha1.ReasonUnknownPlugin, stalledMessage),
			cond(v1alpha1.ConditionReconciling, metav1.ConditionTrue, 6, v1alpha1.ReasonApplying, "applying generation 6"),
			cond(v1alpha1.ConditionStalled, metav1.ConditionTrue, 5, v1alpha1.ReasonUnknownPlugin, stalledMessage),
		},
		status: "Progressing", message: "applying generation 6",
	},
	{
		name: "refused with nothing serving", generation: 1, observed: 1,
		conditions: []metav1.Condition{
			cond(v1alpha1.ConditionReady, metav1.ConditionFalse, 1, v1alpha1.ReasonExtenderNotFound, missingExtender),
			cond(v1alpha1.ConditionStalled, metav1.ConditionTrue, 1, v1alpha1.ReasonExtenderNotFound, missingExtender),
		},
		status: "Degraded", message: missingExtender,
	},
}

const (
	stalledMessage  = `generation 5 refused: filter plugin "NoSuchPlugin" is in no registry; generation 4 keeps serving (status.activeGeneration)`
	missingExtender = `generation 1 refused: ExtenderConfig "gpu-filter" not found; no generation of this profile serves pods`
)

func TestArgoCDHealthCheck(t *testing.T) {
	scripts := argoHealthScripts(t)
	g := NewWithT(t)
	g.Expect(scripts).To(HaveLen(2), "one script per kind")

	objects := map[string]func(c healthCase) (runtime.Object, error){
		"SchedulerProfile": func(c healthCase) (runtime.Object, error) {
			return &v1alpha1.SchedulerProfile{
				TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha1.GroupVersion.String(), Kind: "SchedulerProfile"},
				ObjectMeta: metav1.ObjectMeta{Name: "bin-packing", Generation: c.generation},
				Status:     v1alpha1.SchedulerProfileStatus{ObservedGeneration: c.observed, Conditions: c.conditions},
			}, nil
		},
		"ExtenderConfig": func(c healthCase) (runtime.Object, error) {
			return &v1alpha1.ExtenderConfig{
				TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha1.GroupVersion.String(), Kind: "ExtenderConfig"},
				ObjectMeta: metav1.ObjectMeta{Name: "gpu-filter", Generation: c.generation},
				Spec:       v1alpha1.ExtenderConfigSpec{URLPrefix: "http://127.0.0.1:8888/scheduler"},
				Status:     v1alpha1.ExtenderConfigStatus{ObservedGeneration: c.observed, Conditions: c.conditions},
			}, nil
		},
	}
	for kind, build := range objects {
		script, ok := scripts[kind]
		if !ok {
			t.Errorf("README has no health check for %s (key %s%s)", kind, healthKeyPrefix, kind)
			continue
		}
		for _, c := range healthCases {
			t.Run(kind+"/"+c.name, func(t *testing.T) {
				g := NewWithT(t)
				obj, err := build(c)
				g.Expect(err).NotTo(HaveOccurred())
				u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
				g.Expect(err).NotTo(HaveOccurred())
				// Round-trip through JSON, as Argo CD sees the live object.
				data, err := yaml.Marshal(u)
				g.Expect(err).NotTo(HaveOccurred())
				var live map[string]any
				g.Expect(yaml.Unmarshal(data, &live)).To(Succeed())

				status, message, err := health(script, live)
				g.Expect(err).NotTo(HaveOccurred())
				g.Expect(status).To(Equal(c.status))
				g.Expect(message).To(Equal(c.message))
			})
		}
	}
}
