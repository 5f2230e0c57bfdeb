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
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/profile-scheduler/profile-scheduler/controllers"
	"github.com/profile-scheduler/profile-scheduler/internal/local"
)

// arbiterReplica is one operator process of two, each with its pod
// object (POD_NAME), its webhook port and its metrics.
type arbiterReplica struct {
	*instance
	pod     string
	port    int
	metrics string
}

// decisions reads the replica's bind arbiter decisions by outcome from
// its metrics; nil when it does not answer (it was killed).
func (r *arbiterReplica) decisions() map[string]float64 {
	resp, err := http.Get("http://" + r.metrics + "/metrics")
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	out := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<22)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "profile_scheduler_bind_arbiter_decisions_total{") {
			continue
		}
		i := strings.Index(line, `outcome="`)
		j := strings.LastIndex(line, " ")
		if i < 0 || j < 0 {
			continue
		}
		outcome := line[i+len(`outcome="`):]
		outcome = outcome[:strings.Index(outcome, `"`)]
		v, err := strconv.ParseFloat(line[j+1:], 64)
		if err == nil {
			out[outcome] += v
		}
	}
	return out
}

// judged counts the binds the replica judged: every decision but those a
// replica makes without judging (NotLeader, NotReady).
func judged(d map[string]float64) float64 {
	n := 0.0
	for outcome, v := range d {
		if outcome != "NotLeader" && outcome != "NotReady" {
			n += v
		}
	}
	return n
}

// leaderService is the chart's <fullname>-bind-arbiter Service as a
// proxy: a connection goes to a replica whose pod has the arbiter's
// leader label and whose port answers (a killed process's endpoint is
// gone, as a pod that is not ready leaves the Service's endpoints); with
// none, the connection is closed, and kube-apiserver, failing open,
// admits the bind unjudged.
func leaderService(ctx context.Context, podNamespace string, replicas []*arbiterReplica) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	var backends atomic.Pointer[[]int]
	go func() {
		for ctx.Err() == nil {
			var ports []int
			for _, r := range replicas {
				var pod corev1.Pod
				if k8s.Get(ctx, client.ObjectKey{Namespace: podNamespace, Name: r.pod}, &pod) == nil && pod.Labels[controllers.ArbiterLeaderLabel] == controllers.ArbiterLeaderValue {
					ports = append(ports, r.port)
				}
			}
			backends.Store(&ports)
			time.Sleep(100 * time.Millisecond)
		}
	}()
	go func() {
		<-ctx.Done()
		l.Close()
	}()
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				ports := backends.Load()
				if ports == nil {
					return
				}
				for _, port := range *ports {
					up, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), 200*time.Millisecond)
					if err != nil {
						continue
					}
					defer up.Close()
					go func() { _, _ = io.Copy(up, conn) }()
					_, _ = io.Copy(conn, up)
					return
				}
			}()
		}
	}()
	_, port, err := net.SplitHostPort(l.Addr().String())
	Expect(err).NotTo(HaveOccurred())
	return port
}

