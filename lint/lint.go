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

package lint

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/controllers"
	"github.com/profile-scheduler/profile-scheduler/internal/routing"
	"github.com/profile-scheduler/profile-scheduler/pluginargs"
	"github.com/profile-scheduler/profile-scheduler/scheduler"
)

// Options are what the operator that would run the manifests is built and
// started with, and where references are resolved.
type Options struct {
	// OutOfTreeRegistry and PluginArgsValidators are the binary's own
	// plugins (app.WithPlugin); their args types must be registered with
	// package pluginargs, as app does. Nil: the upstream in-tree plugins.
	OutOfTreeRegistry    frameworkruntime.Registry
	PluginArgsValidators map[string]pluginargs.Validator
	// AllowDefaultScheduler: the operator's --allow-default-scheduler.
	AllowDefaultScheduler bool
	// ExtenderSecretsNamespace: the operator's --extender-secrets-namespace.
	ExtenderSecretsNamespace string
	// Cluster, when set, resolves what the manifests lack: ExtenderConfigs
	// and Secrets, and the SchedulerProfiles and ProfileRoutes that claim
	// schedulerNames or select pods beside them.
	Cluster client.Reader
}

// Paths reads paths (ReadPaths) and checks their documents.
func Paths(ctx context.Context, o Options, stdin io.Reader, paths ...string) (Result, error) {
	docs, err := ReadPaths(stdin, paths...)
	if err != nil {
		return Result{}, err
	}
	return Documents(ctx, o, docs...)
}

// object is a document of the operator's kinds that passed the schema.
type object struct {
	doc  Document
	kind string
	obj  client.Object
}

// Documents checks docs: each as kube-apiserver would admit it, then, the
// admitted ones together, as the operator would decide them.
func Documents(ctx context.Context, o Options, docs ...Document) (Result, error) {
	schemas, err := loadSchemas()
	if err != nil {
		return Result{}, fmt.Errorf("reading the CRDs: %w", err)
	}
	var res Result
	var admitted []object
	given := &objects{extenders: map[string]*v1alpha1.ExtenderConfig{}, secrets: map[client.ObjectKey]*corev1.Secret{}, cluster: o.Cluster}
	for _, d := range expandLists(docs) {
		res.Findings = append(res.Findings, admit(ctx, schemas, d, &res.Checked, &admitted, given)...)
	}
	decided, err := decide(ctx, o, admitted, given)
	if err != nil {
		return Result{}, err
	}
	// Findings in the order of the documents.
	all := append(res.Findings, decided...)
	slices.SortStableFunc(all, func(a, b Finding) int {
		if c := fileOrder(docs, a.File) - fileOrder(docs, b.File); c != 0 {
			return c
		}
		return a.Document - b.Document
	})
	res.Findings = all
	return res, nil
}

// expandLists replaces a document holding a v1 List (what kubectl get -o
// yaml prints) with one document per item, at the List's place.
func expandLists(docs []Document) []Document {
	var out []Document
	for _, d := range docs {
		var list struct {
			APIVersion string            `json:"apiVersion"`
			Kind       string            `json:"kind"`
			Items      []json.RawMessage `json:"items"`
		}
		if err := yaml.Unmarshal(d.Data, &list); err != nil || list.APIVersion != "v1" || list.Kind != "List" {
			out = append(out, d)
			continue
		}
		for _, item := range list.Items {
			out = append(out, Document{File: d.File, Index: d.Index, Data: item})
		}
	}
	return out
}

// fileOrder is the place of file among the documents' files.
func fileOrder(docs []Document, file string) int {
	return slices.IndexFunc(docs, func(d Document) bool { return d.File == file })
}

