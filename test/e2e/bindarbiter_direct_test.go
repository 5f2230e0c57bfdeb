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
	"bytes"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/profile-scheduler/profile-scheduler/controllers"
	"github.com/profile-scheduler/profile-scheduler/internal/local"
)

// bindReview is the AdmissionReview kube-apiserver sends the arbiter for
// a bind of namespace/name to node, dry-run or not.
func bindReview(namespace, name string, uid types.UID, node string, dryRun bool) []byte {
	binding, err := json.Marshal(&corev1.Binding{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Binding"},
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, UID: uid},
		Target:     corev1.ObjectReference{Kind: "Node", Name: node},
	})
	Expect(err).NotTo(HaveOccurred())
	review, err := json.Marshal(&admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request: &admissionv1.AdmissionRequest{
			UID:         types.UID(fmt.Sprintf("review-%s-%s-%v", namespace, name, dryRun)),
			Kind:        metav1.GroupVersionKind{Version: "v1", Kind: "Binding"},
			Resource:    metav1.GroupVersionResource{Version: "v1", Resource: "pods"},
			SubResource: "binding",
			Name:        name,
			Namespace:   namespace,
			Operation:   admissionv1.Create,
			DryRun:      &dryRun,
			Object:      runtime.RawExtension{Raw: binding},
		},
	})
	Expect(err).NotTo(HaveOccurred())
	return review
}

