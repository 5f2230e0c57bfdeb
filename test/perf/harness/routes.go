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
	"bytes"
	"context"
	"fmt"
	"sync"
	"syscall"
	"time"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/internal/routing"
	"github.com/profile-scheduler/profile-scheduler/internal/test/stats"
	"github.com/profile-scheduler/profile-scheduler/test/perf/workloads"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// RoutesProgram is what runs the routes inside kube-apiserver in a routes
// run.
type RoutesProgram string

const (
	// TableProgram is the routes program of config/routes reading the
	// RoutingTable the operator writes.
	TableProgram RoutesProgram = "table"
	// CompiledProgram is every route compiled into the CEL of the
	// policy, as the operator wrote it before the routes became data
	// (routing.Table.CompiledPolicy).
	CompiledProgram RoutesProgram = "compiled"
)

// RoutesRun is one run of a routes case: pods created with Routes routes
// in force (0: none), on a control plane of its own.
type RoutesRun struct {
	Case   string `json:"case"`
	Repeat int    `json:"repeat"`
	// Routes in force while the pods were created.
	Routes int `json:"routes"`
	// Program that ran them.
	Program RoutesProgram `json:"program"`
	Pods    int           `json:"pods"`
	// Routed counts the pods that came out of admission with a route's
	// annotation (all of them with routes, none without).
	Routed int `json:"routed"`
	// Seconds from the first create to the last answer; PodsPerSecond is
	// Pods over it.
	Seconds       float64 `json:"seconds"`
	PodsPerSecond float64 `json:"podsPerSecond"`
	// CreateMillis is each create's time as the client saw it.
	CreateMillis stats.Summary `json:"createMillis"`
	// AdmissionMillis is kube-apiserver's mutating admission step of
	// CREATE requests (where MutatingAdmissionPolicies run), p50/p90/p99
	// from apiserver_admission_step_admission_duration_seconds_summary:
	// on the run's own control plane, almost every CREATE is a pod's.
	AdmissionMillis AdmissionQuantiles `json:"admissionMillis"`
	Error           string             `json:"error,omitempty"`
}

// AdmissionQuantiles are quantiles of an admission latency summary, ms.
type AdmissionQuantiles struct {
	P50 float64 `json:"p50"`
	P90 float64 `json:"p90"`
	P99 float64 `json:"p99"`
}

// routeLabel marks the namespaces of a routes run: route i selects the
// namespace labelled i.
const routeLabel = "bench.profilescheduler.io/route"

