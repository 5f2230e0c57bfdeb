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
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/internal/local"
	"github.com/profile-scheduler/profile-scheduler/internal/test/testenv"
)

// apiServer is the suite's kube-apiserver process, found as the child of
// this test process that runs kube-apiserver, so that a spec can stop it
// and start it again, with the same arguments, on the same etcd.
type apiServer struct {
	path string
	args []string
	pid  int
	// restarted is the process start started, if any: envtest does not
	// know it, AfterSuite stops it (stopRestartedAPIServers).
	restarted *exec.Cmd
	done      chan struct{}
}

func findAPIServer() *apiServer {
	GinkgoHelper()
	children, err := testenv.ChildProcesses(os.Getpid())
	Expect(err).NotTo(HaveOccurred())
	for _, c := range children {
		if c.Name() == "kube-apiserver" {
			return &apiServer{path: c.Argv[0], args: c.Argv[1:], pid: c.PID}
		}
	}
	Fail("no kube-apiserver child process found")
	return nil
}

// stop kills kube-apiserver, as a crash or a lost node would, and waits
// until the process is gone.
func (a *apiServer) stop() {
	GinkgoHelper()
	Expect(syscall.Kill(a.pid, syscall.SIGKILL)).To(Succeed())
	Eventually(func() bool {
		fields, err := testenv.StatFields(a.pid)
		if err != nil {
			return true
		}
		return len(fields) > 0 && (fields[0] == "Z" || fields[0] == "X")
	}).WithTimeout(30*time.Second).WithPolling(100*time.Millisecond).Should(BeTrue(), "kube-apiserver %d still runs", a.pid)
	a.restarted = nil
}

// start runs kube-apiserver again with the arguments it had, and waits
// until it serves.
func (a *apiServer) start() {
	GinkgoHelper()
	logFile, err := os.Create(filepath.Join(workDir, fmt.Sprintf("kube-apiserver-%d.log", time.Now().UnixNano())))
	Expect(err).NotTo(HaveOccurred())
	cmd := exec.Command(a.path, a.args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	Expect(cmd.Start()).To(Succeed())
	a.restarted, a.pid, a.done = cmd, cmd.Process.Pid, make(chan struct{})
	done := a.done
	go func() {
		_ = cmd.Wait()
		_ = logFile.Close()
		close(done)
	}()
	// It serves the specs that follow; AfterSuite stops it.
	restartedAPIServers = append(restartedAPIServers, a)
	Eventually(func() error {
		var nodes corev1.NodeList
		return k8s.List(context.Background(), &nodes, client.Limit(1))
	}).WithTimeout(60 * time.Second).WithPolling(200 * time.Millisecond).Should(Succeed())
}

// restartedAPIServers are the kube-apiservers the specs started again.
var restartedAPIServers []*apiServer

// stopRestartedAPIServers stops them, before envtest stops etcd.
func stopRestartedAPIServers() {
	for _, a := range restartedAPIServers {
		if a.restarted == nil {
			continue
		}
		_ = a.restarted.Process.Signal(syscall.SIGTERM)
		select {
		case <-a.done:
		case <-time.After(30 * time.Second):
			_ = a.restarted.Process.Kill()
			<-a.done
		}
	}
}

// outagePod asks for 100m CPU, so that overcommitting a node shows.
func outagePod(ns, name, schedulerName string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: corev1.PodSpec{
			SchedulerName: schedulerName,
			Containers: []corev1.Container{{Name: "pause", Image: "registry.k8s.io/pause:3.10",
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}}}},
		},
	}
}

// podStream creates pods of ns one every interval until stopped or count
// are created, retrying each create until the API server takes it (it may
// be away).
type podStream struct {
	mu      sync.Mutex
	created []string
	stop    chan struct{}
	done    chan struct{}
}

func startPodStream(ns, schedulerName string, interval time.Duration, count int) *podStream {
	s := &podStream{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer GinkgoRecover()
		defer close(s.done)
		for i := 0; i < count; i++ {
			name := fmt.Sprintf("p-%03d", i)
			for {
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
				err := k8s.Create(ctx, outagePod(ns, name, schedulerName))
				cancel()
				if err == nil || strings.Contains(err.Error(), "already exists") {
					break
				}
				select {
				case <-s.stop:
					return
				case <-time.After(200 * time.Millisecond):
				}
			}
			s.mu.Lock()
			s.created = append(s.created, name)
			s.mu.Unlock()
			select {
			case <-s.stop:
				return
			case <-time.After(interval):
			}
		}
	}()
	return s
}

