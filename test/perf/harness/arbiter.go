package harness

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/profile-scheduler/profile-scheduler/test/perf/workloads"
)

// ArbiterWebhookConfiguration is the ValidatingWebhookConfiguration a
// coexist run with the bind arbiter creates: its one webhook sends the
// binds of the run's namespace to the operator, which writes its
// self-signed CA into it (--webhook-configuration-name).
const ArbiterWebhookConfiguration = "bench-bind-arbiter"

// arbiterIdleProfile is the schedulerName an operator that serves only
// the arbiter serves (no pod asks for it).
const arbiterIdleProfile = "bench-arbiter-idle"

// BindArbiter is the bind arbiter of a coexist run: the operator's webhook
// server on Port (https://localhost), serving it with ArbiterArgs.
// Process, when set, is an operator started for the arbiter alone (beside
// two kube-schedulers); otherwise the run's second scheduler serves it.
type BindArbiter struct {
	Port    int
	Process Scheduler
}

// ArbiterArgs are the operator's flags to serve the bind arbiter on port,
// its serving certificate in certDir, valid for localhost.
func ArbiterArgs(port int, certDir string) []string {
	return []string{
		"--enable-webhook", "--webhook-port=" + strconv.Itoa(port), "--webhook-cert-dir=" + certDir,
		"--webhook-service-name=localhost", "--webhook-configuration-name=" + ArbiterWebhookConfiguration,
		"--bind-arbiter",
	}
}

// startArbiter creates the webhook configuration for e's namespace,
// starts a.Process if set, and waits until the arbiter judges binds: the
// operator wrote its CA, and a bind of a pod no node has room for is
// refused. stop deletes the configuration and stops the process.
func (r *Runner) startArbiter(ctx context.Context, c *workloads.Case, e *env, a *BindArbiter) (stop func(), err error) {
	var stops []func()
	stop = func() {
		for i := len(stops) - 1; i >= 0; i-- {
			stops[i]()
		}
	}
	// Probes live in a namespace of their own, out of the run's
	// recording: one bound before the arbiter answers is not a bind of
	// the run's.
	probeNS := e.ns + "-arbiter"
	if err := r.CP.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: probeNS}}); err != nil {
		return stop, fmt.Errorf("creating the arbiter's probe namespace: %w", err)
	}
	stops = append(stops, func() {
		_ = r.CP.Client.Delete(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: probeNS}})
	})
	url := fmt.Sprintf("https://localhost:%d/validate-pods-binding", a.Port)
	vwc := &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: ArbiterWebhookConfiguration},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name:                    "vbinding.bindarbiter.profilescheduler.io",
			AdmissionReviewVersions: []string{"v1"},
			SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
			FailurePolicy:           ptr.To(admissionregistrationv1.Ignore),
			TimeoutSeconds:          ptr.To[int32](1),
			ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: &url},
			NamespaceSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
				Key: corev1.LabelMetadataName, Operator: metav1.LabelSelectorOpIn, Values: []string{e.ns, probeNS},
			}}},
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
				Rule: admissionregistrationv1.Rule{
					APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods/binding"},
					Scope: ptr.To(admissionregistrationv1.NamespacedScope),
				},
			}},
		}},
	}
	_ = r.CP.Client.Delete(ctx, vwc)
	if err := r.CP.Client.Create(ctx, vwc); err != nil {
		return stop, fmt.Errorf("creating the bind arbiter's webhook configuration: %w", err)
	}
	stops = append(stops, func() { _ = r.CP.Client.Delete(context.Background(), vwc) })
	if a.Process != nil {
		prof, err := workloads.SchedulerProfile(c.Profile, arbiterIdleProfile)
		if err != nil {
			return stop, err
		}
		if err := a.Process.Start(ctx, prof); err != nil {
			return stop, fmt.Errorf("starting the bind arbiter: %w", err)
		}
		stops = append(stops, func() { a.Process.Stop(context.Background()) })
	}
	return stop, r.waitArbiter(ctx, e, probeNS)
}

// waitArbiter waits until a bind, in namespace ns, of a pod that no node
// of e has room for is refused by the arbiter (a bind admitted meanwhile,
// the arbiter not answering yet, is undone).
func (r *Runner) waitArbiter(ctx context.Context, e *env, ns string) error {
	deadline := time.Now().Add(2 * time.Minute)
	var node string
	for n := range e.nodes {
		node = n
		break
	}
	if node == "" {
		return fmt.Errorf("the bind arbiter: no node to probe it with")
	}
	for i := 0; ; i++ {
		name := fmt.Sprintf("arbiter-probe-%d", i)
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec: corev1.PodSpec{
				SchedulerName:                 "bench-nobody",
				TerminationGracePeriodSeconds: ptr.To[int64](0),
				Containers: []corev1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10", Resources: corev1.ResourceRequirements{
					Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100000")},
				}}},
			},
		}
		if err := r.CP.Client.Create(ctx, pod); err != nil {
			return fmt.Errorf("creating the arbiter's probe: %w", err)
		}
		err := r.CP.Client.SubResource("binding").Create(ctx, pod, &corev1.Binding{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Target:     corev1.ObjectReference{Kind: "Node", Name: node},
		})
		if derr := r.CP.Client.Delete(ctx, pod, client.GracePeriodSeconds(0)); derr != nil {
			return fmt.Errorf("deleting the arbiter's probe: %w", derr)
		}
		if err != nil && strings.Contains(err.Error(), "has no room for") {
			r.logf("bind arbiter: judging binds after %d probes", i+1)
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the bind arbiter never refused a bind that does not fit (last: %v)", err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}
