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

package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/internal/controlplane"
)

// headroom is the share of the chart's memory limit the operator's peak
// RSS stays under while it answers the largest reviews: the rest is for a
// cluster larger than the test's (the informers' caches) and the
// collector's slack.
const headroom = 0.6

// The largest review the schema admits, every maximum at once: 50 entries
// of added nodes, 1,000 nodes in all; 50 entries of pods, 2,000 in all,
// each with 64 labels and 64 annotations; a minimize search up to 1,000
// nodes of a shape. Its nodes times pods (4 million and the cluster's)
// are under --scenario-max-node-pods, so the operator answers it.
const (
	worstAddEntries  = 50
	worstAddNodes    = 1000
	worstPodEntries  = 50
	worstPods        = 2000
	worstMinimizeMax = 1000
	worstMetadata    = 64
)

// worstScenarioReview is that review, asking of profile. Its pods ask for
// more than the cluster and the nodes added have, so the minimize search
// runs every count it bisects to.
func worstScenarioReview(ns, name, profile string) *v1alpha1.SchedulingReview {
	node := func(name string) *runtime.RawExtension {
		n := corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"pool": "worst"}},
			Status: corev1.NodeStatus{Allocatable: corev1.ResourceList{
				corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("16Gi"), corev1.ResourcePods: resource.MustParse("110"),
			}},
		}
		data, err := json.Marshal(n)
		Expect(err).NotTo(HaveOccurred())
		return &runtime.RawExtension{Raw: data}
	}
	labels, annotations := map[string]string{}, map[string]string{}
	for i := range worstMetadata {
		labels[fmt.Sprintf("example.com/label-%02d", i)] = strings.Repeat("v", 63)
		annotations[fmt.Sprintf("example.com/annotation-%02d", i)] = strings.Repeat("a", 200)
	}
	sc := &v1alpha1.ReviewScenario{ReportBy: "pool"}
	for i := range worstAddEntries {
		sc.AddNodes = append(sc.AddNodes, v1alpha1.ScenarioNodes{
			NodeShape: v1alpha1.NodeShape{Template: node(fmt.Sprintf("added-%02d", i))}, Count: worstAddNodes / worstAddEntries})
	}
	for range worstPodEntries {
		sc.Pods = append(sc.Pods, v1alpha1.ScenarioPods{Replicas: worstPods / worstPodEntries, PodTemplate: &v1alpha1.ReviewPodTemplate{
			Labels: labels, Annotations: annotations,
			Spec: v1alpha1.PodSpecTemplate(corev1.PodSpec{
				SchedulerName: profile,
				Containers: []corev1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10", Resources: corev1.ResourceRequirements{
					Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("3"), corev1.ResourceMemory: resource.MustParse("1Gi")},
				}}},
			}),
		}})
	}
	sc.Minimize = &v1alpha1.ScenarioMinimize{NodeShape: v1alpha1.NodeShape{Template: node("minimize")}, Max: worstMinimizeMax}
	return &v1alpha1.SchedulingReview{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec:       v1alpha1.SchedulingReviewSpec{Profile: profile, Scenario: sc},
	}
}

// peakRSS is the process's peak resident set (VmHWM) and its resident set
// now (VmRSS), from /proc.
func peakRSS(pid int) (peak, now resource.Quantity) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	Expect(err).NotTo(HaveOccurred())
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) != 3 || fields[2] != "kB" {
			continue
		}
		kb, err := strconv.ParseInt(fields[1], 10, 64)
		Expect(err).NotTo(HaveOccurred())
		switch fields[0] {
		case "VmHWM:":
			peak = *resource.NewQuantity(kb<<10, resource.BinarySI)
		case "VmRSS:":
			now = *resource.NewQuantity(kb<<10, resource.BinarySI)
		}
	}
	Expect(sc.Err()).NotTo(HaveOccurred())
	return peak, now
}

// chartMemoryLimit is the chart's resources.limits.memory.
func chartMemoryLimit() resource.Quantity {
	root, err := controlplane.RepoRoot()
	Expect(err).NotTo(HaveOccurred())
	data, err := os.ReadFile(filepath.Join(root, "charts", "profile-scheduler", "values.yaml"))
	Expect(err).NotTo(HaveOccurred())
	var values struct {
		Resources corev1.ResourceRequirements `json:"resources"`
	}
	Expect(yaml.Unmarshal(data, &values)).To(Succeed())
	limit := values.Resources.Limits[corev1.ResourceMemory]
	Expect(limit.IsZero()).To(BeFalse(), "the chart sets resources.limits.memory")
	return limit
}