func (s *podStream) end() []string {
	close(s.stop)
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.created...)
}

// catchUp is how long after kube-apiserver serves again the operator may
// take to see a change, as upstream kube-scheduler may: client-go's
// reflectors back off exponentially while the API server is away, up to a
// wait in [30 s, 60 s), and a reflector meets it twice on the way back:
// once before it watches again, and once more before it lists anew, when
// the new kube-apiserver answers a watch from the resourceVersion seen
// before the outage with 410 Gone. Two such waits and 30 s to act.
const catchUp = 150 * time.Second

// checkBoundOnce checks that every pod of ns is bound, by no more than one
// binding each, and that no node holds more CPU requests than it has.
func checkBoundOnce(ctx SpecContext, ns string, pods []string) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		for _, name := range pods {
			var p corev1.Pod
			g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &p)).To(Succeed())
			g.Expect(p.Spec.NodeName).NotTo(BeEmpty(), "pod %s/%s is not bound", ns, name)
		}
	}).WithTimeout(catchUp).WithPolling(250 * time.Millisecond).Should(Succeed())

	// A binding the API server committed just before it was killed may
	// miss from the audit log, so a pod has at most one: a second would be
	// a pod bound twice. A refused second attempt (409: the binder did not
	// learn that the first one was committed) is not a second binding.
	perPod, refused := map[string]int{}, 0
	for _, b := range bindings(ctx) {
		if !strings.HasPrefix(b.Pod, ns+"/") {
			continue
		}
		if b.Code == 201 {
			perPod[b.Pod]++
		} else {
			refused++
		}
	}
	missing := 0
	for _, name := range pods {
		Expect(perPod[ns+"/"+name]).To(BeNumerically("<=", 1), "pod %s/%s bound %d times", ns, name, perPod[ns+"/"+name])
		if perPod[ns+"/"+name] == 0 {
			missing++
		}
	}
	GinkgoWriter.Printf("%s: %d pods bound, %d bindings lost from the audit log by the kill, %d refused attempts\n", ns, len(pods), missing, refused)
	Expect(missing).To(BeNumerically("<=", 5), "more bindings missing from the audit log than a kill can lose")

	var all corev1.PodList
	Expect(k8s.List(ctx, &all)).To(Succeed())
	used := map[string]int64{}
	for _, p := range all.Items {
		if p.Spec.NodeName == "" {
			continue
		}
		for _, c := range p.Spec.Containers {
			used[p.Spec.NodeName] += c.Resources.Requests.Cpu().MilliValue()
		}
	}
	var nodes corev1.NodeList
	Expect(k8s.List(ctx, &nodes)).To(Succeed())
	for _, n := range nodes.Items {
		Expect(used[n.Name]).To(BeNumerically("<=", n.Status.Allocatable.Cpu().MilliValue()), "node %s is overcommitted", n.Name)
	}
}

// attempts reads scheduler_schedule_attempts_total of profile and result
// from a metrics page; 0 when the series is absent.
func attempts(g Gomega, body, profile, result string) int {
	re := regexp.MustCompile(fmt.Sprintf(`(?m)^scheduler_schedule_attempts_total\{profile="%s",result="%s"\} (\d+)$`,
		regexp.QuoteMeta(profile), regexp.QuoteMeta(result)))
	m := re.FindStringSubmatch(body)
	if m == nil {
		return 0
	}
	n, err := strconv.Atoi(m[1])
	g.Expect(err).NotTo(HaveOccurred())
	return n
}

func scrape(g Gomega, addr string) string {
	resp, err := http.Get("http://" + addr + "/metrics")
	g.Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	g.Expect(err).NotTo(HaveOccurred())
	return string(body)
}