// admit decodes one document and runs the CRD's validation on it.
func admit(ctx context.Context, schemas map[schema.GroupVersionKind]*crdSchema, d Document, checked *int, admitted *[]object, given *objects) []Finding {
	at := Finding{File: d.File, Document: d.Index}
	say := func(sev Severity, reason, fieldPath, format string, args ...any) Finding {
		f := at
		f.Severity, f.Reason, f.Field, f.Message = sev, reason, fieldPath, fmt.Sprintf(format, args...)
		return f
	}
	data, err := yaml.YAMLToJSONStrict(d.Data)
	if err != nil {
		return []Finding{say(Refused, "StrictDecoding", "", "%v", err)}
	}
	var obj map[string]any
	if err := utiljson.Unmarshal(data, &obj); err != nil {
		return []Finding{say(Refused, "StrictDecoding", "", "not an object: %v", err)}
	}
	if obj == nil {
		return nil
	}
	apiVersion, _ := obj["apiVersion"].(string)
	kind, _ := obj["kind"].(string)
	if apiVersion == "" || kind == "" {
		return []Finding{say(Refused, "Invalid", "", "apiVersion and kind are required")}
	}
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return []Finding{say(Refused, "Invalid", "apiVersion", "%v", err)}
	}
	gvk := gv.WithKind(kind)
	meta, _ := obj["metadata"].(map[string]any)
	name, _ := meta["name"].(string)
	at.Kind, at.Name = kind, name
	if gvk == corev1.SchemeGroupVersion.WithKind("Secret") {
		var s corev1.Secret
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj, &s); err != nil {
			return []Finding{say(Refused, "Invalid", "", "%v", err)}
		}
		given.secrets[client.ObjectKeyFromObject(&s)] = &s
		return []Finding{say(Note, "", "", "read for the ExtenderConfigs that name it; not checked")}
	}
	if gv.Group != v1alpha1.GroupVersion.Group {
		return []Finding{say(Note, "", "", "skipped: not an object of %s", v1alpha1.GroupVersion.Group)}
	}
	*checked++
	s, ok := schemas[gvk]
	if !ok {
		return []Finding{say(Refused, "Invalid", "", "no kind %q is served in version %q (the CRDs serve %s)", kind, apiVersion, servedKinds(schemas))}
	}
	unknown, errs := s.admit(ctx, obj)
	var out []Finding
	for _, u := range unknown {
		out = append(out, say(Refused, "UnknownField", u, "unknown field %q", u))
	}
	for _, e := range errs {
		out = append(out, say(Refused, "Invalid", e.Field, "%s", e.Error()))
	}
	if len(out) > 0 {
		return out
	}
	var typed client.Object
	switch kind {
	case "SchedulerProfile":
		typed = &v1alpha1.SchedulerProfile{}
	case "ExtenderConfig":
		typed = &v1alpha1.ExtenderConfig{}
	case "ProfileRoute":
		typed = &v1alpha1.ProfileRoute{}
	default:
		return []Finding{say(Note, "", "", "admitted by the CRD's schema; the operator answers a %s only in a cluster", kind)}
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj, typed); err != nil {
		return []Finding{say(Refused, "Invalid", "", "%v", err)}
	}
	if ec, ok := typed.(*v1alpha1.ExtenderConfig); ok {
		given.extenders[ec.Name] = ec
	}
	*admitted = append(*admitted, object{doc: d, kind: kind, obj: typed})
	return nil
}

func servedKinds(schemas map[schema.GroupVersionKind]*crdSchema) string {
	var out []string
	for gvk := range schemas {
		out = append(out, gvk.Kind+" "+gvk.GroupVersion().String())
	}
	slices.Sort(out)
	return strings.Join(out, ", ")
}