var _ = Describe("the bind arbiter's port, reached directly", Ordered, func() {
	// The pods bound, and the operator's own namespace (whose binds the
	// arbiter never judges).
	const ns, podNamespace = "arbiter-direct", "arbiter-direct-operator"
	var (
		url     string
		metrics string
		web     *http.Client
		op      *instance
	)
	// post sends body to the arbiter's port as a pod of the cluster
	// network could, and returns the status (0 when it did not answer)
	// and the review's answer.
	post := func(body []byte) (int, *admissionv1.AdmissionResponse) {
		resp, err := web.Post(url, "application/json", bytes.NewReader(body))
		if err != nil {
			// Not listening yet, or the connection cut: no status.
			return 0, nil
		}
		defer resp.Body.Close()
		data, err := io.ReadAll(resp.Body)
		if err != nil {
			return 0, nil
		}
		if resp.StatusCode != http.StatusOK {
			return resp.StatusCode, nil
		}
		var review admissionv1.AdmissionReview
		Expect(json.Unmarshal(data, &review)).To(Succeed(), string(data))
		return resp.StatusCode, review.Response
	}
	decisions := func() map[string]float64 {
		return (&arbiterReplica{metrics: metrics}).decisions()
	}
	refusedEvents := func(ctx SpecContext, pod string) int {
		var list eventsv1.EventList
		Expect(k8s.List(ctx, &list, client.InNamespace(ns))).To(Succeed())
		n := 0
		for _, e := range list.Items {
			if e.Regarding.Name == pod && e.Reason == controllers.EventReasonBindRefused {
				n++
			}
		}
		return n
	}
	var big *corev1.Pod

	BeforeAll(func(ctx SpecContext) {
		for _, n := range []string{ns, podNamespace} {
			Expect(k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: n}})).To(Succeed())
		}
		Expect(local.CreateNodes(ctx, k8s, []local.NodeSpec{{Name: "direct-1", Zone: "zone-a", CPU: "4", Memory: "16Gi", Pods: "110"}})).To(Succeed())
		DeferCleanup(func(ctx SpecContext) {
			_ = k8s.Delete(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "direct-1"}})
		})
		// A pod of another scheduler that does not fit the node.
		big = &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "big"},
			Spec: corev1.PodSpec{SchedulerName: "another-scheduler", Containers: []corev1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10",
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("6")}}}}},
		}
		Expect(k8s.Create(ctx, big)).To(Succeed())
		// The operator's own pod, which it labels once it leads.
		Expect(k8s.Create(ctx, &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: podNamespace, Name: "arbiter-direct"},
			Spec:       corev1.PodSpec{NodeName: "direct-1", Containers: []corev1.Container{{Name: "manager", Image: "registry.k8s.io/pause:3.10"}}},
		})).To(Succeed())

		_, port, err := net.SplitHostPort(freeAddr())
		Expect(err).NotTo(HaveOccurred())
		metrics = freeAddr()
		op = startProcessEnv("arbiter-direct", []string{"POD_NAME=arbiter-direct", "POD_NAMESPACE=" + podNamespace}, binary,
			"--kubeconfig", writeKubeconfig("arbiter-direct", nil),
			"--metrics-bind-address="+metrics, "--metrics-secure=false", "--health-probe-bind-address="+freeAddr(),
			"--enable-webhook", "--webhook-port="+port, "--webhook-cert-dir="+filepath.Join(workDir, "arbiter-direct-certs"),
			"--webhook-service-name=localhost", "--webhook-configuration-name=e2e-arbiter-direct", "--bind-arbiter")
		url = "https://127.0.0.1:" + port + controllers.BindingWebhookPath
		// A pod on the cluster network does not hold the webhook's CA.
		web = &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
			TLSClientConfig:     &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // the test posts as any client of the port could
			MaxIdleConnsPerHost: 16,
		}}
		Eventually(func(g Gomega) {
			code, resp := post(bindReview(ns, big.Name, big.UID, "direct-1", false))
			g.Expect(code).To(Equal(http.StatusOK))
			g.Expect(resp.Allowed).To(BeFalse(), "the arbiter knows the pod and the node, and judges: %v", decisions())
		}).WithTimeout(60 * time.Second).WithPolling(500 * time.Millisecond).Should(Succeed())
	})

	It("judges a real bind and says so, but a dry-run one without an Event", func(ctx SpecContext) {
		Eventually(func() int { return refusedEvents(ctx, big.Name) }).WithTimeout(30 * time.Second).Should(BeNumerically(">=", 1))
		before := refusedEvents(ctx, big.Name)
		for range 5 {
			code, resp := post(bindReview(ns, big.Name, big.UID, "direct-1", true))
			Expect(code).To(Equal(http.StatusOK))
			Expect(resp.Allowed).To(BeFalse(), "a dry run is judged as the bind would be")
			Expect(resp.Result.Message).To(ContainSubstring("has no room"))
		}
		Consistently(func() int { return refusedEvents(ctx, big.Name) }).WithTimeout(3*time.Second).Should(Equal(before), "a dry run writes no Event")
	})

	It("admits a bind of an excluded namespace unjudged, however it overcommits", func() {
		before := decisions()
		code, resp := post(bindReview("kube-system", "huge", "uid-huge", "direct-1", false))
		Expect(code).To(Equal(http.StatusOK))
		Expect(resp.Allowed).To(BeTrue())
		Expect(judged(decisions())).To(Equal(judged(before)), "kube-system binds are not judged")
	})

	It("answers 500 reviews a second of pods that do not exist, looking few of them up in kube-apiserver", func() {
		before := decisions()
		const total, rate = 1000, 500
		var allowed, refused, overloaded, other atomic.Int64
		var wg sync.WaitGroup
		start := time.Now()
		tick := time.NewTicker(time.Second / rate)
		for i := range total {
			<-tick.C
			wg.Go(func() {
				defer GinkgoRecover()
				code, resp := post(bindReview(ns, "ghost-"+strconv.Itoa(i), types.UID("uid-ghost-"+strconv.Itoa(i)), "direct-1", false))
				switch {
				case code == http.StatusTooManyRequests:
					overloaded.Add(1)
				case code != http.StatusOK:
					other.Add(1)
				case resp.Allowed:
					allowed.Add(1)
				default:
					refused.Add(1)
				}
			})
		}
		tick.Stop()
		wg.Wait()
		took := time.Since(start)
		after := decisions()
		lookedUp := after["UnknownPod"] - before["UnknownPod"]
		limited := after["LookupLimited"] - before["LookupLimited"]
		AddReportEntry("unknown pods posted to the arbiter", fmt.Sprintf("%d reviews in %s: %d admitted, %d refused, %d answered 429, %d other; looked up in kube-apiserver %v, admitted unlooked-up (LookupLimited) %v",
			total, took.Round(10*time.Millisecond), allowed.Load(), refused.Load(), overloaded.Load(), other.Load(), lookedUp, limited))
		Expect(refused.Load()).To(BeZero(), "a pod the arbiter does not know is admitted")
		Expect(other.Load()).To(BeZero())
		// The lookups' client allows 5 a second, after a burst.
		Expect(lookedUp).To(BeNumerically("<=", 5*took.Seconds()+20))
		Expect(limited).To(BeNumerically(">=", float64(allowed.Load())-5*took.Seconds()-20))
	})

	It("refuses a 7 MiB body without reading it, and answers the next review", func() {
		body := bytes.Repeat([]byte(" "), 7<<20)
		copy(body, bindReview(ns, big.Name, big.UID, "direct-1", true))
		code, _ := post(body)
		Expect(code).To(Equal(http.StatusRequestEntityTooLarge))
		code, resp := post(bindReview(ns, big.Name, big.UID, "direct-1", true))
		Expect(code).To(Equal(http.StatusOK))
		Expect(resp.Allowed).To(BeFalse())
		Expect(op.done).NotTo(BeClosed(), "the operator is alive")
	})
})
