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
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/controllers"
	"github.com/profile-scheduler/profile-scheduler/internal/testenv"
	"github.com/profile-scheduler/profile-scheduler/scheduler"
)

// The suite runs one control plane, shared nodes, and an operator (the
// real scheduler plus the controllers and the webhook) that a spec may
// stop and start again.

const (
	// admissionLabel selects the profiles the test webhook configuration
	// sends to the webhook; the others exercise the controller path alone,
	// as in a cluster without the webhook installed.
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
	env, cfg, err = testenv.Start()
	Expect(err).NotTo(HaveOccurred())
	k8s, err = client.New(cfg, client.Options{Scheme: scheme})
	Expect(err).NotTo(HaveOccurred())

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
	if op != nil {
		op.stop()
	}
	if cancelAll != nil {
		cancelAll()
	}
	if env != nil {
		Expect(env.Stop()).To(Succeed())
	}
})

// zapLevel is info, or V(4) with TEST_VERBOSE set.
func zapLevel() zapcore.Level {
	if os.Getenv("TEST_VERBOSE") != "" {
		return zapcore.Level(-4)
	}
	return zapcore.InfoLevel
}

// operator is one run of the manager with the scheduler and controllers.
type operator struct {
	sched  *scheduler.Scheduler
	cache  cache.Cache
	cancel context.CancelFunc
	done   chan struct{}
}

// startOperator starts the manager with the real scheduler, the
// controllers and the webhook, and returns once /readyz says every
// profile that exists has been reconciled.
func startOperator(allowDefaultScheduler ...bool) *operator {
	cs, err := kubernetes.NewForConfig(cfg)
	Expect(err).NotTo(HaveOccurred())
	factory := informers.NewSharedInformerFactory(cs, 0)
	sched, err := scheduler.New(cs, factory,
		scheduler.WithKubeConfig(cfg),
		scheduler.WithPodBackoff(100*time.Millisecond, 2*time.Second),
		scheduler.WithOutOfTreeRegistry(frameworkruntime.Registry{secondSortName: newSecondSort}))
	Expect(err).NotTo(HaveOccurred())

	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: fmt.Sprintf("127.0.0.1:%d", probePort),
		WebhookServer:          webhook.NewServer(webhook.Options{Host: "127.0.0.1", Port: webhookPort, CertDir: certDir}),
		Controller:             config.Controller{SkipNameValidation: ptr.To(true)},
		Cache:                  cache.Options{ByObject: controllers.SecretsCacheByObject(secretsNamespace)},
	})
	Expect(err).NotTo(HaveOccurred())
	Expect(mgr.Add(sched)).To(Succeed())
	Expect(controllers.Setup(mgr, sched, controllers.Options{
		AllowDefaultScheduler:    len(allowDefaultScheduler) > 0 && allowDefaultScheduler[0],
		ExtenderSecretsNamespace: secretsNamespace,
		Webhook: &controllers.WebhookOptions{
			SelfSigned:        true,
			CertDir:           certDir,
			ConfigurationName: webhookConfig,
			IPs:               []net.IP{net.ParseIP("127.0.0.1")},
		},
	})).To(Succeed())

	ctx, cancel := context.WithCancel(suiteCtx)
	o := &operator{sched: sched, cache: mgr.GetCache(), cancel: cancel, done: make(chan struct{})}
	go func() {
		defer GinkgoRecover()
		defer close(o.done)
		Expect(mgr.Start(ctx)).To(Succeed())
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

// secondSortName is an out-of-tree queue sort plugin: enabling it beside
// PrioritySort gives a profile two queue sort plugins, which the CRD schema
// cannot see when it comes through multiPoint.
const secondSortName = "SecondSort"

type secondSort struct{}

func (secondSort) Name() string                        { return secondSortName }
func (secondSort) Less(a, b fwk.QueuedEntityInfo) bool { return false }
func newSecondSort(context.Context, runtime.Object, fwk.Handle) (fwk.Plugin, error) {
	return secondSort{}, nil
}

func freePort() int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func testWebhookConfiguration() *admissionregistrationv1.ValidatingWebhookConfiguration {
	url := fmt.Sprintf("https://127.0.0.1:%d%s", webhookPort, controllers.ProfileWebhookPath)
	return &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: webhookConfig},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name:                    "vschedulerprofile.scheduling.profilescheduler.io",
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
					Resources:   []string{"schedulerprofiles"},
					Scope:       ptr.To(admissionregistrationv1.ClusterScope),
				},
			}},
		}},
	}
}

// createNode creates a ready node with 4 CPUs, 8Gi and 110 pods.
func createNode(name string, labels map[string]string, taints []corev1.Taint) {
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{corev1.LabelHostname: name}},
		Spec:       corev1.NodeSpec{Taints: taints},
	}
	for k, v := range labels {
		node.Labels[k] = v
	}
	Expect(k8s.Create(suiteCtx, node)).To(Succeed())
	capacity := corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse("4"),
		corev1.ResourceMemory: resource.MustParse("8Gi"),
		corev1.ResourcePods:   resource.MustParse("110"),
	}
	node.Status = corev1.NodeStatus{
		Capacity:    capacity,
		Allocatable: capacity,
		Conditions: []corev1.NodeCondition{{
			Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady",
			LastHeartbeatTime: metav1.Now(), LastTransitionTime: metav1.Now(),
		}},
	}
	Expect(k8s.Status().Update(suiteCtx, node)).To(Succeed())
	// Admission taints a new node not-ready; with no node lifecycle
	// controller to lift it, the test does.
	Eventually(func() error {
		if err := k8s.Get(suiteCtx, client.ObjectKeyFromObject(node), node); err != nil {
			return err
		}
		var kept []corev1.Taint
		for _, t := range node.Spec.Taints {
			if t.Key != corev1.TaintNodeNotReady {
				kept = append(kept, t)
			}
		}
		node.Spec.Taints = kept
		return k8s.Update(suiteCtx, node)
	}).WithTimeout(timeout).Should(Succeed())
}

// createNamespace creates a namespace for one spec's pods.
func createNamespace(prefix string) string {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix + "-"}}
	Expect(k8s.Create(suiteCtx, ns)).To(Succeed())
	return ns.Name
}

type podOption func(*corev1.Pod)

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
	root, err := testenv.RepoRoot()
	Expect(err).NotTo(HaveOccurred())
	return filepath.Join(append([]string{root}, parts...)...)
}
