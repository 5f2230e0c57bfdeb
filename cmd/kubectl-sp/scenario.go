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

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/cli-runtime/pkg/printers"
	"sigs.k8s.io/yaml"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
)

// coreCodecs decode the Node and Pod manifests of the scenario flags
// strictly, as strictCodecs decodes drafts.
var coreCodecs = func() serializer.CodecFactory {
	s := runtime.NewScheme()
	utilruntime.Must(corev1.AddToScheme(s))
	return serializer.NewCodecFactory(s, serializer.EnableStrict)
}()

// scenarioOptions are what-if's capacity flags.
type scenarioOptions struct {
	addNodes []string
	drain    string
	pods     string
	replicas int32
	minNodes string
	max      int32
	reportBy string
}

func (o *scenarioOptions) addFlags(cmd *cobra.Command) {
	cmd.Flags().StringArrayVar(&o.addNodes, "add-nodes", nil, "Add COUNT nodes like NODE (a node of the cluster), or like the Node in FILE (a name ending in .yaml, .yml or .json): NODE=COUNT or FILE=COUNT. Repeatable.")
	cmd.Flags().StringVar(&o.drain, "drain", "", "Drain the nodes of this label selector: their pods (but DaemonSet and static ones) are placed again.")
	cmd.Flags().StringVar(&o.pods, "pods", "", "A Pod manifest whose --replicas copies are placed after the pending pods; - reads stdin.")
	cmd.Flags().Int32Var(&o.replicas, "replicas", 1, "Copies of --pods.")
	cmd.Flags().StringVar(&o.minNodes, "min-nodes", "", "Find the smallest count of nodes like NODE (or the Node in FILE) that places every pod, up to --max.")
	cmd.Flags().Int32Var(&o.max, "max", 100, "The largest count --min-nodes tries.")
	cmd.Flags().StringVar(&o.reportBy, "report-by", "", "A node label key (a node-pool label) to report allocated shares by.")
}

// validate refuses, with kubectl's wording, a flag given without the
// flag it only qualifies: changed reports whether a flag was set.
func (o *scenarioOptions) validate(changed func(string) bool) error {
	for _, dep := range []struct{ flag, needs string }{{"replicas", "pods"}, {"max", "min-nodes"}} {
		if changed(dep.flag) && !changed(dep.needs) {
			return fmt.Errorf("--%s requires --%s", dep.flag, dep.needs)
		}
	}
	return nil
}

// scenario is the flags' spec.scenario; nil when no flag asks for one.
func (o *scenarioOptions) scenario(stdin io.Reader) (*v1alpha1.ReviewScenario, error) {
	if len(o.addNodes) == 0 && o.drain == "" && o.pods == "" && o.minNodes == "" {
		if o.reportBy != "" {
			return &v1alpha1.ReviewScenario{ReportBy: o.reportBy}, nil
		}
		return nil, nil
	}
	sc := &v1alpha1.ReviewScenario{ReportBy: o.reportBy}
	for _, a := range o.addNodes {
		shape, countText, ok := strings.Cut(a, "=")
		count, err := strconv.ParseInt(countText, 10, 32)
		if !ok || err != nil || count < 0 {
			return nil, fmt.Errorf("--add-nodes %q: want NODE=COUNT or FILE=COUNT, COUNT a number", a)
		}
		ns, err := nodeShape(shape)
		if err != nil {
			return nil, fmt.Errorf("--add-nodes: %w", err)
		}
		sc.AddNodes = append(sc.AddNodes, v1alpha1.ScenarioNodes{NodeShape: ns, Count: int32(count)})
	}
	if o.drain != "" {
		sel, err := metav1.ParseToLabelSelector(o.drain)
		if err != nil {
			return nil, fmt.Errorf("--drain %q: %w", o.drain, err)
		}
		sc.RemoveNodes = &v1alpha1.ScenarioNodeSelection{Selector: v1alpha1.SelectorFromMeta(sel)}
	}
	if o.pods != "" {
		tmpl, err := podTemplate(o.pods, stdin)
		if err != nil {
			return nil, fmt.Errorf("--pods: %w", err)
		}
		sc.Pods = []v1alpha1.ScenarioPods{{PodTemplate: tmpl, Replicas: o.replicas}}
	}
	if o.minNodes != "" {
		ns, err := nodeShape(o.minNodes)
		if err != nil {
			return nil, fmt.Errorf("--min-nodes: %w", err)
		}
		sc.Minimize = &v1alpha1.ScenarioMinimize{NodeShape: ns, Max: o.max}
	}
	return sc, nil
}

// checkManifestKind is checkKind of the apiVersion and kind data declares.
func checkManifestKind(file string, data []byte, want schema.GroupVersionKind) error {
	var head metav1.TypeMeta
	if err := yaml.Unmarshal(data, &head); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	return checkKind(file, head, want)
}

// isManifest says whether a node argument names a file.
func isManifest(arg string) bool {
	for _, ext := range []string{".yaml", ".yml", ".json"} {
		if strings.HasSuffix(arg, ext) {
			return true
		}
	}
	return false
}

