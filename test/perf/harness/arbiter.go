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

package harness

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/google/pprof/profile"
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

// startArbiter creates the webhook configuration for e's namespace and
// namespaces, starts a.Process if set, and waits until the arbiter judges binds: the
// operator wrote its CA, and a bind of a pod no node has room for is
// refused. stop deletes the configuration and stops the process.
func (r *Runner) startArbiter(ctx context.Context, c *workloads.Case, e *env, a *BindArbiter, namespaces ...string) (stop func(), err error) {
	var undo cleanups
	stop = undo.run
	url := fmt.Sprintf("https://localhost:%d/validate-pods-binding", a.Port)
	probeNS, err := r.registerBindWebhook(ctx, e, &undo, "arbiter", "the bind arbiter", ArbiterWebhookConfiguration, url, nil, namespaces...)
	if err != nil {
		return stop, err
	}
	if a.Process != nil {
		prof, err := workloads.SchedulerProfile(c.Profile, arbiterIdleProfile)
		if err != nil {
			return stop, err
		}
		if err := a.Process.Start(ctx, prof); err != nil {
			return stop, fmt.Errorf("starting the bind arbiter: %w", err)
		}
		undo.add(func() { a.Process.Stop(context.Background()) })
	}
	return stop, r.waitArbiter(ctx, e, probeNS)
}

// registerBindWebhook creates, for the bind webhook named who, the
// namespace e.ns-suffix its probes live in (out of the run's recording: a
// probe bound before the webhook answers is not a bind of the run's) and
// the ValidatingWebhookConfiguration name that sends the binds of e's
// namespace, the probes' and namespaces to url (trusting caBundle when
// set); undo deletes both. It returns the probes' namespace.
func (r *Runner) registerBindWebhook(ctx context.Context, e *env, undo *cleanups, suffix, who, name, url string, caBundle []byte, namespaces ...string) (string, error) {
	probeNS := e.ns + "-" + suffix
	if err := r.CP.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: probeNS}}); err != nil {
		return "", fmt.Errorf("creating the probe namespace of %s: %w", who, err)
	}
	undo.add(func() {
		_ = r.CP.Client.Delete(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: probeNS}})
	})
	del, err := r.createBindWebhook(ctx, name, url, caBundle, append([]string{e.ns, probeNS}, namespaces...))
	if err != nil {
		return "", fmt.Errorf("creating the webhook configuration of %s: %w", who, err)
	}
	undo.add(del)
	return probeNS, nil
}

// createBindWebhook creates the ValidatingWebhookConfiguration name,
// whose one webhook sends the binds of namespaces to url (trusting
// caBundle when set) and fails open; del deletes it.
func (r *Runner) createBindWebhook(ctx context.Context, name, url string, caBundle []byte, namespaces []string) (del func(), err error) {
	vwc := &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name:                    "vbinding.bindarbiter.profilescheduler.io",
			AdmissionReviewVersions: []string{"v1"},
			SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
			FailurePolicy:           ptr.To(admissionregistrationv1.Ignore),
			TimeoutSeconds:          ptr.To[int32](1),
			ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: &url, CABundle: caBundle},
			NamespaceSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
				Key: corev1.LabelMetadataName, Operator: metav1.LabelSelectorOpIn, Values: namespaces,
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
		return nil, err
	}
	return func() { _ = r.CP.Client.Delete(context.Background(), vwc) }, nil
}

// waitArbiter waits until a bind, in namespace ns, of a pod that no node
// of e has room for is refused by the arbiter (a bind admitted meanwhile,
// the arbiter not answering yet, is undone).
func (r *Runner) waitArbiter(ctx context.Context, e *env, ns string) error {
	return r.probeBindWebhook(ctx, e, ns, "the bind arbiter", "refused a bind that does not fit", func(err error) bool {
		return err != nil && strings.Contains(err.Error(), "has no room for")
	})
}