// decide runs the operator's checks on the admitted objects.
func decide(ctx context.Context, o Options, admitted []object, given *objects) ([]Finding, error) {
	// The frameworks built in dry-run log as the scheduler's do; lint
	// says what it found, and nothing else.
	ctx = klog.NewContext(ctx, logr.Discard())
	sched, err := dryRunScheduler(o)
	if err != nil {
		return nil, err
	}
	plugins := controllers.Plugins{Validators: o.PluginArgsValidators}
	for name := range o.OutOfTreeRegistry {
		plugins.OutOfTree = append(plugins.OutOfTree, name)
	}
	slices.Sort(plugins.OutOfTree)
	offline := &controllers.Offline{
		Reader:                   given,
		Profiles:                 sched,
		Plugins:                  plugins,
		AllowDefaultScheduler:    o.AllowDefaultScheduler,
		ExtenderSecretsNamespace: o.ExtenderSecretsNamespace,
	}
	profiles, routes, err := withCluster(ctx, o.Cluster, admitted)
	if err != nil {
		return nil, err
	}
	var out []Finding
	refusedProfiles := map[string]bool{}
	for _, a := range admitted {
		var v controllers.Verdict
		switch obj := a.obj.(type) {
		case *v1alpha1.ExtenderConfig:
			v = offline.Extender(ctx, obj)
		case *v1alpha1.SchedulerProfile:
			v = offline.Profile(ctx, obj, profiles)
			if v.Refusal != nil {
				refusedProfiles[obj.Name] = true
			}
		default:
			continue
		}
		out = append(out, verdictFindings(a, v)...)
	}
	out = append(out, decideRoutes(o, admitted, profiles, routes, refusedProfiles)...)
	return out, nil
}

// verdictFindings are a verdict's findings on a's document.
func verdictFindings(a object, v controllers.Verdict) []Finding {
	at := Finding{File: a.doc.File, Document: a.doc.Index, Kind: a.kind, Name: a.obj.GetName()}
	var out []Finding
	for _, u := range v.Unchecked {
		f := at
		f.Severity, f.Field, f.Message = Note, fieldOf(u), u
		out = append(out, f)
	}
	if r := v.Refusal; r != nil {
		f := at
		f.Severity, f.Reason, f.Field, f.Message = Refused, r.Reason, fieldOf(r.Message), r.Message
		out = append(out, f)
	}
	for _, w := range v.Warnings {
		f := at
		f.Severity, f.Field, f.Message = Warning, fieldOf(w), w
		out = append(out, f)
	}
	return out
}

// fieldPath finds a field path in a message of the operator.
var fieldPath = regexp.MustCompile(`spec\.[A-Za-z0-9_.\[\]-]*[A-Za-z0-9_\]]`)

// fieldOf is the first field a message of the operator names
// ("spec.extenders[0]: ...", "plugin X: spec.pluginConfig[0].args.y: ..."),
// or spec.
func fieldOf(msg string) string {
	if f := fieldPath.FindString(msg); f != "" {
		return f
	}
	return "spec"
}

// withCluster returns the profiles and routes the operator would see: the
// admitted ones and, with cluster, the cluster's others. An object of the
// manifests takes the creation time of the cluster's object of its name
// (an update), else a time after every other (a create: the newest).
func withCluster(ctx context.Context, cluster client.Reader, admitted []object) ([]v1alpha1.SchedulerProfile, []v1alpha1.ProfileRoute, error) {
	var clusterProfiles v1alpha1.SchedulerProfileList
	var clusterRoutes v1alpha1.ProfileRouteList
	if cluster != nil {
		if err := cluster.List(ctx, &clusterProfiles); err != nil {
			return nil, nil, fmt.Errorf("listing the cluster's SchedulerProfiles: %w", err)
		}
		if err := cluster.List(ctx, &clusterRoutes); err != nil {
			return nil, nil, fmt.Errorf("listing the cluster's ProfileRoutes: %w", err)
		}
	}
	created := map[string]metav1.Time{}
	for _, p := range clusterProfiles.Items {
		created["SchedulerProfile/"+p.Name] = p.CreationTimestamp
	}
	for _, r := range clusterRoutes.Items {
		created["ProfileRoute/"+r.Name] = r.CreationTimestamp
	}
	now := metav1.NewTime(time.Now().Add(time.Hour).Truncate(time.Second))
	given := map[string]bool{}
	var profiles []v1alpha1.SchedulerProfile
	var routes []v1alpha1.ProfileRoute
	for _, a := range admitted {
		key := a.kind + "/" + a.obj.GetName()
		given[key] = true
		ts, ok := created[key]
		if !ok && cluster != nil {
			ts = now
		}
		a.obj.SetCreationTimestamp(ts)
		switch obj := a.obj.(type) {
		case *v1alpha1.SchedulerProfile:
			profiles = append(profiles, *obj)
		case *v1alpha1.ProfileRoute:
			routes = append(routes, *obj)
		}
	}
	for _, p := range clusterProfiles.Items {
		if !given["SchedulerProfile/"+p.Name] {
			profiles = append(profiles, p)
		}
	}
	for _, r := range clusterRoutes.Items {
		if !given["ProfileRoute/"+r.Name] {
			routes = append(routes, r)
		}
	}
	return profiles, routes, nil
}