// nodeShape is a node of the cluster, or the Node of a file, decoded
// strictly.
func nodeShape(arg string) (v1alpha1.NodeShape, error) {
	if !isManifest(arg) {
		return v1alpha1.NodeShape{FromNode: arg}, nil
	}
	data, err := os.ReadFile(arg)
	if err != nil {
		return v1alpha1.NodeShape{}, err
	}
	if err := checkManifestKind(arg, data, corev1.SchemeGroupVersion.WithKind("Node")); err != nil {
		return v1alpha1.NodeShape{}, err
	}
	obj, gvk, err := coreCodecs.UniversalDeserializer().Decode(data, nil, &corev1.Node{})
	if err != nil {
		return v1alpha1.NodeShape{}, fmt.Errorf("%s: %w", arg, err)
	}
	node, ok := obj.(*corev1.Node)
	if !ok {
		return v1alpha1.NodeShape{}, fmt.Errorf("%s: want a Node, got %s", arg, gvk)
	}
	node.TypeMeta = metav1.TypeMeta{}
	raw, err := json.Marshal(node)
	if err != nil {
		return v1alpha1.NodeShape{}, err
	}
	return v1alpha1.NodeShape{Template: &runtime.RawExtension{Raw: raw}}, nil
}

// podTemplate is the Pod manifest of file as a review's pod template.
func podTemplate(file string, stdin io.Reader) (*v1alpha1.ReviewPodTemplate, error) {
	var data []byte
	var err error
	if file == "-" {
		data, err = io.ReadAll(stdin)
	} else {
		data, err = os.ReadFile(file)
	}
	if err != nil {
		return nil, err
	}
	if err := checkManifestKind(file, data, corev1.SchemeGroupVersion.WithKind("Pod")); err != nil {
		return nil, err
	}
	obj, gvk, err := coreCodecs.UniversalDeserializer().Decode(data, nil, &corev1.Pod{})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return nil, fmt.Errorf("%s: want a Pod, got %s", file, gvk)
	}
	return &v1alpha1.ReviewPodTemplate{Labels: pod.Labels, Annotations: pod.Annotations, Spec: v1alpha1.PodSpecTemplate(pod.Spec)}, nil
}

// drainWarning is kubectl's kind of warning when --drain (selector)
// matched no node: the answer is then about a cluster nothing was taken
// from. Empty otherwise.
func drainWarning(selector string, sr *v1alpha1.SchedulingReview) string {
	if selector == "" || sr.Status.Scenario == nil || sr.Status.Scenario.RemovedNodes > 0 {
		return ""
	}
	return fmt.Sprintf("Warning: --drain %q matches no node: nothing is drained", selector)
}

// renderScenario prints a scenario's answer: the summary line, the
// minimize answer, the allocated shares per pool, and the unplaced pods
// with their reasons.
//
// wide adds the evicted pods' nodes and the placed pods of the namespace.
func renderScenario(w io.Writer, sr *v1alpha1.SchedulingReview, wide bool) error {
	res := sr.Status.Scenario
	if res == nil {
		return fmt.Errorf("review %s/%s has no scenario result", sr.Namespace, sr.Name)
	}
	fmt.Fprintf(w, "%d of %s would be placed (%d evicted, %s removed, %d added; %s, %s)\n",
		res.Placed, plural(int(res.Pods), "pod"), res.Evicted, plural(int(res.RemovedNodes), "node"), res.AddedNodes, profileLine(sr), plural(int(sr.Status.SnapshotNodes), "node"))
	if m := res.Minimize; m != nil {
		tried := make([]string, 0, len(m.Tried))
		for _, t := range m.Tried {
			tried = append(tried, fmt.Sprintf("%d:%d", t.Count, t.Unplaced))
		}
		if m.Found {
			fmt.Fprintf(w, "Smallest count that places every pod: %d (tried count:unplaced %s)\n", m.Count, strings.Join(tried, " "))
		} else {
			fmt.Fprintf(w, "No count up to %d places every pod (tried count:unplaced %s)\n", m.Max, strings.Join(tried, " "))
		}
	}
	if len(res.Utilization) > 0 {
		fmt.Fprintln(w)
		tw := printers.GetNewTabWriter(w)
		pool := "POOL"
		if res.ReportBy != "" {
			pool = strings.ToUpper(res.ReportBy)
		}
		fmt.Fprintf(tw, "%s\tNODES\tCPU\tMEMORY\tPODS\n", pool)
		for _, u := range res.Utilization {
			name := u.Pool
			switch {
			case res.ReportBy == "":
				name = "(all)"
			case name == "":
				name = "<none>"
			}
			fmt.Fprintf(tw, "%s\t%d → %d\t%d%% → %d%%\t%d%% → %d%%\t%d%% → %d%%\n", name,
				u.Before.Nodes, u.After.Nodes, u.Before.CPU, u.After.CPU, u.Before.Memory, u.After.Memory, u.Before.Pods, u.After.Pods)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if len(res.Unplaced) > 0 {
		fmt.Fprintln(w)
		tw := printers.GetNewTabWriter(w)
		if wide {
			fmt.Fprintln(tw, "UNPLACED POD\tSOURCE\tFROM NODE\tREASON")
		} else {
			fmt.Fprintln(tw, "UNPLACED POD\tSOURCE\tREASON")
		}
		for _, p := range res.Unplaced {
			if wide {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", p.Pod, p.Source, orNone(p.FromNode), p.Message)
			} else {
				fmt.Fprintf(tw, "%s\t%s\t%s\n", p.Pod, p.Source, p.Message)
			}
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if wide && len(res.PlacedPods) > 0 {
		fmt.Fprintln(w)
		tw := printers.GetNewTabWriter(w)
		fmt.Fprintln(tw, "PLACED POD\tSOURCE\tFROM NODE\tNODE")
		for _, p := range res.PlacedPods {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", p.Pod, p.Source, orNone(p.FromNode), p.Node)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if others := int(res.Pods-res.Placed) - len(res.Unplaced); others > 0 {
		fmt.Fprintf(w, "(%s of other namespaces, or beyond the first %d, not listed)\n", plural(others, "unplaced pod"), len(res.Unplaced))
	}
	return nil
}
