package harness

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	schedv1 "k8s.io/kube-scheduler/config/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"
)

// Names of the two schedulers in reports and on the command line.
const (
	Upstream = "upstream"
	Ours     = "ours"
)

// Settings are what both schedulers get alike.
type Settings struct {
	// QPS and Burst of the scheduler's API client.
	QPS   float32 `json:"qps"`
	Burst int     `json:"burst"`
	// Parallelism of filtering and scoring.
	Parallelism int `json:"parallelism"`
	// SchedulerName the profile serves and pods ask for.
	SchedulerName string `json:"schedulerName"`
}

// Scheduler is one scheduler under test. Start, then Stop, once per run.
type Scheduler interface {
	// Name is Upstream or Ours.
	Name() string
	// Start starts the process with prof and returns once prof serves.
	Start(ctx context.Context, prof schedv1.KubeSchedulerProfile) error
	// Usage is the CPU time and peak RSS consumed so far in this run (all
	// processes of the run, for a scheduler that was restarted).
	Usage() Usage
	// Stop stops every process of the run and cleans up what Start made.
	Stop(ctx context.Context) Usage
	// PID of the running process, 0 when none runs.
	PID() int
	// PprofURL is the base URL of the running process's /debug/pprof
	// endpoints, "" when none runs or it was started without them.
	PprofURL() string
}

var httpClient = &http.Client{
	Timeout:   2 * time.Second,
	Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}, // self-signed serving cert of a local process
}

func probeURL(url string) func(context.Context) error {
	return func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := httpClient.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("%s: %s", url, resp.Status)
		}
		return nil
	}
}

// KubeScheduler runs upstream kube-scheduler from a configuration file.
type KubeScheduler struct {
	Bin        string
	Kubeconfig string
	Dir        string
	Settings   Settings
	// ExtraArgs are appended to kube-scheduler's command line.
	ExtraArgs []string
	// FeatureGates, when set, is a --feature-gates flag for the next runs
	// (the case's gates), put before ExtraArgs.
	FeatureGates string
	// LeaderElect runs kube-scheduler with leader election on a Lease
	// (upstream's default durations: 15 s lease, 2 s retry), and makes
	// Restart a hand-over: the new process starts and waits as a standby,
	// then the old one stops and releases the lease.
	LeaderElect bool
	// Pprof lets anyone who reaches the secure port read /debug/pprof
	// (kube-scheduler serves it there, with enableProfiling, its default;
	// otherwise only an authorized client may).
	Pprof bool

	run      string
	seq      int
	proc     *Process
	url      string // base URL of the running process's secure port
	finished Usage  // usage of the run's processes that already ended
}

var _ Scheduler = &KubeScheduler{}

// Name implements Scheduler.
func (k *KubeScheduler) Name() string { return Upstream }

// SetRun names the log and config files of the next run.
func (k *KubeScheduler) SetRun(run string) { k.run, k.seq, k.finished = run, 0, Usage{} }

// Config renders the KubeSchedulerConfiguration for prof.
func (k *KubeScheduler) Config(prof schedv1.KubeSchedulerProfile) ([]byte, error) {
	cfg := map[string]any{
		"apiVersion":     "kubescheduler.config.k8s.io/v1",
		"kind":           "KubeSchedulerConfiguration",
		"parallelism":    k.Settings.Parallelism,
		"leaderElection": k.leaderElection(),
		"clientConnection": map[string]any{
			"kubeconfig": k.Kubeconfig,
			"qps":        k.Settings.QPS,
			"burst":      k.Settings.Burst,
		},
		"profiles": []any{prof},
	}
	return yaml.Marshal(cfg)
}

// leaderElection is the configuration's leaderElection section. The lease
// is named after the run, so no run waits for another's.
func (k *KubeScheduler) leaderElection() map[string]any {
	if !k.LeaderElect {
		return map[string]any{"leaderElect": false}
	}
	return map[string]any{
		"leaderElect":       true,
		"resourceLock":      "leases",
		"resourceNamespace": "kube-system",
		"resourceName":      "bench-" + k.run,
	}
}