// RunRoutes runs case c on sched (ours) with routes routes in force, run
// by program: one namespace per route of the case's count, each selected
// by its route (routes past the count come first and select none), and
// the case's pods spread over them round robin, created as fast as the
// runner's workers can while the operator is stopped. No node exists:
// nothing binds, creation alone is measured.
func (r *Runner) RunRoutes(ctx context.Context, c *workloads.Case, vals map[string]int, sched Scheduler, schedulerName string, routes int, program RoutesProgram, repeat int) (run *RoutesRun, err error) {
	run = &RoutesRun{Case: c.Name, Repeat: repeat, Routes: routes, Program: program}
	defer func() {
		if err != nil {
			run.Error = err.Error()
		}
	}()
	x := c.Routes
	count, err := x.Count.Value(vals)
	if err != nil {
		return run, err
	}
	n, err := x.Pods.Value(vals)
	if err != nil {
		return run, err
	}
	e, err := r.prepare(ctx, c, fmt.Sprintf("%d-routes-%s", routes, program))
	defer r.cleanup(e)
	if err != nil {
		return run, err
	}
	prof, err := workloads.SchedulerProfile(c.Profile, schedulerName)
	if err != nil {
		return run, err
	}
	if err := sched.Start(ctx, prof); err != nil {
		return run, err
	}
	defer sched.Stop(context.Background())

	// The same namespaces with and without routes.
	namespaces := make([]string, count)
	for i := range namespaces {
		namespaces[i] = fmt.Sprintf("%s-%d", e.ns, i)
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespaces[i], Labels: map[string]string{routeLabel: fmt.Sprint(i)}}}
		if _, err := r.CP.Core.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
			return run, err
		}
	}
	for i := range routes {
		route := &v1alpha1.ProfileRoute{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("bench-%d", i)},
			Spec: v1alpha1.ProfileRouteSpec{
				Profile:           schedulerName,
				NamespaceSelector: &v1alpha1.LabelSelector{MatchLabels: map[string]string{routeLabel: fmt.Sprint(i)}},
			},
		}
		if i >= count {
			// Tried first, and selecting no namespace of the run: every
			// pod is evaluated against them all.
			route.Spec.Priority = 1
		}
		if err := r.CP.Client.Create(ctx, route); err != nil {
			return run, fmt.Errorf("creating route %s: %w", route.Name, err)
		}
	}
	if err := r.waitRoutesInForce(ctx, routes); err != nil {
		return run, err
	}

	// Routes work with the operator stopped, and it is stopped while the
	// pods are created (SIGSTOP): a routed pod is not scheduled then (it
	// would be, unschedulable on no node, with a status write and an
	// event each, where an unrouted one waits for a kube-scheduler that
	// does not run), so both runs cost kube-apiserver the creates alone.
	if err := syscall.Kill(sched.PID(), syscall.SIGSTOP); err != nil {
		return run, fmt.Errorf("stopping the operator: %w", err)
	}
	defer func() { _ = syscall.Kill(sched.PID(), syscall.SIGCONT) }()
	if program == CompiledProgram {
		if err := r.compileRoutes(ctx, namespaces[0]); err != nil {
			return run, err
		}
	}

	pods := make([]*corev1.Pod, n)
	for i := range pods {
		ns := namespaces[i%len(namespaces)]
		p, err := renderPods(c, x.PodTemplate, "pod", i, 1, ns, DefaultScheduler, vals)
		if err != nil {
			return run, err
		}
		pods[i] = p[0]
	}
	r.logf("%s: creating %d pods in %d namespaces with %d routes in force", c.Name, n, len(namespaces), routes)
	var (
		mu     sync.Mutex
		times  = make([]time.Duration, 0, n)
		routed int
	)
	t0 := time.Now()
	err = r.parallel(ctx, n, func(ctx context.Context, i int) error {
		start := time.Now()
		got, err := r.CP.Core.CoreV1().Pods(pods[i].Namespace).Create(ctx, pods[i], metav1.CreateOptions{})
		d := time.Since(start)
		if err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		times = append(times, d)
		if got.Annotations[v1alpha1.RouteAnnotation] != "" && got.Spec.SchedulerName == schedulerName {
			routed++
		}
		return nil
	})
	run.Seconds = time.Since(t0).Seconds()
	if err != nil {
		return run, err
	}
	run.Pods, run.Routed = n, routed
	run.PodsPerSecond = float64(n) / run.Seconds
	run.CreateMillis = stats.Summarize(stats.Durations(times))
	if want := map[bool]int{true: n, false: 0}[routes > 0]; routed != want {
		return run, fmt.Errorf("%d of %d pods routed with %d routes in force, want %d", routed, n, routes, want)
	}
	if run.AdmissionMillis, err = r.admissionQuantiles(ctx); err != nil {
		return run, err
	}
	r.logf("%s: %d routes (%s): %.0f pods/s, create p50 %.1f ms p99 %.1f ms, mutating admission p50 %.2f ms p99 %.2f ms",
		c.Name, routes, program, run.PodsPerSecond, run.CreateMillis.P50, run.CreateMillis.P99, run.AdmissionMillis.P50, run.AdmissionMillis.P99)
	return run, nil
}