// decideRoutes runs the routing table over the routes, with the profiles
// lint admits as serving: a route is refused as the operator refuses it
// (InvalidSelector, RouteConflict); a profile that is not there is said
// (refused when the cluster was read).
func decideRoutes(o Options, admitted []object, profiles []v1alpha1.SchedulerProfile, routes []v1alpha1.ProfileRoute, refused map[string]bool) []Finding {
	given := map[string]bool{}
	for _, a := range admitted {
		if _, ok := a.obj.(*v1alpha1.SchedulerProfile); ok {
			given[a.obj.GetName()] = true
		}
	}
	// A profile of the manifests that lint admits would serve; the
	// cluster's others serve as their status says.
	serving := make([]v1alpha1.SchedulerProfile, 0, len(profiles))
	for _, p := range profiles {
		p := *p.DeepCopy()
		if given[p.Name] {
			p.Status = v1alpha1.SchedulerProfileStatus{}
			if !refused[p.Name] {
				p.Status.ActiveGeneration, p.Status.SchedulerName = 1, p.EffectiveSchedulerName()
			}
		}
		serving = append(serving, p)
	}
	_, verdicts := routing.Build(routing.Input{Routes: routes, Profiles: serving, Protected: routing.DefaultProtected("")})
	var out []Finding
	for _, a := range admitted {
		r, ok := a.obj.(*v1alpha1.ProfileRoute)
		if !ok {
			continue
		}
		v := verdicts[r.Name]
		f := Finding{File: a.doc.File, Document: a.doc.Index, Kind: a.kind, Name: r.Name, Reason: v.Reason, Message: v.Message, Field: fieldOf(v.Message)}
		switch v.Reason {
		case v1alpha1.ReasonActive:
			continue
		case v1alpha1.ReasonInvalidSelector, v1alpha1.ReasonRouteConflict:
			f.Severity = Refused
		case v1alpha1.ReasonProfileNotFound:
			f.Severity = Note
			if o.Cluster != nil {
				f.Severity = Refused
			} else {
				f.Message += " in the files given (--cluster reads the cluster's)"
			}
		default:
			f.Severity = Note
		}
		out = append(out, f)
	}
	return out
}

// dryRunScheduler is a scheduler that only builds frameworks (Validate):
// its client and informers are never started or called, as building does
// no I/O.
func dryRunScheduler(o Options) (*scheduler.Scheduler, error) {
	cs, err := kubernetes.NewForConfig(&rest.Config{Host: "https://lint.invalid"})
	if err != nil {
		return nil, err
	}
	registry := o.OutOfTreeRegistry
	if registry == nil {
		registry = frameworkruntime.Registry{}
	}
	return scheduler.New(cs, informers.NewSharedInformerFactory(cs, 0), scheduler.WithOutOfTreeRegistry(registry), scheduler.WithLogger(logr.Discard()))
}