// Start implements Scheduler: it writes the configuration file and starts
// kube-scheduler with it, then waits for /healthz.
func (k *KubeScheduler) Start(ctx context.Context, prof schedv1.KubeSchedulerProfile) error {
	k.seq++
	cfg, err := k.Config(prof)
	if err != nil {
		return err
	}
	base := filepath.Join(k.Dir, fmt.Sprintf("%s-upstream-%d", k.run, k.seq))
	if err := os.WriteFile(base+".yaml", cfg, 0o644); err != nil {
		return err
	}
	port, err := freePort()
	if err != nil {
		return err
	}
	certDir := base + "-certs"
	args := []string{
		"--config=" + base + ".yaml",
		"--bind-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(port),
		"--cert-dir=" + certDir,
		"--v=1",
	}
	if k.FeatureGates != "" {
		args = append(args, k.FeatureGates)
	}
	if k.Pprof {
		args = append(args, "--authorization-always-allow-paths=/healthz,/readyz,/livez,/debug/pprof,/debug/pprof/*")
	}
	p, err := StartProcess(k.Bin, append(args, k.ExtraArgs...), base+".log")
	if err != nil {
		return err
	}
	k.proc = p
	k.url = fmt.Sprintf("https://127.0.0.1:%d", port)
	return p.waitReady(ctx, time.Minute, probeURL(fmt.Sprintf("https://127.0.0.1:%d/healthz", port)))
}

// Restart replaces the running process by one with prof, the only way
// upstream changes a profile, and returns when the old process was told to
// stop (the change). Without leader election the old process stops, then
// the new one starts. With it, the new one starts first and waits as a
// standby with its caches synced, then the old one stops and releases the
// lease, which the standby takes at its next retry: a rolling update.
func (k *KubeScheduler) Restart(ctx context.Context, prof schedv1.KubeSchedulerProfile) (time.Time, error) {
	old := k.proc
	k.proc = nil
	if !k.LeaderElect || old == nil {
		at := time.Now()
		if old != nil {
			k.finished = add(k.finished, old.Stop(30*time.Second))
		}
		return at, k.Start(ctx, prof)
	}
	err := k.Start(ctx, prof)
	if err == nil {
		// kube-scheduler serves /healthz before its caches sync; it tries
		// for the lease only after they have: then it is a standby.
		err = k.proc.waitReady(ctx, time.Minute, logContains(k.proc.log.Name(), standbyLine))
	}
	at := time.Now()
	k.finished = add(k.finished, old.Stop(30*time.Second))
	return at, err
}

// standbyLine is what kube-scheduler logs when, its caches synced, it
// starts trying for the lease.
const standbyLine = "Attempting to acquire leader lease"

// logContains is a readiness probe that passes once the file holds line.
func logContains(path, line string) func(context.Context) error {
	return func(context.Context) error {
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if !bytes.Contains(b, []byte(line)) {
			return fmt.Errorf("%s does not say %q yet", path, line)
		}
		return nil
	}
}

// PID implements Scheduler.
func (k *KubeScheduler) PID() int {
	if k.proc == nil {
		return 0
	}
	return k.proc.PID()
}

// PprofURL implements Scheduler.
func (k *KubeScheduler) PprofURL() string {
	if k.proc == nil || !k.Pprof {
		return ""
	}
	return k.url
}

// Usage implements Scheduler.
func (k *KubeScheduler) Usage() Usage {
	if k.proc == nil {
		return k.finished
	}
	return add(k.finished, k.proc.Usage())
}

// Stop implements Scheduler.
func (k *KubeScheduler) Stop(context.Context) Usage {
	if k.proc != nil {
		k.finished = add(k.finished, k.proc.Stop(30*time.Second))
		k.proc = nil
	}
	return k.finished
}

func add(a, b Usage) Usage {
	return Usage{CPUSeconds: a.CPUSeconds + b.CPUSeconds, PeakRSSBytes: max(a.PeakRSSBytes, b.PeakRSSBytes)}
}

// ProfileScheduler runs the operator and serves the profile as a
// SchedulerProfile.
type ProfileScheduler struct {
	Bin        string
	Kubeconfig string
	Dir        string
	Settings   Settings
	Client     client.WithWatch
	// ExtraArgs are appended to the operator's command line.
	ExtraArgs []string
	// FeatureGates, when set, is a --feature-gates flag for the next runs
	// (the case's gates), put before ExtraArgs.
	FeatureGates string
	// Pprof serves /debug/pprof on a local port (--pprof-bind-address).
	Pprof bool

	run      string
	proc     *Process
	pprofURL string
	watcher  *ProfileWatcher
}

var _ Scheduler = &ProfileScheduler{}

// Name implements Scheduler.
func (o *ProfileScheduler) Name() string { return Ours }

// SetRun names the log file of the next run.
func (o *ProfileScheduler) SetRun(run string) { o.run = run }