var _ = Describe("the bind arbiter of two replicas", Ordered, func() {
	const (
		ns           = "arbiter-handover"
		podNamespace = "arbiter-operator"
		config       = "e2e-bind-arbiter-handover"
	)

	It("judges binds at the leader only, and measures the hand-over window after the leader is killed", func(ctx SpecContext) {
		for _, n := range []string{ns, podNamespace} {
			Expect(k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: n}})).To(Succeed())
		}
		Expect(local.CreateNodes(ctx, k8s, []local.NodeSpec{{Name: "handover-1", Zone: "zone-a", CPU: "1000", Memory: "4000Gi", Pods: "5000"}})).To(Succeed())
		replicas := []*arbiterReplica{{pod: "operator-a"}, {pod: "operator-b"}}
		for _, r := range replicas {
			// The replica's own pod, which the leader labels.
			Expect(k8s.Create(ctx, &corev1.Pod{
				ObjectMeta: metav1.ObjectMeta{Namespace: podNamespace, Name: r.pod},
				Spec:       corev1.PodSpec{NodeName: "handover-1", Containers: []corev1.Container{{Name: "manager", Image: "registry.k8s.io/pause:3.10"}}},
			})).To(Succeed())
			l, err := net.Listen("tcp", "127.0.0.1:0")
			Expect(err).NotTo(HaveOccurred())
			r.port = l.Addr().(*net.TCPAddr).Port
			l.Close()
			r.metrics = freeAddr()
		}
		svcCtx, stopService := context.WithCancel(context.Background())
		DeferCleanup(stopService)
		port := leaderService(svcCtx, podNamespace, replicas)

		By("a webhook on pods/binding of the test's namespace, through the leader's Service")
		wh := &admissionregistrationv1.ValidatingWebhookConfiguration{
			ObjectMeta: metav1.ObjectMeta{Name: config},
			Webhooks: []admissionregistrationv1.ValidatingWebhook{{
				Name:                    "bind-arbiter.profilescheduler.io",
				ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: ptr.To("https://localhost:" + port + controllers.BindingWebhookPath)},
				Rules:                   []admissionregistrationv1.RuleWithOperations{{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create}, Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods/binding", "bindings"}}}},
				FailurePolicy:           ptr.To(admissionregistrationv1.Ignore),
				SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
				AdmissionReviewVersions: []string{"v1"},
				TimeoutSeconds:          ptr.To[int32](1),
				NamespaceSelector:       &metav1.LabelSelector{MatchLabels: map[string]string{corev1.LabelMetadataName: ns}},
			}},
		}
		Expect(k8s.Create(ctx, wh)).To(Succeed())
		DeferCleanup(func(ctx SpecContext) { Expect(client.IgnoreNotFound(k8s.Delete(ctx, wh))).To(Succeed()) })

		By("two replicas with leader election and the arbiter")
		// The suite's short lease by default; the chart's timing
		// (15s, 10s, 2s) with E2E_HANDOVER_CHART_TIMING set.
		lease, renew, retry := leaseDuration, 3*time.Second, 500*time.Millisecond
		// Pods to bind: 40 a second for the window and more.
		storm := 600
		if os.Getenv("E2E_HANDOVER_CHART_TIMING") != "" {
			lease, renew, retry, storm = 15*time.Second, 10*time.Second, 2*time.Second, 1400
		}
		for _, r := range replicas {
			args := []string{
				"--kubeconfig", writeKubeconfig(r.pod, nil),
				"--metrics-bind-address=" + r.metrics, "--metrics-secure=false",
				"--health-probe-bind-address=" + freeAddr(),
				"--kube-api-qps=500", "--kube-api-burst=1000",
				"--leader-elect", "--leader-elect-namespace=" + podNamespace, "--leader-elect-id=handover",
				"--leader-elect-lease-duration=" + lease.String(), "--leader-elect-renew-deadline=" + renew.String(), "--leader-elect-retry-period=" + retry.String(),
				"--enable-webhook", "--webhook-port=" + strconv.Itoa(r.port), "--webhook-cert-dir=" + filepath.Join(workDir, r.pod+"-certs"),
				"--webhook-service-name=localhost", "--webhook-configuration-name=" + config, "--bind-arbiter",
			}
			r.instance = startProcessEnv(r.pod, []string{"POD_NAME=" + r.pod, "POD_NAMESPACE=" + podNamespace}, binary, args...)
		}
		// The first to lead labels its pod; the Service reaches it.
		var leader, standby *arbiterReplica
		Eventually(func(g Gomega) {
			for _, r := range replicas {
				var pod corev1.Pod
				g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: podNamespace, Name: r.pod}, &pod)).To(Succeed())
				if pod.Labels[controllers.ArbiterLeaderLabel] == controllers.ArbiterLeaderValue {
					leader = r
				}
			}
			g.Expect(leader).NotTo(BeNil())
		}).WithTimeout(60 * time.Second).WithPolling(200 * time.Millisecond).Should(Succeed())
		standby = replicas[0]
		if leader == replicas[0] {
			standby = replicas[1]
		}

		By("pods to bind, bound by the test as another scheduler would, while the leader judges")
		for i := range storm {
			Expect(k8s.Create(ctx, &corev1.Pod{
				ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("b-%03d", i)},
				Spec:       corev1.PodSpec{SchedulerName: "another-scheduler", Containers: []corev1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10"}}},
			})).To(Succeed())
		}
		// Binds pass unjudged until a replica has written its CA into the
		// configuration: wait until the leader judges one.
		cs, err := kubernetes.NewForConfig(cfg)
		Expect(err).NotTo(HaveOccurred())
		var next atomic.Int32
		bind := func() bool {
			i := int(next.Add(1)) - 1
			if i >= storm {
				return false
			}
			name := fmt.Sprintf("b-%03d", i)
			_ = cs.CoreV1().Pods(ns).Bind(ctx, &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
				Target: corev1.ObjectReference{Kind: "Node", Name: "handover-1"}}, metav1.CreateOptions{})
			return true
		}
		Eventually(func() float64 { bind(); return judged(leader.decisions()) }).WithTimeout(60*time.Second).WithPolling(100*time.Millisecond).
			Should(BeNumerically(">", 0), "the leader judges binds")

		// The storm: 40 binds a second from here on, on two goroutines.
		stormCtx, stopStorm := context.WithCancel(ctx)
		var wg sync.WaitGroup
		for range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				tick := time.NewTicker(50 * time.Millisecond)
				defer tick.Stop()
				for stormCtx.Err() == nil && bind() {
					<-tick.C
				}
			}()
		}
		time.Sleep(2 * time.Second)
		before := leader.decisions()
		standbyBefore := standby.decisions()
		Expect(judged(before)).To(BeNumerically(">", 0))

		By("the leader is killed; the standby takes the lease and judges")
		killed := time.Now()
		leader.kill()
		var window time.Duration
		Eventually(func() float64 {
			window = time.Since(killed)
			return judged(standby.decisions())
		}).WithTimeout(60*time.Second).WithPolling(50*time.Millisecond).Should(BeNumerically(">", judged(standbyBefore)), "the new leader judges")
		time.Sleep(2 * time.Second)
		stopStorm()
		wg.Wait()
		after := standby.decisions()

		report := fmt.Sprintf("hand-over window after the leader was killed (lease %s, retry %s): %s; binds judged by the old leader %v, by the new %v; NotLeader: old leader %v, new leader %v (%v before it led)",
			lease, retry, window.Round(100*time.Millisecond), judged(before), judged(after), before["NotLeader"], after["NotLeader"], standbyBefore["NotLeader"])
		AddReportEntry("bind arbiter hand-over", report)
		GinkgoWriter.Println(report)
		if path := os.Getenv("E2E_HANDOVER_REPORT"); path != "" {
			Expect(os.WriteFile(path, []byte(report+"\n"), 0o600)).To(Succeed())
		}
		Expect(before["NotLeader"]).To(BeZero(), "the leader admitted no bind as a standby")
		Expect(after["NotLeader"]).To(BeZero(), "no bind reached the standby, before or after it led")
		Expect(window).To(BeNumerically("<", lease+retry+5*time.Second), "the window is the lease's expiry, the take-over and the label's way to the Service")
	})
})
