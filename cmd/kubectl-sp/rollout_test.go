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
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/internal/controlplane"
)

func TestSteer(t *testing.T) {
	inProgress := func(phase string) *v1alpha1.RolloutStatus {
		return &v1alpha1.RolloutStatus{Generation: 4, Phase: phase, Step: 2, Steps: 3, StepKind: v1alpha1.StepCanary, Percent: 10}
	}
	paused := map[string]string{v1alpha1.AnnotationRolloutPaused: "true"}
	const sp = `schedulerprofiles.scheduling.profilescheduler.io "careful"`
	for _, tc := range []struct {
		name        string
		sp          *v1alpha1.SchedulerProfile
		annotations map[string]string
		action      rolloutAction
		full        bool
		want        map[string]string // a value "<removed>" removes the key
		warning     string
		err         string
	}{
		{name: "promote the step", sp: profileAt(4, 4, 3, inProgress(v1alpha1.RolloutProgressing)), action: actionPromote,
			want: map[string]string{v1alpha1.AnnotationRolloutPromote: "4/2"}},
		{name: "promote --full", sp: profileAt(4, 4, 3, inProgress(v1alpha1.RolloutProgressing)), action: actionPromote, full: true,
			want: map[string]string{v1alpha1.AnnotationRolloutPromote: "4/full"}},
		{name: "promote a paused rollout", sp: profileAt(4, 4, 3, inProgress(v1alpha1.RolloutPaused)), action: actionPromote,
			want: map[string]string{v1alpha1.AnnotationRolloutPromote: "4/2"}},
		{name: "abort", sp: profileAt(4, 4, 3, inProgress(v1alpha1.RolloutProgressing)), action: actionAbort,
			want: map[string]string{v1alpha1.AnnotationRolloutAbort: "4"}},
		{name: "abort while a newer generation waits", sp: profileAt(5, 4, 3, inProgress(v1alpha1.RolloutProgressing)), action: actionAbort,
			want:    map[string]string{v1alpha1.AnnotationRolloutAbort: "4"},
			warning: `generation 5 of ` + sp + ` is not rolled out yet; this acts on the rollout of generation 4`},
		{name: "pause", sp: profileAt(4, 4, 3, inProgress(v1alpha1.RolloutProgressing)), action: actionPause,
			want: map[string]string{v1alpha1.AnnotationRolloutPaused: "true"}},
		{name: "pause twice", sp: profileAt(4, 4, 3, inProgress(v1alpha1.RolloutPaused)), annotations: paused, action: actionPause,
			err: sp + ` is already paused`},
		{name: "resume", sp: profileAt(4, 4, 3, inProgress(v1alpha1.RolloutPaused)), annotations: paused, action: actionResume,
			want: map[string]string{v1alpha1.AnnotationRolloutPaused: "<removed>"}},
		{name: "resume a leftover annotation once the rollout ended", sp: profileAt(4, 4, 4, &v1alpha1.RolloutStatus{Generation: 4, Phase: v1alpha1.RolloutPromoted}),
			annotations: paused, action: actionResume,
			want: map[string]string{v1alpha1.AnnotationRolloutPaused: "<removed>"}},
		{name: "resume what is not paused", sp: profileAt(4, 4, 3, inProgress(v1alpha1.RolloutProgressing)), action: actionResume,
			err: sp + ` is not paused`},
		{name: "resume a rollout held by its failed analysis", sp: profileAt(4, 4, 3, inProgress(v1alpha1.RolloutPaused)), action: actionResume,
			err: sp + ` is not paused by scheduling.profilescheduler.io/rollout-paused: its rollout of generation 4 is held by its failed analysis (onFailure: Pause); promote or abort it`},
		{name: "promote a rolled back rollout", sp: profileAt(4, 4, 3, &v1alpha1.RolloutStatus{Generation: 4, Phase: v1alpha1.RolloutRolledBack}), action: actionPromote,
			err: `cannot promote ` + sp + `: no rollout in progress (the last one, of generation 4, is RolledBack); generation 3 serves`},
		{name: "pause a profile that never rolled out", sp: profileAt(1, 1, 1, nil), action: actionPause,
			err: `cannot pause ` + sp + `: no rollout in progress (it has had none); generation 1 serves`},
		{name: "abort with nothing serving", sp: profileAt(1, 1, 0, nil), action: actionAbort,
			err: `cannot abort ` + sp + `: no rollout in progress (it has had none); no generation serves`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.sp.Annotations = tc.annotations
			got, warning, err := steer(tc.sp, tc.action, tc.full)
			if errString(err) != tc.err {
				t.Fatalf("error %q, want %q", errString(err), tc.err)
			}
			if warning != tc.warning {
				t.Errorf("warning %q, want %q", warning, tc.warning)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("annotations %v, want %v", got, tc.want)
			}
			for k, v := range tc.want {
				gv, ok := got[k]
				switch {
				case !ok:
					t.Errorf("%s not patched", k)
				case v == "<removed>" && gv != nil:
					t.Errorf("%s set to %q, want it removed", k, *gv)
				case v != "<removed>" && (gv == nil || *gv != v):
					t.Errorf("%s = %v, want %q", k, gv, v)
				}
			}
		})
	}
}