// Start implements Scheduler: it starts the operator, waits for /readyz,
// creates the SchedulerProfile and waits until its generation is active.
func (o *ProfileScheduler) Start(ctx context.Context, prof schedv1.KubeSchedulerProfile) error {
	// A profile left by an interrupted run has a finalizer no operator
	// will remove: strip it.
	if err := o.removeProfile(ctx, true); err != nil {
		return err
	}
	port, err := freePort()
	if err != nil {
		return err
	}
	args := []string{
		"--kubeconfig=" + o.Kubeconfig,
		"--leader-elect=false",
		"--metrics-bind-address=0",
		"--health-probe-bind-address=127.0.0.1:" + strconv.Itoa(port),
		"--kube-api-qps=" + strconv.FormatFloat(float64(o.Settings.QPS), 'f', -1, 32),
		"--kube-api-burst=" + strconv.Itoa(o.Settings.Burst),
		"--parallelism=" + strconv.Itoa(o.Settings.Parallelism),
	}
	if o.FeatureGates != "" {
		args = append(args, o.FeatureGates)
	}
	args = append(args, o.ExtraArgs...)
	o.pprofURL = ""
	if o.Pprof {
		pport, err := freePort()
		if err != nil {
			return err
		}
		args = append(args, "--pprof-bind-address=127.0.0.1:"+strconv.Itoa(pport))
		o.pprofURL = fmt.Sprintf("http://127.0.0.1:%d", pport)
	}
	p, err := StartProcess(o.Bin, args, filepath.Join(o.Dir, o.run+"-ours.log"))
	if err != nil {
		return err
	}
	o.proc = p
	if err := p.waitReady(ctx, time.Minute, probeURL(fmt.Sprintf("http://127.0.0.1:%d/readyz", port))); err != nil {
		return err
	}
	if o.watcher, err = WatchProfile(ctx, o.Client, o.Settings.SchedulerName); err != nil {
		return err
	}
	gen, _, err := o.Apply(ctx, prof)
	if err != nil {
		return err
	}
	if _, err := o.watcher.WaitActive(ctx, gen, time.Minute); err != nil {
		return err
	}
	return nil
}

// Watcher follows the run's SchedulerProfile.
func (o *ProfileScheduler) Watcher() *ProfileWatcher { return o.watcher }

// Apply creates or updates the SchedulerProfile to serve prof and returns
// the generation written and the time just before the write.
func (o *ProfileScheduler) Apply(ctx context.Context, prof schedv1.KubeSchedulerProfile) (int64, time.Time, error) {
	spec, err := ProfileSpec(prof)
	if err != nil {
		return 0, time.Time{}, err
	}
	sp := &v1alpha1.SchedulerProfile{}
	key := client.ObjectKey{Name: o.Settings.SchedulerName}
	err = o.Client.Get(ctx, key, sp)
	switch {
	case apierrors.IsNotFound(err):
		sp = &v1alpha1.SchedulerProfile{ObjectMeta: metav1.ObjectMeta{Name: key.Name}, Spec: spec}
		at := time.Now()
		if err := o.Client.Create(ctx, sp); err != nil {
			return 0, at, err
		}
		return sp.Generation, at, nil
	case err != nil:
		return 0, time.Time{}, err
	}
	sp.Spec = spec
	at := time.Now()
	if err := o.Client.Update(ctx, sp); err != nil {
		return 0, at, err
	}
	return sp.Generation, at, nil
}

// PID implements Scheduler.
func (o *ProfileScheduler) PID() int {
	if o.proc == nil {
		return 0
	}
	return o.proc.PID()
}

// PprofURL implements Scheduler.
func (o *ProfileScheduler) PprofURL() string {
	if o.proc == nil {
		return ""
	}
	return o.pprofURL
}

// Usage implements Scheduler.
func (o *ProfileScheduler) Usage() Usage {
	if o.proc == nil {
		return Usage{}
	}
	return o.proc.Usage()
}

// Stop implements Scheduler.
func (o *ProfileScheduler) Stop(ctx context.Context) Usage {
	var u Usage
	if o.watcher != nil {
		o.watcher.Stop()
		o.watcher = nil
	}
	if o.proc != nil {
		// Delete the profile while the operator runs, so that it removes
		// its finalizer; then stop the operator.
		_ = o.removeProfile(ctx, false)
		u = o.proc.Stop(30 * time.Second)
		o.proc = nil
	}
	_ = o.removeProfile(ctx, true)
	return u
}

// removeProfile deletes the run's SchedulerProfile and waits until it is
// gone. With strip, it first removes the finalizers (no operator runs to
// remove them).
func (o *ProfileScheduler) removeProfile(ctx context.Context, strip bool) error {
	key := client.ObjectKey{Name: o.Settings.SchedulerName}
	sp := &v1alpha1.SchedulerProfile{}
	if err := o.Client.Get(ctx, key, sp); apierrors.IsNotFound(err) {
		return nil
	} else if err != nil {
		return err
	}
	if strip && len(sp.Finalizers) > 0 {
		patch := client.MergeFrom(sp.DeepCopy())
		sp.Finalizers = nil
		if err := o.Client.Patch(ctx, sp, patch); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	if err := o.Client.Delete(ctx, sp); err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	return wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 15*time.Second, true, func(ctx context.Context) (bool, error) {
		err := o.Client.Get(ctx, key, &v1alpha1.SchedulerProfile{})
		return apierrors.IsNotFound(err), nil
	})
}

