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

package controllers_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap/zapcore"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	internaloperator "github.com/profile-scheduler/profile-scheduler/app/operator"
	"github.com/profile-scheduler/profile-scheduler/controllers"
	"github.com/profile-scheduler/profile-scheduler/internal/controlplane"
	"github.com/profile-scheduler/profile-scheduler/internal/test/testenv"
	"github.com/profile-scheduler/profile-scheduler/scheduler"
)

// The suite runs one control plane, shared nodes, and an operator (the
// real scheduler plus the controllers and the webhook) that a spec may
// stop and start again.

const (
	// admissionLabel selects the profiles and ExtenderConfigs the test
	// webhook configuration sends to the webhooks; the others exercise the
	// controller path alone, as in a cluster without the webhook installed.
	admissionLabel = "profilescheduler.io/admission-test"
	webhookConfig  = "profile-scheduler-test"
	// secretsNamespace is the operator's extender-secrets namespace: the
	// only one whose Secrets it caches and reads.
	secretsNamespace = "extender-secrets"
)

var (
	env       *envtest.Environment
	cfg       *rest.Config
	k8s       client.Client
	scheme    = runtime.NewScheme()
	suiteCtx  context.Context
	cancelAll context.CancelFunc

	webhookPort int
	probePort   int
	certDir     string
	op          *operator
)

func TestControllers(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "controllers")
}

var _ = BeforeSuite(func() {
	logger := zap.New(zap.WriteTo(GinkgoWriter), zap.UseDevMode(true), zap.Level(zapLevel()))
	logf.SetLogger(logger)
	klog.SetLogger(logger)
	Expect(clientgoscheme.AddToScheme(scheme)).To(Succeed())
	Expect(v1alpha1.AddToScheme(scheme)).To(Succeed())
	suiteCtx, cancelAll = context.WithCancel(context.Background())

	var err error
	env, cfg, err = controlplane.Start()
	Expect(err).NotTo(HaveOccurred())
	k8s, err = client.New(cfg, client.Options{Scheme: scheme})
	Expect(err).NotTo(HaveOccurred())
	// The installer's routes program, which does nothing until the
	// operator writes its RoutingTable.
	Expect(controlplane.InstallRoutesPolicy(suiteCtx, k8s)).To(Succeed())

	Expect(k8s.Create(suiteCtx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: secretsNamespace}})).To(Succeed())
	for i := 1; i <= 3; i++ {
		createNode(fmt.Sprintf("node-%d", i), nil, nil)
	}

	webhookPort, probePort = freePort(), freePort()
	certDir = GinkgoT().TempDir()
	Expect(k8s.Create(suiteCtx, testWebhookConfiguration())).To(Succeed())
	op = startOperator()
})

var _ = AfterSuite(func() {
	var unscraped []string
	if op != nil {
		unscraped = InterceptGomegaFailures(checkUsedMetricsScraped)
		op.stop()
	}
	if cancelAll != nil {
		cancelAll()
	}
	if env != nil {
		Expect(env.Stop()).To(Succeed())
	}
	Expect(unscraped).To(BeEmpty())
})

// zapLevel is info, or V(4) with TEST_VERBOSE set.
func zapLevel() zapcore.Level {
	if os.Getenv("TEST_VERBOSE") != "" {
		return zapcore.Level(-4)
	}
	return zapcore.InfoLevel
}

// operator is one run of the operator as it ships (operator.New): the
// manager with the scheduler, the controllers and the webhook.
type operator struct {
	// sched is the operator's scheduler, for specs that ask what it serves.
	sched  *scheduler.Scheduler
	cache  cache.Cache
	cancel context.CancelFunc
	done   chan struct{}
}

// startOperator assembles the operator through operator.New, with the
// suite's out-of-tree plugins, a short pod back-off and the webhook on
// 127.0.0.1, starts it, and returns once /readyz says every profile that
// exists has been reconciled.
func startOperator(allowDefaultScheduler ...bool) *operator {
	registry, validators := outOfTree()
	opts := internaloperator.Defaults()
	opts.MetricsAddr = "0"
	opts.ProbeAddr = fmt.Sprintf("127.0.0.1:%d", probePort)
	opts.PodInitialBackoff, opts.PodMaxBackoff = 100*time.Millisecond, 2*time.Second
	opts.AllowDefaultScheduler = len(allowDefaultScheduler) > 0 && allowDefaultScheduler[0]
	opts.OutOfTreeRegistry, opts.PluginArgsValidators = registry, validators
	opts.ExtenderSecretsNamespace = secretsNamespace
	// Rollouts' own metrics are asked of the suite's Prometheus API.
	prometheusAPI()
	opts.PrometheusAddress = promURL
	// The arbiter is served; only the specs that add its webhook (for
	// their namespace) send it binds.
	opts.BindArbiter = true
	opts.Webhook = &internaloperator.WebhookOptions{
		Host:              "127.0.0.1",
		Port:              webhookPort,
		CertDir:           certDir,
		SelfSigned:        true,
		ConfigurationName: webhookConfig,
		IPs:               []net.IP{net.ParseIP("127.0.0.1")},
	}
	// The suite stops and starts the operator again in one process.
	opts.SkipControllerNameValidation = true
	op, err := internaloperator.New(cfg, opts)
	Expect(err).NotTo(HaveOccurred())

	ctx, cancel := context.WithCancel(suiteCtx)
	o := &operator{sched: op.Scheduler, cache: op.GetCache(), cancel: cancel, done: make(chan struct{})}
	go func() {
		defer GinkgoRecover()
		defer close(o.done)
		Expect(op.Start(ctx)).To(Succeed())
	}()
	Eventually(func() (int, error) {
		resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/readyz", probePort))
		if err != nil {
			return 0, err
		}
		resp.Body.Close()
		return resp.StatusCode, nil
	}).WithTimeout(60 * time.Second).WithPolling(100 * time.Millisecond).Should(Equal(http.StatusOK))
	return o
}