// largestReviews is an operator (with the chart's defaults for reviews:
// --review-concurrency 4, --review-timeout 30s) started for the specs of a
// container, with a live profile and a namespace of their own, both named
// name.
type largestReviews struct {
	name  string
	op    *instance
	limit resource.Quantity
}

// start starts the operator; call it in BeforeAll.
func (lr *largestReviews) start(ctx SpecContext) {
	lr.limit = chartMemoryLimit()
	Expect(k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: lr.name}})).To(Succeed())
	lr.op = startInstance(lr.name + "-operator")
	Eventually(lr.op.ready).WithTimeout(60 * time.Second).WithPolling(200 * time.Millisecond).Should(Succeed())
	Expect(k8s.Create(ctx, &v1alpha1.SchedulerProfile{ObjectMeta: metav1.ObjectMeta{Name: lr.name}})).To(Succeed())
	Eventually(func(g Gomega) {
		var sp v1alpha1.SchedulerProfile
		g.Expect(k8s.Get(ctx, client.ObjectKey{Name: lr.name}, &sp)).To(Succeed())
		g.Expect(meta.IsStatusConditionTrue(sp.Status.Conditions, v1alpha1.ConditionReady)).To(BeTrue())
	}).WithTimeout(60 * time.Second).WithPolling(200 * time.Millisecond).Should(Succeed())
}

// answer creates n of the largest reviews together, waits until each is
// answered, and checks that the operator's peak RSS since it started
// stayed under headroom of the chart's memory limit.
func (lr *largestReviews) answer(ctx SpecContext, prefix string, n int) {
	start := time.Now()
	for i := range n {
		Expect(k8s.Create(ctx, worstScenarioReview(lr.name, fmt.Sprintf("%s-%02d", prefix, i), lr.name))).To(Succeed())
	}
	out := make([]v1alpha1.SchedulingReview, n)
	for i := range n {
		Eventually(func(g Gomega) {
			g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: lr.name, Name: fmt.Sprintf("%s-%02d", prefix, i)}, &out[i])).To(Succeed())
			g.Expect(out[i].Finished()).To(BeTrue())
		}).WithTimeout(10 * time.Minute).WithPolling(500 * time.Millisecond).Should(Succeed())
	}
	peak, now := peakRSS(lr.op.cmd.Process.Pid)
	report := fmt.Sprintf("%d of the largest reviews: the operator's peak RSS %d MiB (%d MiB at the end), the chart's limit %d MiB; answered in %s",
		n, peak.Value()>>20, now.Value()>>20, lr.limit.Value()>>20, time.Since(start).Round(time.Second))
	AddReportEntry("review memory", report)
	GinkgoWriter.Println(report)
	for _, sr := range out {
		expectLargestAnswered(sr)
	}
	if c := meta.FindStatusCondition(out[0].Status.Conditions, v1alpha1.ConditionFailed); c != nil {
		AddReportEntry("review memory: the first review", c.Message)
	}
	Expect(float64(peak.Value())).To(BeNumerically("<", headroom*float64(lr.limit.Value())), report)
}

// expectLargestAnswered checks that one of the largest reviews was
// answered: Complete, or stopped at --review-timeout with what it had
// computed (the search runs 0 and the max first; on a busy machine, four
// at once, a review may reach neither within the timeout).
func expectLargestAnswered(sr v1alpha1.SchedulingReview) {
	GinkgoHelper()
	if meta.IsStatusConditionTrue(sr.Status.Conditions, v1alpha1.ConditionComplete) {
		return
	}
	failed := meta.FindStatusCondition(sr.Status.Conditions, v1alpha1.ConditionFailed)
	Expect(failed).NotTo(BeNil(), "%s: %+v", sr.Name, sr.Status.Conditions)
	Expect(failed.Reason).To(Equal(v1alpha1.ReasonReviewTimeout), "%s: %s", sr.Name, failed.Message)
}

var _ = Describe("the largest review", Ordered, func() {
	lr := &largestReviews{name: "review-memory"}
	BeforeAll(lr.start)

	It("is answered with room to spare under the chart's memory limit", func(ctx SpecContext) {
		lr.answer(ctx, "one", 1)
	})
})