// ProfileSpec converts an upstream v1 profile into a SchedulerProfile spec,
// which mirrors it field for field (unknown fields are errors).
func ProfileSpec(prof schedv1.KubeSchedulerProfile) (v1alpha1.SchedulerProfileSpec, error) {
	var spec v1alpha1.SchedulerProfileSpec
	b, err := json.Marshal(prof)
	if err != nil {
		return spec, err
	}
	if err := yaml.UnmarshalStrict(b, &spec); err != nil {
		return spec, fmt.Errorf("profile does not convert to a SchedulerProfile spec: %w", err)
	}
	return spec, nil
}

// ProfileWatcher records, per generation of one SchedulerProfile, when it
// was first seen active: Ready=True, observedGeneration and
// activeGeneration equal to the generation.
type ProfileWatcher struct {
	mu      sync.Mutex
	active  map[int64]time.Time
	changed chan struct{}
	last    *v1alpha1.SchedulerProfile
	cancel  context.CancelFunc
	done    chan struct{}
}

// WatchProfile starts following the SchedulerProfile name.
func WatchProfile(ctx context.Context, c client.WithWatch, name string) (*ProfileWatcher, error) {
	ctx, cancel := context.WithCancel(ctx)
	w := &ProfileWatcher{active: map[int64]time.Time{}, changed: make(chan struct{}), cancel: cancel, done: make(chan struct{})}
	go w.loop(ctx, c, name)
	return w, nil
}

func (w *ProfileWatcher) loop(ctx context.Context, c client.WithWatch, name string) {
	defer close(w.done)
	for ctx.Err() == nil {
		list := &v1alpha1.SchedulerProfileList{}
		if err := c.List(ctx, list, client.MatchingFields{"metadata.name": name}); err != nil {
			time.Sleep(100 * time.Millisecond)
			continue
		}
		for i := range list.Items {
			w.observe(&list.Items[i])
		}
		wi, err := c.Watch(ctx, &v1alpha1.SchedulerProfileList{}, client.MatchingFields{"metadata.name": name},
			&client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: list.ResourceVersion}})
		if err != nil {
			time.Sleep(100 * time.Millisecond)
			continue
		}
		for ev := range wi.ResultChan() {
			if sp, ok := ev.Object.(*v1alpha1.SchedulerProfile); ok && ev.Type != watch.Deleted {
				w.observe(sp)
			}
		}
		wi.Stop()
	}
}

func (w *ProfileWatcher) observe(sp *v1alpha1.SchedulerProfile) {
	now := time.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.last = sp.DeepCopy()
	gen := sp.Generation
	if meta.IsStatusConditionTrue(sp.Status.Conditions, v1alpha1.ConditionReady) &&
		sp.Status.ObservedGeneration == gen && sp.Status.ActiveGeneration == gen {
		if _, seen := w.active[gen]; !seen {
			w.active[gen] = now
			close(w.changed)
			w.changed = make(chan struct{})
		}
	}
}

// WaitActive waits until generation gen is active and returns when that
// was first seen.
func (w *ProfileWatcher) WaitActive(ctx context.Context, gen int64, timeout time.Duration) (time.Time, error) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		w.mu.Lock()
		at, ok := w.active[gen]
		ch, last := w.changed, w.last
		w.mu.Unlock()
		if ok {
			return at, nil
		}
		select {
		case <-ctx.Done():
			return time.Time{}, ctx.Err()
		case <-deadline.C:
			if last == nil {
				return time.Time{}, fmt.Errorf("generation %d not active after %s: profile never seen", gen, timeout)
			}
			return time.Time{}, fmt.Errorf("generation %d not active after %s: last seen generation %d, observed %d, active %d, conditions %s",
				gen, timeout, last.Generation, last.Status.ObservedGeneration, last.Status.ActiveGeneration, conditions(last))
		case <-ch:
		}
	}
}

// Stop ends the watch.
func (w *ProfileWatcher) Stop() {
	w.cancel()
	<-w.done
}

func conditions(sp *v1alpha1.SchedulerProfile) string {
	var parts []string
	for _, c := range sp.Status.Conditions {
		parts = append(parts, fmt.Sprintf("%s=%s (%s: %s)", c.Type, c.Status, c.Reason, c.Message))
	}
	return strings.Join(parts, "; ")
}