func (o *operator) stop() {
	o.cancel()
	Eventually(o.done).WithTimeout(60 * time.Second).Should(BeClosed())
}

// secondSortName is testenv's out-of-tree queue sort plugin, which the
// refusal table enables.
const secondSortName = testenv.SecondSortName

var newSecondSort = testenv.NewSecondSort

// freePort is a free port below the kernel's ephemeral port range
// (testenv.FreePort). The operator stops and starts again on the same
// ports; a port of the ephemeral range may be taken in between by any
// outgoing connection on the machine.
func freePort() int {
	return testenv.FreePort(GinkgoT())
}

// testWebhookConfiguration sends the SchedulerProfiles and ExtenderConfigs
// labelled admissionLabel to the operator's webhooks, failing closed so a
// spec sees every answer.
func testWebhookConfiguration() *admissionregistrationv1.ValidatingWebhookConfiguration {
	hook := func(name, path, resource string) admissionregistrationv1.ValidatingWebhook {
		url := fmt.Sprintf("https://127.0.0.1:%d%s", webhookPort, path)
		return admissionregistrationv1.ValidatingWebhook{
			Name:                    name,
			AdmissionReviewVersions: []string{"v1"},
			SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
			FailurePolicy:           ptr.To(admissionregistrationv1.Fail),
			TimeoutSeconds:          ptr.To[int32](10),
			ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: &url},
			ObjectSelector:          &metav1.LabelSelector{MatchLabels: map[string]string{admissionLabel: "true"}},
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
				Rule: admissionregistrationv1.Rule{
					APIGroups:   []string{v1alpha1.GroupVersion.Group},
					APIVersions: []string{v1alpha1.GroupVersion.Version},
					Resources:   []string{resource},
					Scope:       ptr.To(admissionregistrationv1.ClusterScope),
				},
			}},
		}
	}
	return &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: webhookConfig},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{
			hook("vschedulerprofile.scheduling.profilescheduler.io", controllers.ProfileWebhookPath, "schedulerprofiles"),
			hook("vextenderconfig.scheduling.profilescheduler.io", controllers.ExtenderWebhookPath, "extenderconfigs"),
		},
	}
}

// createNode creates a ready node with 32 CPUs, 64Gi and 110 pods: room for
// the 500m pods that specs bind and leave (envtest has no kubelet, so a
// bound pod stays), whatever order the specs run in.
func createNode(name string, labels map[string]string, taints []corev1.Taint) {
	node := controlplane.Node(name, corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse("32"),
		corev1.ResourceMemory: resource.MustParse("64Gi"),
		corev1.ResourcePods:   resource.MustParse("110"),
	})
	for k, v := range labels {
		node.Labels[k] = v
	}
	node.Spec.Taints = taints
	Expect(controlplane.CreateReadyNode(suiteCtx, k8s, node)).To(Succeed())
}

// createNamespace creates a namespace for one spec's pods.
func createNamespace(prefix string) string {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix + "-"}}
	Expect(k8s.Create(suiteCtx, ns)).To(Succeed())
	return ns.Name
}

type podOption func(*corev1.Pod)

// requestingNothing drops the pod's resource requests, so it fits a node
// whatever other specs left bound there.
func requestingNothing(p *corev1.Pod) {
	for i := range p.Spec.Containers {
		p.Spec.Containers[i].Resources = corev1.ResourceRequirements{}
	}
}

func onPool(pool string) podOption {
	return func(p *corev1.Pod) {
		p.Spec.NodeSelector = map[string]string{"pool": pool}
		p.Spec.Tolerations = []corev1.Toleration{{Key: "pool", Operator: corev1.TolerationOpEqual, Value: pool, Effect: corev1.TaintEffectNoSchedule}}
	}
}

// createPod creates a pod asking for 500m CPU and 1Gi.
func createPod(ns, name, schedulerName string, opts ...podOption) *corev1.Pod {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: corev1.PodSpec{
			SchedulerName:                 schedulerName,
			AutomountServiceAccountToken:  ptr.To(false),
			TerminationGracePeriodSeconds: ptr.To[int64](0),
			Containers: []corev1.Container{{
				Name:  "pause",
				Image: "registry.k8s.io/pause:3.10",
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
					corev1.ResourceCPU:    resource.MustParse("500m"),
					corev1.ResourceMemory: resource.MustParse("1Gi"),
				}},
			}},
		},
	}
	for _, o := range opts {
		o(pod)
	}
	Expect(k8s.Create(suiteCtx, pod)).To(Succeed())
	return pod
}