// probeBindWebhook binds, in namespace ns, pods that no node of e has room
// for, one every half second and each deleted at once, until answered
// says the bind webhook named who answered it; done is what it did, for
// the error after two minutes.
func (r *Runner) probeBindWebhook(ctx context.Context, e *env, ns, who, done string, answered func(bindErr error) bool) error {
	deadline := time.Now().Add(2 * time.Minute)
	var node string
	for n := range e.nodes {
		node = n
		break
	}
	if node == "" {
		return fmt.Errorf("%s: no node to probe it with", who)
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
			return fmt.Errorf("creating the probe of %s: %w", who, err)
		}
		err := r.CP.Client.SubResource("binding").Create(ctx, pod, &corev1.Binding{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Target:     corev1.ObjectReference{Kind: "Node", Name: node},
		})
		if derr := r.CP.Client.Delete(ctx, pod, client.GracePeriodSeconds(0)); derr != nil {
			return fmt.Errorf("deleting the probe of %s: %w", who, derr)
		}
		if answered(err) {
			r.logf("%s: answering binds after %d probes", who, i+1)
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s never %s (last: %v)", who, done, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// ArbiterCost is what judging a run's binds cost the operator serving the
// bind arbiter, from the first create of the run's pods to the end of the
// settle after its last bind.
type ArbiterCost struct {
	// Judged counts the decisions (admitted or refused, by the
	// operator's bind_arbiter_decisions_total); Refused those refused;
	// Unjudged the binds admitted without a decision (not leading, an
	// unknown node or pod, not synced).
	Judged   float64 `json:"judged"`
	Refused  float64 `json:"refused"`
	Unjudged float64 `json:"unjudged"`
	// DecisionMicros is the decisions' mean duration (their histogram's
	// sum over its count), wall time.
	DecisionMicros float64 `json:"decisionMicros"`
	// CPUSeconds is the operator's CPU over the span (/proc);
	// DecisionCPUSeconds its share the CPU profile labels work=arbiter
	// (the decisions, their JSON and TLS around them not included).
	CPUSeconds         float64 `json:"cpuSeconds"`
	DecisionCPUSeconds float64 `json:"decisionCPUSeconds"`
	// CPU is the profile's samples over the span, by who spent them.
	CPU   CPUSplit `json:"cpu"`
	Error string   `json:"error,omitempty"`
}

// DecisionCPUMicrosPerBind is the labelled CPU per decision made.
func (a *ArbiterCost) DecisionCPUMicrosPerBind() float64 {
	if a == nil || a.Judged+a.Unjudged <= 0 {
		return 0
	}
	return a.DecisionCPUSeconds * 1e6 / (a.Judged + a.Unjudged)
}

// ProcessCPUMicrosPerBind is the operator's whole CPU per bind it was
// asked about: beside two kube-schedulers, where it serves the arbiter
// alone, what the arbiter costs in all (TLS, JSON, its informers).
func (a *ArbiterCost) ProcessCPUMicrosPerBind() float64 {
	if a == nil || a.Judged+a.Unjudged <= 0 {
		return 0
	}
	return a.CPUSeconds * 1e6 / (a.Judged + a.Unjudged)
}

// arbiterDecisions is the operator's counter of the arbiter's decisions,
// by outcome (scheduler.Arbiter*).
const arbiterDecisions = "profile_scheduler_bind_arbiter_decisions_total"

// measureArbiter starts measuring what srv, the operator serving the bind
// arbiter (run with Pprof and Metrics), spends on it; stop returns the
// figures and saves the CPU profile as name.arbiter.cpu.pb.gz.
func (r *Runner) measureArbiter(ctx context.Context, srv Scheduler, name string) (stop func() *ArbiterCost) {
	out := &ArbiterCost{}
	ps, _ := srv.(*ProfileScheduler)
	metricsURL := ""
	if ps != nil {
		metricsURL = ps.MetricsURL()
	}
	var m0 Metrics
	var errs []error
	if metricsURL != "" {
		var err error
		if m0, err = fetchMetrics(ctx, metricsURL); err != nil {
			errs = append(errs, err)
		}
	} else {
		errs = append(errs, errors.New("the arbiter's operator serves no /metrics"))
	}
	cpu0 := srv.Usage().CPUSeconds
	var stopCPU func() (*profile.Profile, error)
	if base := srv.PprofURL(); base != "" {
		stopCPU = cpuWindows(ctx, base)
	} else {
		errs = append(errs, errors.New("the arbiter's operator serves no /debug/pprof"))
	}
	return func() *ArbiterCost {
		if stopCPU != nil {
			p, err := stopCPU()
			if err == nil {
				out.CPU, err = splitCPU(p)
				r.saveProfile(name+".arbiter.cpu.pb.gz", p)
			}
			if err != nil {
				errs = append(errs, fmt.Errorf("CPU profile: %w", err))
			}
		}
		out.CPUSeconds = srv.Usage().CPUSeconds - cpu0
		if out.CPU.Profiled > 0 {
			out.DecisionCPUSeconds = out.CPUSeconds * out.CPU.Arbiter / out.CPU.Profiled
		}
		if m0 != "" {
			m1, err := fetchMetrics(ctx, metricsURL)
			if err != nil {
				errs = append(errs, err)
			} else {
				delta := func(name string, match map[string]string) float64 { return m1.Sum(name, match) - m0.Sum(name, match) }
				admitted := delta(arbiterDecisions, map[string]string{"outcome": "Admitted"})
				out.Refused = delta(arbiterDecisions, map[string]string{"outcome": "Refused"})
				out.Judged = admitted + out.Refused
				out.Unjudged = delta(arbiterDecisions, nil) - out.Judged
				const hist = "profile_scheduler_bind_arbiter_decision_duration_seconds"
				if n := delta(hist+"_count", nil); n > 0 {
					out.DecisionMicros = delta(hist+"_sum", nil) * 1e6 / n
				}
			}
		}
		if err := errors.Join(errs...); err != nil {
			out.Error = err.Error()
			r.logf("%s: the arbiter's cost: %v", name, err)
		}
		r.logf("%s: bind arbiter: %.0f judged (%.0f refused), %.0f unjudged; decision %.1f µs mean; operator %.2f CPU s, decisions %.3f CPU s (%.1f µs per bind; the whole operator %.0f µs per bind)",
			name, out.Judged, out.Refused, out.Unjudged, out.DecisionMicros, out.CPUSeconds, out.DecisionCPUSeconds,
			out.DecisionCPUMicrosPerBind(), out.ProcessCPUMicrosPerBind())
		return out
	}
}