func TestRolloutNames(t *testing.T) {
	for arg, want := range map[string]string{
		"careful": "careful", "sp/careful": "careful", "schedulerprofile/careful": "careful",
		"schedulerprofiles.scheduling.profilescheduler.io/careful": "careful",
	} {
		o := &rolloutOptions{}
		if err := o.complete([]string{arg}); err != nil || o.name != want {
			t.Errorf("%s: name %q, error %v; want %q", arg, o.name, err, want)
		}
	}
	for _, arg := range []string{"pod/careful", "sp/"} {
		o := &rolloutOptions{}
		if err := o.complete([]string{arg}); err == nil {
			t.Errorf("%s: accepted as %q", arg, o.name)
		}
	}
}

// rolloutEnv is an API server with the CRDs, a kubeconfig for the commands
// and a client that writes status.rollout as the operator would.
type rolloutEnv struct {
	t          *testing.T
	c          client.Client
	kubeconfig string
}

// startRolloutEnv starts a control plane for this test (no operator runs:
// the test writes the status the operator would).
func startRolloutEnv(t *testing.T) *rolloutEnv {
	t.Helper()
	env, cfg, err := controlplane.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := env.Stop(); err != nil {
			t.Error(err)
		}
	})
	admin, err := env.AddUser(envtest.User{Name: "rollout-admin", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	data, err := admin.KubeConfig()
	if err != nil {
		t.Fatal(err)
	}
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kubeconfig, data, 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	return &rolloutEnv{t: t, c: c, kubeconfig: kubeconfig}
}

// rolloutStreams are the streams of a command whose output the test reads
// while it runs.
func rolloutStreams(out, errOut io.Writer) genericiooptions.IOStreams {
	return genericiooptions.IOStreams{In: io.NopCloser(&bytes.Buffer{}), Out: out, ErrOut: errOut}
}

// syncBuffer is written by a command running in a goroutine and read by
// the test meanwhile.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// result is what a user sees of a command: its output, its error output,
// and the error main prints (exit 1) or nil (exit 0).
type result struct {
	out, errOut *syncBuffer
	err         error
}

// start runs `kubectl sp ARGS` in a goroutine; wait for its result on the
// channel.
func (e *rolloutEnv) start(ctx context.Context, args ...string) (*syncBuffer, <-chan result) {
	out, errOut := &syncBuffer{}, &syncBuffer{}
	done := make(chan result, 1)
	root := newRootCommand(rolloutStreams(out, errOut))
	root.SetArgs(append([]string{"--kubeconfig", e.kubeconfig}, args...))
	go func() {
		err := root.ExecuteContext(ctx)
		done <- result{out: out, errOut: errOut, err: err}
	}()
	return out, done
}

// run runs `kubectl sp ARGS` to its end.
func (e *rolloutEnv) run(args ...string) result {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, done := e.start(ctx, args...)
	return <-done
}

// profile reads the profile back.
func (e *rolloutEnv) profile(name string) *v1alpha1.SchedulerProfile {
	e.t.Helper()
	sp := &v1alpha1.SchedulerProfile{}
	if err := e.c.Get(context.Background(), client.ObjectKey{Name: name}, sp); err != nil {
		e.t.Fatal(err)
	}
	return sp
}

// setStatus writes the profile's status through the status subresource, as
// the operator does.
func (e *rolloutEnv) setStatus(name string, mutate func(sp *v1alpha1.SchedulerProfile)) {
	e.t.Helper()
	sp := e.profile(name)
	mutate(sp)
	if err := e.c.Status().Update(context.Background(), sp); err != nil {
		e.t.Fatal(err)
	}
}

// annotation is the profile's annotation key, and whether it is set.
func (e *rolloutEnv) annotation(name, key string) (string, bool) {
	v, ok := e.profile(name).Annotations[key]
	return v, ok
}

var (
	stepStarted    = metav1.NewTime(time.Now().Add(-3 * time.Minute).Truncate(time.Second))
	stepEnds       = metav1.NewTime(time.Now().Add(7 * time.Minute).Truncate(time.Second))
	promotedBefore = v1alpha1.RolloutRecord{Generation: 1, Outcome: v1alpha1.RolloutPromoted, Time: stepStarted}
)

func rolloutCond(typ string, status metav1.ConditionStatus, gen int64, reason, msg string) metav1.Condition {
	return metav1.Condition{Type: typ, Status: status, ObservedGeneration: gen, Reason: reason, Message: msg, LastTransitionTime: stepStarted}
}

// canary sets what the operator writes at step 2 of 3 (canary 10%) of
// generation gen's rollout, generation gen-1 serving.
func atCanaryStep(gen int64) func(sp *v1alpha1.SchedulerProfile) {
	return func(sp *v1alpha1.SchedulerProfile) {
		sp.Status.ObservedGeneration = gen
		sp.Status.ActiveGeneration = gen - 1
		sp.Status.Conditions = []metav1.Condition{
			rolloutCond(v1alpha1.ConditionReady, metav1.ConditionTrue, gen, v1alpha1.ReasonRollingOut, "generation 1 serves; generation 2 is rolling out"),
			rolloutCond(v1alpha1.ConditionReconciling, metav1.ConditionTrue, gen, v1alpha1.ReasonRollingOut, "rolling out generation 2: step 2/3 canary 10%"),
			rolloutCond(v1alpha1.ConditionStalled, metav1.ConditionFalse, gen, v1alpha1.ReasonRollingOut, ""),
		}
		sp.Status.Rollout = &v1alpha1.RolloutStatus{
			Generation: gen, ServingGeneration: gen - 1, Phase: v1alpha1.RolloutProgressing,
			Step: 2, Steps: 3, StepKind: v1alpha1.StepCanary, Percent: 10,
			StepStarted: &stepStarted, StepEnds: &stepEnds, Summary: "canary 10% 3m/10m",
			Analysis: []v1alpha1.RolloutMetric{
				{Metric: "ShadowAgreement", New: "0.98", Threshold: "0.9", Samples: 120, Verdict: "Pass"},
			},
			Shadow: &v1alpha1.ShadowResult{Judged: 120, SameNode: 110, FeasibleWhereServingPlaced: 117, ServingPlaced: 119, WouldPlace: 1, WouldNotPlace: 2,
				Disagreements: []v1alpha1.ShadowDisagreement{{Pod: "shop/web-7", ServingNode: "node-2", Plugin: "NodeAffinity"}}},
			History: []v1alpha1.RolloutRecord{promotedBefore},
		}
	}
}

// promoted sets what the operator writes once generation gen is promoted.
func promotedStatus(gen int64) func(sp *v1alpha1.SchedulerProfile) {
	return func(sp *v1alpha1.SchedulerProfile) {
		sp.Status.ActiveGeneration = gen
		sp.Status.Conditions = []metav1.Condition{
			rolloutCond(v1alpha1.ConditionReady, metav1.ConditionTrue, gen, v1alpha1.ReasonActive, "generation 2 serves pods"),
			rolloutCond(v1alpha1.ConditionReconciling, metav1.ConditionFalse, gen, v1alpha1.ReasonActive, ""),
			rolloutCond(v1alpha1.ConditionStalled, metav1.ConditionFalse, gen, v1alpha1.ReasonActive, ""),
		}
		ro := sp.Status.Rollout
		ro.Phase, ro.Step, ro.Summary, ro.Message = v1alpha1.RolloutPromoted, 0, "promoted", "generation 2 promoted after step 3/3"
		ro.History = []v1alpha1.RolloutRecord{{Generation: gen, Outcome: v1alpha1.RolloutPromoted, Time: stepEnds}, promotedBefore}
	}
}

const rolledBackMessage = "step 2/3 canary 10%: UnschedulableRatio 2.40 exceeds 1.2 (serving 1.00)"

// rolledBack sets what the operator writes when the analysis of generation
// gen's step fails.
func rolledBackStatus(gen int64) func(sp *v1alpha1.SchedulerProfile) {
	return func(sp *v1alpha1.SchedulerProfile) {
		sp.Status.ActiveGeneration = gen - 1
		sp.Status.Conditions = []metav1.Condition{
			rolloutCond(v1alpha1.ConditionReady, metav1.ConditionFalse, gen, v1alpha1.ReasonRolledBack, rolledBackMessage),
			rolloutCond(v1alpha1.ConditionReconciling, metav1.ConditionFalse, gen, v1alpha1.ReasonRolledBack, ""),
			rolloutCond(v1alpha1.ConditionStalled, metav1.ConditionTrue, gen, v1alpha1.ReasonRolledBack, rolledBackMessage),
		}
		ro := sp.Status.Rollout
		ro.Phase, ro.Step, ro.Summary, ro.Message = v1alpha1.RolloutRolledBack, 0, "rolled back", rolledBackMessage
		ro.Analysis = []v1alpha1.RolloutMetric{
			{Metric: "UnschedulableRatio", New: "2.40", Serving: "1.00", Threshold: "1.2", Samples: 50, ServingSamples: 450, Verdict: "Fail"},
		}
		ro.History = []v1alpha1.RolloutRecord{{Generation: gen, Outcome: v1alpha1.RolloutRolledBack, Reason: v1alpha1.ReasonRolledBack, Message: rolledBackMessage, Time: stepEnds}, promotedBefore}
	}
}

// waitFor waits until out contains s, or the command ended.
func waitFor(t *testing.T, out *syncBuffer, done <-chan result, s string) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for !strings.Contains(out.String(), s) {
		select {
		case r := <-done:
			t.Fatalf("the command ended (%v) before printing %q:\n%s%s", r.err, s, r.out, r.errOut)
		case <-deadline:
			t.Fatalf("no %q within 30s:\n%s", s, out)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// ended is the command's result within 30 s.
func ended(t *testing.T, done <-chan result) result {
	t.Helper()
	select {
	case r := <-done:
		return r
	case <-time.After(30 * time.Second):
		t.Fatal("the command did not end within 30s")
		return result{}
	}
}

// TestRolloutCommands runs every rollout command against an API server with
// the CRDs, the test writing status.rollout as the operator would.
func TestRolloutCommands(t *testing.T) {
	e := startRolloutEnv(t)
	ctx := context.Background()
	const name = "careful"
	sp := &v1alpha1.SchedulerProfile{
		ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: map[string]string{"team": "platform"}},
		Spec: v1alpha1.SchedulerProfileSpec{Rollout: &v1alpha1.Rollout{Steps: []v1alpha1.RolloutStep{
			{Shadow: &v1alpha1.ShadowStep{Duration: metav1.Duration{Duration: time.Minute}}},
			{Canary: &v1alpha1.CanaryStep{Percent: 10, Duration: metav1.Duration{Duration: 10 * time.Minute}}},
			{Canary: &v1alpha1.CanaryStep{Percent: 50, Duration: metav1.Duration{Duration: 10 * time.Minute}}},
		}}},
	}
	if err := e.c.Create(ctx, sp); err != nil {
		t.Fatal(err)
	}
	e.setStatus(name, func(sp *v1alpha1.SchedulerProfile) {
		sp.Status.ObservedGeneration, sp.Status.ActiveGeneration = 1, 1
		sp.Status.Conditions = []metav1.Condition{rolloutCond(v1alpha1.ConditionReady, metav1.ConditionTrue, 1, v1alpha1.ReasonActive, "generation 1 serves pods")}
	})

	t.Run("no rollout yet", func(t *testing.T) {
		for _, verb := range []string{"promote", "abort", "pause", "resume"} {
			r := e.run("rollout", verb, name)
			want := `cannot ` + verb + ` schedulerprofiles.scheduling.profilescheduler.io "careful": no rollout in progress (it has had none); generation 1 serves`
			if r.err == nil || !strings.Contains(r.err.Error(), want) {
				t.Errorf("rollout %s: error %v, want %q", verb, r.err, want)
			}
		}
		r := e.run("rollout", "status", name)
		if r.err != nil {
			t.Fatalf("status of a profile without rollout: %v", r.err)
		}
		if want := "schedulerprofiles.scheduling.profilescheduler.io \"careful\" has no rollout in progress: generation 1 serves\n"; !strings.HasSuffix(r.out.String(), want) {
			t.Errorf("status:\n%s\nwant it to end with %q", r.out, want)
		}
		if r := e.run("rollout", "status", "missing"); r.err == nil || r.err.Error() != `schedulerprofiles.scheduling.profilescheduler.io "missing" not found` {
			t.Errorf("status of a missing profile: %v", r.err)
		}
	})

	// A spec change: generation 2 rolls out, at step 2 of 3.
	sp = e.profile(name)
	sp.Spec.PercentageOfNodesToScore = ptr.To[int32](50)
	if err := e.c.Update(ctx, sp); err != nil {
		t.Fatal(err)
	}
	if sp.Generation != 2 {
		t.Fatalf("generation %d after the change, want 2", sp.Generation)
	}
	e.setStatus(name, atCanaryStep(2))

	t.Run("status --watch=false prints the rollout once", func(t *testing.T) {
		r := e.run("rollout", "status", name, "--watch=false")
		if r.err != nil {
			t.Fatalf("status --watch=false in progress: %v", r.err)
		}
		for _, want := range []string{
			"Name:         careful\n",
			"Generation:   2 (observed 2, serving 1)\n",
			"Rollout:      generation 2, Progressing\n",
			"Step:         2/3 canary 10%\n",
			"Window:       started " + stepStarted.UTC().Format(time.RFC3339),
			"  METRIC            NEW    SERVING   THRESHOLD   SAMPLES   SERVING SAMPLES   VERDICT\n",
			"  ShadowAgreement   0.98   <none>    0.9         120       0                 Pass\n",
			"  Feasible where serving placed:      117 of 119\n",
			"    shop/web-7   node-2         <none>     NodeAffinity\n",
			"  1            Promoted   <none>   " + stepStarted.UTC().Format(time.RFC3339),
			`Waiting for schedulerprofiles.scheduling.profilescheduler.io "careful" rollout to finish: generation 2, step 2 of 3 (canary 10%), window ends in`,
		} {
			if !strings.Contains(r.out.String(), want) {
				t.Errorf("status output lacks %q:\n%s", want, r.out)
			}
		}
	})

	t.Run("promote", func(t *testing.T) {
		r := e.run("rollout", "promote", name)
		if r.err != nil {
			t.Fatal(r.err)
		}
		if got, want := r.out.String(), "schedulerprofile.scheduling.profilescheduler.io/careful promoted\n"; got != want {
			t.Errorf("promote printed %q, want %q", got, want)
		}
		if v, _ := e.annotation(name, v1alpha1.AnnotationRolloutPromote); v != "2/2" {
			t.Errorf("promote annotation %q, want 2/2 (generation 2, step 2)", v)
		}
		r = e.run("rollout", "promote", "sp/"+name, "--full", "-o", "name")
		if r.err != nil {
			t.Fatal(r.err)
		}
		if got, want := r.out.String(), "schedulerprofile.scheduling.profilescheduler.io/careful\n"; got != want {
			t.Errorf("promote -o name printed %q, want %q", got, want)
		}
		if v, _ := e.annotation(name, v1alpha1.AnnotationRolloutPromote); v != "2/full" {
			t.Errorf("promote --full annotation %q, want 2/full", v)
		}
		if v, _ := e.annotation(name, "team"); v != "platform" {
			t.Errorf("the merge patch lost another annotation: team=%q", v)
		}
		if got := e.profile(name); got.Generation != 2 || got.Spec.PercentageOfNodesToScore == nil {
			t.Errorf("promote changed the spec: generation %d", got.Generation)
		}
	})

	t.Run("pause and resume", func(t *testing.T) {
		r := e.run("rollout", "pause", name)
		if r.err != nil || r.out.String() != "schedulerprofile.scheduling.profilescheduler.io/careful paused\n" {
			t.Fatalf("pause: %v %q", r.err, r.out)
		}
		if v, _ := e.annotation(name, v1alpha1.AnnotationRolloutPaused); v != "true" {
			t.Errorf("paused annotation %q, want true", v)
		}
		if r := e.run("rollout", "pause", name); r.err == nil ||
			r.err.Error() != `schedulerprofiles.scheduling.profilescheduler.io "careful" is already paused` {
			t.Errorf("pause twice: %v", r.err)
		}
		r = e.run("rollout", "resume", name)
		if r.err != nil || r.out.String() != "schedulerprofile.scheduling.profilescheduler.io/careful resumed\n" {
			t.Fatalf("resume: %v %q", r.err, r.out)
		}
		if _, ok := e.annotation(name, v1alpha1.AnnotationRolloutPaused); ok {
			t.Error("resume left the paused annotation")
		}
		if r := e.run("rollout", "resume", name); r.err == nil ||
			r.err.Error() != `schedulerprofiles.scheduling.profilescheduler.io "careful" is not paused` {
			t.Errorf("resume twice: %v", r.err)
		}
	})

	t.Run("abort", func(t *testing.T) {
		r := e.run("rollout", "abort", name)
		if r.err != nil || r.out.String() != "schedulerprofile.scheduling.profilescheduler.io/careful aborted\n" {
			t.Fatalf("abort: %v %q", r.err, r.out)
		}
		if v, _ := e.annotation(name, v1alpha1.AnnotationRolloutAbort); v != "2" {
			t.Errorf("abort annotation %q, want 2", v)
		}
	})

	t.Run("retry after an abort takes the abort and a step's promotion away in the same write", func(t *testing.T) {
		e.setStatus(name, func(sp *v1alpha1.SchedulerProfile) {
			ro := sp.Status.Rollout
			ro.Phase, ro.Step, ro.Summary, ro.Message = v1alpha1.RolloutAborted, 0, "aborted", "aborted (annotation "+v1alpha1.AnnotationRolloutAbort+")"
		})
		sp := e.profile(name)
		sp.Annotations[v1alpha1.AnnotationRolloutPromote] = "2/1"
		if err := e.c.Update(context.Background(), sp); err != nil {
			t.Fatal(err)
		}
		if r := e.run("rollout", "retry", name); r.err != nil {
			t.Fatalf("retry: %v %q", r.err, r.out)
		}
		got := e.profile(name).Annotations
		if got[v1alpha1.AnnotationRolloutRetry] != "2/1" {
			t.Errorf("retry annotation %q, want 2/1", got[v1alpha1.AnnotationRolloutRetry])
		}
		for _, key := range []string{v1alpha1.AnnotationRolloutAbort, v1alpha1.AnnotationRolloutPromote} {
			if v, ok := got[key]; ok {
				t.Errorf("%s=%q left in place: it would end the retried rollout at once", key, v)
			}
		}
		if got["team"] != "platform" {
			t.Errorf("the profile's own annotations changed: %v", got)
		}
		// The operator rolls it out again, at step 2 as the specs after
		// this one expect.
		e.setStatus(name, atCanaryStep(2))
	})

	t.Run("status watches until promoted", func(t *testing.T) {
		out, done := e.start(ctx, "rollout", "status", name)
		waitFor(t, out, done, "Waiting for")
		e.setStatus(name, func(sp *v1alpha1.SchedulerProfile) {
			sp.Status.Rollout.Step, sp.Status.Rollout.Percent = 3, 50
		})
		waitFor(t, out, done, "step 3 of 3 (canary 50%)")
		e.setStatus(name, promotedStatus(2))
		r := ended(t, done)
		if r.err != nil {
			t.Fatalf("status of a promoted rollout: %v\n%s", r.err, r.out)
		}
		if want := "schedulerprofiles.scheduling.profilescheduler.io \"careful\" successfully rolled out: generation 2 promoted\n"; !strings.HasSuffix(r.out.String(), want) {
			t.Errorf("status output:\n%s\nwant it to end with %q", r.out, want)
		}
		if r := e.run("rollout", "status", name, "--watch=false"); r.err != nil || !strings.Contains(r.out.String(), "successfully rolled out") {
			t.Errorf("status --watch=false once promoted: %v\n%s", r.err, r.out)
		}
		if r := e.run("rollout", "promote", name); r.err == nil || !strings.Contains(r.err.Error(),
			`cannot promote schedulerprofiles.scheduling.profilescheduler.io "careful": no rollout in progress (the last one, of generation 2, is Promoted); generation 2 serves`) {
			t.Errorf("promote once promoted: %v", r.err)
		}
	})

	// Generation 3 rolls out, and its analysis fails.
	sp = e.profile(name)
	sp.Spec.PercentageOfNodesToScore = ptr.To[int32](60)
	if err := e.c.Update(ctx, sp); err != nil {
		t.Fatal(err)
	}

	t.Run("status waits for a generation not yet observed, then until rolled back", func(t *testing.T) {
		out, done := e.start(ctx, "rollout", "status", name)
		waitFor(t, out, done, `Waiting for generation 3 of schedulerprofiles.scheduling.profilescheduler.io "careful" to be observed...`)
		e.setStatus(name, atCanaryStep(3))
		waitFor(t, out, done, "generation 3, step 2 of 3 (canary 10%)")
		e.setStatus(name, rolledBackStatus(3))
		r := ended(t, done)
		want := `schedulerprofiles.scheduling.profilescheduler.io "careful" rollout of generation 3 rolled back (generation 2 serves): ` + rolledBackMessage
		if r.err == nil || r.err.Error() != want {
			t.Fatalf("status of a rolled back rollout: %v, want %q\n%s", r.err, want, r.out)
		}
		if !strings.Contains(r.out.String(), "  UnschedulableRatio   2.40   1.00      1.2         50        450               Fail\n") {
			t.Errorf("the analysis that failed is not printed:\n%s", r.out)
		}
		if r := e.run("rollout", "status", name, "--watch=false"); r.err == nil || r.err.Error() != want {
			t.Errorf("status --watch=false once rolled back: %v", r.err)
		}
		if r := e.run("rollout", "abort", name); r.err == nil || !strings.Contains(r.err.Error(), "(the last one, of generation 3, is RolledBack); generation 2 serves") {
			t.Errorf("abort once rolled back: %v", r.err)
		}
	})

	t.Run("status --timeout", func(t *testing.T) {
		e.setStatus(name, atCanaryStep(3))
		start := time.Now()
		r := e.run("rollout", "status", name, "--timeout", "2s")
		if r.err == nil || !strings.HasPrefix(r.err.Error(),
			`timed out waiting for the rollout of schedulerprofiles.scheduling.profilescheduler.io "careful" after 2s: generation 3, step 2 of 3 (canary 10%)`) {
			t.Errorf("status --timeout 2s: %v", r.err)
		}
		if took := time.Since(start); took > 20*time.Second {
			t.Errorf("status --timeout 2s took %s", took)
		}
	})
}

// A metric of spec.rollout.analysis.metrics is printed with its last
// result, its condition, and its failed and errored measurements.
func TestRenderAnalysisOfOwnMetrics(t *testing.T) {
	var out bytes.Buffer
	err := renderAnalysis(&out, []v1alpha1.RolloutMetric{
		{Metric: "Errors", New: "0", Serving: "0", Threshold: "<= 0", Samples: 12, ServingSamples: 40, Verdict: "Pending"},
		{Metric: "queue-wait", New: "[75]", Threshold: "result[0] < 60.0", Samples: 3, Failed: 2, Errored: 1, Verdict: "Fail"},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := `Analysis:
  METRIC       NEW    SERVING   THRESHOLD          SAMPLES   SERVING SAMPLES   VERDICT
  Errors       0      0         <= 0               12        40                Pending
  queue-wait   [75]   <none>    result[0] < 60.0   3         0                 Fail (2 failed, 1 errored)
`
	if out.String() != want {
		t.Errorf("printed\n%s\nwant\n%s", out.String(), want)
	}
}