// boundNode waits until the pod is bound and returns its node.
func boundNode(pod *corev1.Pod, timeout time.Duration) string {
	var node string
	Eventually(func(g Gomega) {
		p := &corev1.Pod{}
		g.Expect(k8s.Get(suiteCtx, client.ObjectKeyFromObject(pod), p)).To(Succeed())
		g.Expect(p.Spec.NodeName).NotTo(BeEmpty(), "pod %s/%s is not bound", pod.Namespace, pod.Name)
		node = p.Spec.NodeName
	}).WithTimeout(timeout).WithPolling(100 * time.Millisecond).Should(Succeed())
	return node
}

// staysPending checks that the pod is not bound during d.
func staysPending(pod *corev1.Pod, d time.Duration) {
	Consistently(func() (string, error) {
		p := &corev1.Pod{}
		err := k8s.Get(suiteCtx, client.ObjectKeyFromObject(pod), p)
		return p.Spec.NodeName, err
	}).WithTimeout(d).WithPolling(200 * time.Millisecond).Should(BeEmpty())
}

func getProfile(name string) *v1alpha1.SchedulerProfile {
	sp := &v1alpha1.SchedulerProfile{}
	Expect(k8s.Get(suiteCtx, client.ObjectKey{Name: name}, sp)).To(Succeed())
	return sp
}

// kstatusOf computes the kstatus of an object the way Flux and the
// cli-utils based tools do.
func kstatusOf(g Gomega, obj client.Object) *status.Result {
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	g.Expect(err).NotTo(HaveOccurred())
	res, err := status.Compute(&unstructured.Unstructured{Object: u})
	g.Expect(err).NotTo(HaveOccurred())
	return res
}

// expectLive waits until the latest generation of the profile serves:
// Ready=True/Active, observedGeneration == activeGeneration == generation,
// kstatus Current. It returns the profile as last read.
func expectLive(name string, timeout time.Duration) *v1alpha1.SchedulerProfile {
	var sp *v1alpha1.SchedulerProfile
	Eventually(func(g Gomega) {
		sp = &v1alpha1.SchedulerProfile{}
		g.Expect(k8s.Get(suiteCtx, client.ObjectKey{Name: name}, sp)).To(Succeed())
		ready := meta.FindStatusCondition(sp.Status.Conditions, v1alpha1.ConditionReady)
		g.Expect(ready).NotTo(BeNil())
		g.Expect(ready.Status).To(Equal(metav1.ConditionTrue), ready.Message)
		g.Expect(ready.Reason).To(Equal(v1alpha1.ReasonActive))
		g.Expect(sp.Status.ObservedGeneration).To(Equal(sp.Generation))
		g.Expect(sp.Status.ActiveGeneration).To(Equal(sp.Generation))
		g.Expect(kstatusOf(g, sp).Status).To(Equal(status.CurrentStatus))
	}).WithTimeout(timeout).WithPolling(100 * time.Millisecond).Should(Succeed())
	return sp
}

// expectRefused waits until the latest generation of the profile is
// refused with reason: Stalled=True, Ready=False, kstatus Failed.
func expectRefused(name, reason string, timeout time.Duration) *v1alpha1.SchedulerProfile {
	var sp *v1alpha1.SchedulerProfile
	Eventually(func(g Gomega) {
		sp = &v1alpha1.SchedulerProfile{}
		g.Expect(k8s.Get(suiteCtx, client.ObjectKey{Name: name}, sp)).To(Succeed())
		g.Expect(sp.Status.ObservedGeneration).To(Equal(sp.Generation))
		ready := meta.FindStatusCondition(sp.Status.Conditions, v1alpha1.ConditionReady)
		g.Expect(ready).NotTo(BeNil())
		g.Expect(ready.Status).To(Equal(metav1.ConditionFalse))
		g.Expect(ready.Reason).To(Equal(reason), ready.Message)
		stalled := meta.FindStatusCondition(sp.Status.Conditions, v1alpha1.ConditionStalled)
		g.Expect(stalled).NotTo(BeNil())
		g.Expect(stalled.Status).To(Equal(metav1.ConditionTrue))
		g.Expect(kstatusOf(g, sp).Status).To(Equal(status.FailedStatus))
	}).WithTimeout(timeout).WithPolling(100 * time.Millisecond).Should(Succeed())
	return sp
}

func readyMessage(sp *v1alpha1.SchedulerProfile) string {
	c := meta.FindStatusCondition(sp.Status.Conditions, v1alpha1.ConditionReady)
	if c == nil {
		return ""
	}
	return c.Message
}

func repoPath(parts ...string) string {
	root, err := controlplane.RepoRoot()
	Expect(err).NotTo(HaveOccurred())
	return filepath.Join(append([]string{root}, parts...)...)
}