// compileRoutes puts the routes in force as the operator did before they
// became data: every route compiled into the CEL of the routes policy,
// which takes no parameter, and waits until a probe pod in namespace
// shows kube-apiserver runs it.
func (r *Runner) compileRoutes(ctx context.Context, namespace string) error {
	var routes v1alpha1.ProfileRouteList
	if err := r.CP.Client.List(ctx, &routes); err != nil {
		return err
	}
	var profiles v1alpha1.SchedulerProfileList
	if err := r.CP.Client.List(ctx, &profiles); err != nil {
		return err
	}
	var written v1alpha1.RoutingTable
	if err := r.CP.Client.Get(ctx, client.ObjectKey{Name: routing.PolicyName}, &written); err != nil {
		return fmt.Errorf("reading the operator's RoutingTable: %w", err)
	}
	table, _ := routing.Build(routing.Input{Routes: routes.Items, Profiles: profiles.Items, Protected: written.Spec.ProtectedNamespaces})
	if len(table.Entries) != len(written.Spec.Routes) {
		return fmt.Errorf("compiled %d routes, the operator's table has %d", len(table.Entries), len(written.Spec.Routes))
	}
	compiled, compiledBinding, revision := table.CompiledPolicy(routing.PolicyName)
	var policy admissionregistrationv1.MutatingAdmissionPolicy
	if err := r.CP.Client.Get(ctx, client.ObjectKey{Name: routing.PolicyName}, &policy); err != nil {
		return err
	}
	policy.Spec = compiled.Spec
	if err := r.CP.Client.Update(ctx, &policy); err != nil {
		return fmt.Errorf("writing the compiled routes policy: %w", err)
	}
	var binding admissionregistrationv1.MutatingAdmissionPolicyBinding
	if err := r.CP.Client.Get(ctx, client.ObjectKey{Name: routing.PolicyName}, &binding); err != nil {
		return err
	}
	binding.Spec = compiledBinding.Spec
	if err := r.CP.Client.Update(ctx, &binding); err != nil {
		return fmt.Errorf("writing the compiled routes binding: %w", err)
	}
	var seen string
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		probe := routing.ProbePod(namespace, routing.PolicyName)
		if err := r.CP.Client.Create(ctx, probe, client.DryRunAll); err != nil {
			return false, err
		}
		seen = probe.Annotations[routing.RevisionAnnotation]
		return seen == revision, nil
	})
	if err != nil {
		return fmt.Errorf("the compiled routes policy (revision %s) not in force, a probe shows %q: %w", revision, seen, err)
	}
	return nil
}

// waitRoutesInForce waits until every ProfileRoute is Ready (the operator
// saw kube-apiserver apply its policy to a dry-run pod) and there are n.
func (r *Runner) waitRoutesInForce(ctx context.Context, n int) error {
	var last string
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		var list v1alpha1.ProfileRouteList
		if err := r.CP.Client.List(ctx, &list); err != nil {
			return false, nil
		}
		if len(list.Items) != n {
			last = fmt.Sprintf("%d routes", len(list.Items))
			return false, nil
		}
		for _, route := range list.Items {
			c := meta.FindStatusCondition(route.Status.Conditions, v1alpha1.ConditionReady)
			if c == nil || c.Status != metav1.ConditionTrue || c.ObservedGeneration != route.Generation {
				last = route.Name + " not Ready"
				if c != nil {
					last += ": " + c.Reason + ": " + c.Message
				}
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		return fmt.Errorf("routes not in force (%s): %w", last, err)
	}
	return nil
}

// admissionQuantiles reads the mutating admission step's latency summary
// of CREATE requests from kube-apiserver's metrics.
func (r *Runner) admissionQuantiles(ctx context.Context) (AdmissionQuantiles, error) {
	raw, err := r.CP.Core.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return AdmissionQuantiles{}, fmt.Errorf("reading kube-apiserver's metrics: %w", err)
	}
	return admissionQuantilesFrom(raw)
}

func admissionQuantilesFrom(raw []byte) (AdmissionQuantiles, error) {
	const name = "apiserver_admission_step_admission_duration_seconds_summary"
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(raw))
	if err != nil {
		return AdmissionQuantiles{}, fmt.Errorf("parsing kube-apiserver's metrics: %w", err)
	}
	fam := families[name]
	if fam == nil {
		return AdmissionQuantiles{}, fmt.Errorf("kube-apiserver has no %s", name)
	}
	for _, m := range fam.GetMetric() {
		if label(m, "type") != "admit" || label(m, "operation") != "CREATE" || label(m, "rejected") != "false" {
			continue
		}
		var out AdmissionQuantiles
		for _, q := range m.GetSummary().GetQuantile() {
			ms := q.GetValue() * 1000
			switch q.GetQuantile() {
			case 0.5:
				out.P50 = ms
			case 0.9:
				out.P90 = ms
			case 0.99:
				out.P99 = ms
			}
		}
		return out, nil
	}
	return AdmissionQuantiles{}, fmt.Errorf("%s has no admit CREATE series", name)
}

func label(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}