var _ = Describe("the API server goes away", Ordered, func() {
	const ns = "outage"
	const outage = 20 * time.Second
	// streamPods arrive one every 150 ms, before, during and after the
	// outage; the nodes have room for twice as many.
	const streamPods = 240

	BeforeAll(func(ctx SpecContext) {
		Expect(k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})).To(Succeed())
		// Room for 240 pods of 100m on each.
		Expect(local.CreateNodes(ctx, k8s, []local.NodeSpec{
			{Name: "outage-1", Zone: "zone-a", CPU: "24", Memory: "64Gi", Pods: "250"},
			{Name: "outage-2", Zone: "zone-b", CPU: "24", Memory: "64Gi", Pods: "250"},
		})).To(Succeed())
	})

	It("for 20 s under load: the operator stays up, binds every pod once, and catches up", func(ctx SpecContext) {
		const profile = "outage"
		sp := &v1alpha1.SchedulerProfile{ObjectMeta: metav1.ObjectMeta{Name: profile}}
		Expect(k8s.Create(ctx, sp)).To(Succeed())
		metricsAddr := freeAddr()
		// No leader election: a single replica that must ride the outage out.
		op := startInstance("outage-single", "--metrics-bind-address="+metricsAddr, "--metrics-secure=false")
		live := func(g Gomega) *v1alpha1.SchedulerProfile {
			var got v1alpha1.SchedulerProfile
			g.Expect(k8s.Get(ctx, client.ObjectKey{Name: profile}, &got)).To(Succeed())
			g.Expect(meta.IsStatusConditionTrue(got.Status.Conditions, v1alpha1.ConditionReady)).To(BeTrue())
			g.Expect(got.Status.ObservedGeneration).To(Equal(got.Generation))
			g.Expect(got.Status.ActiveGeneration).To(Equal(got.Generation))
			return &got
		}
		Eventually(live).WithTimeout(60 * time.Second).WithPolling(200 * time.Millisecond).Should(Not(BeNil()))

		By("pods arriving and the profile being updated")
		stream := startPodStream(ns, profile, 150*time.Millisecond, streamPods)
		Expect(k8s.Get(ctx, client.ObjectKeyFromObject(sp), sp)).To(Succeed())
		sp.Spec.PercentageOfNodesToScore = ptr.To[int32](50)
		Expect(k8s.Update(ctx, sp)).To(Succeed())
		Eventually(live).WithTimeout(30 * time.Second).WithPolling(200 * time.Millisecond).
			Should(HaveField("Status.ActiveGeneration", sp.Generation))
		Eventually(func() int { stream.mu.Lock(); defer stream.mu.Unlock(); return len(stream.created) }).
			WithTimeout(30 * time.Second).Should(BeNumerically(">=", 10))

		By(fmt.Sprintf("stopping kube-apiserver for %s", outage))
		apiserver := findAPIServer()
		apiserver.stop()
		time.Sleep(outage) // the outage itself, not a wait for an outcome
		Expect(op.done).NotTo(BeClosed(), "the operator exited while the API server was away")
		apiserver.start()

		By("after the outage: the profile still serves its generation, and a new one goes live")
		got := live(Default)
		Expect(got.Status.ActiveGeneration).To(Equal(sp.Generation), "the generation served before the outage")
		Expect(k8s.Get(ctx, client.ObjectKeyFromObject(sp), sp)).To(Succeed())
		sp.Spec.PercentageOfNodesToScore = ptr.To[int32](70)
		Expect(k8s.Update(ctx, sp)).To(Succeed())
		Eventually(live).WithTimeout(catchUp).WithPolling(200 * time.Millisecond).
			Should(HaveField("Status.ActiveGeneration", sp.Generation))

		By("every pod is bound exactly once and no node is overcommitted")
		Eventually(stream.done).WithTimeout(60 * time.Second).Should(BeClosed())
		pods := stream.end()
		Expect(pods).To(HaveLen(streamPods))
		checkBoundOnce(ctx, ns, pods)

		By("the operator did not exit, is ready, and its metrics caught up")
		Expect(op.done).NotTo(BeClosed(), "the operator exited")
		Eventually(op.ready).WithTimeout(30 * time.Second).Should(Succeed())
		// A pod whose binding the API server committed as it was killed
		// (the response lost) counts as an error attempt, as in upstream
		// kube-scheduler, and is never counted scheduled: its retry is
		// refused, the pod being bound already. So every pod is counted,
		// scheduled or failed, and at most the few a kill can lose are not
		// counted scheduled.
		Eventually(func(g Gomega) {
			body := scrape(g, metricsAddr)
			scheduled := attempts(g, body, profile, "scheduled")
			g.Expect(scheduled).To(BeNumerically("<=", len(pods)))
			g.Expect(scheduled).To(BeNumerically(">=", len(pods)-5))
			g.Expect(scheduled + attempts(g, body, profile, "error")).To(BeNumerically(">=", len(pods)))
		}).WithTimeout(30 * time.Second).WithPolling(500 * time.Millisecond).Should(Succeed())
		op.stop()
	})

	It("longer than the renew deadline: the leader stops scheduling and says so, the standby takes over, nothing is bound twice", func(ctx SpecContext) {
		const profile = "outage-ha"
		const lns = "outage-ha"
		Expect(k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: lns}})).To(Succeed())
		Expect(k8s.Create(ctx, &v1alpha1.SchedulerProfile{ObjectMeta: metav1.ObjectMeta{Name: profile}})).To(Succeed())
		leaderFlags := []string{
			"--leader-elect", "--leader-elect-id=outage-ha", "--leader-elect-namespace=default",
			"--leader-elect-lease-duration=4s", "--leader-elect-renew-deadline=3s", "--leader-elect-retry-period=500ms",
		}
		a := startInstance("outage-a", leaderFlags...)
		Eventually(func(g Gomega) {
			var sp v1alpha1.SchedulerProfile
			g.Expect(k8s.Get(ctx, client.ObjectKey{Name: profile}, &sp)).To(Succeed())
			g.Expect(meta.IsStatusConditionTrue(sp.Status.Conditions, v1alpha1.ConditionReady)).To(BeTrue())
		}).WithTimeout(60 * time.Second).WithPolling(200 * time.Millisecond).Should(Succeed())
		b := startInstance("outage-b", leaderFlags...)
		Eventually(b.ready).WithTimeout(60 * time.Second).Should(Succeed())

		const total = 120
		stream := startPodStream(lns, profile, 100*time.Millisecond, total)
		Eventually(func() int { stream.mu.Lock(); defer stream.mu.Unlock(); return len(stream.created) }).
			WithTimeout(30 * time.Second).Should(BeNumerically(">=", 20))

		By("stopping kube-apiserver for 10 s, longer than the 3 s renew deadline")
		apiserver := findAPIServer()
		apiserver.stop()
		down := time.Now()
		// The leader gives up once it could not renew for the renew
		// deadline, before its lease can expire for anyone else, and exits.
		Eventually(a.done).WithTimeout(9*time.Second).Should(BeClosed(), "the leader still runs without its lease")
		gaveUp := time.Now()
		Expect(b.done).NotTo(BeClosed(), "the standby held no lease and keeps waiting for one")
		time.Sleep(10*time.Second - time.Since(down)) // the rest of the outage, not a wait for an outcome
		apiserver.start()
		up := time.Now()
		Expect(gaveUp.Before(up)).To(BeTrue())
		log, err := os.ReadFile(filepath.Join(workDir, "outage-a.log"))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(log)).To(ContainSubstring("leader election lost"), "the leader says why it stopped")

		By("the standby takes over; the old leader comes back as a standby, as its pod would")
		startInstance("outage-a-again", leaderFlags...)
		Eventually(stream.done).WithTimeout(60 * time.Second).Should(BeClosed())
		pods := stream.end()
		Expect(pods).To(HaveLen(total))
		checkBoundOnce(ctx, lns, pods)

		By("the audit log: the old leader bound nothing after it gave up, the new one nothing before")
		var byA, byB int
		for _, bd := range bindings(ctx) {
			if !strings.HasPrefix(bd.Pod, lns+"/") || bd.Code != 201 {
				continue
			}
			switch bd.User {
			case "outage-a":
				byA++
				Expect(bd.At.Before(gaveUp)).To(BeTrue(), "the old leader bound %s after it gave up", bd.Pod)
			case "outage-b":
				byB++
				Expect(bd.At.After(gaveUp)).To(BeTrue(), "the standby bound %s before the old leader gave up", bd.Pod)
			default:
				Fail(fmt.Sprintf("%s bound %s", bd.User, bd.Pod))
			}
		}
		GinkgoWriter.Printf("bindings: old leader %d, new leader %d\n", byA, byB)
		Expect(byA).To(BeNumerically(">", 0))
		Expect(byB).To(BeNumerically(">", 0))
		Expect(byA+byB).To(BeNumerically(">=", total-5), "bindings in the audit log (a kill may lose a few)")
	})
})
