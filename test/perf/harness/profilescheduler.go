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
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	schedv1 "k8s.io/kube-scheduler/config/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"
)

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
	// Metrics serves /metrics on a local port, over HTTP
	// (--metrics-bind-address, --metrics-secure=false).
	Metrics bool

	run        string
	proc       *Process
	pprofURL   string
	metricsURL string
	watcher    *ProfileWatcher
	// served and extenderConfigs are the SchedulerProfiles and
	// ExtenderConfigs StartProfiles created, for Stop to delete.
	served, extenderConfigs []string
}

var _ Scheduler = &ProfileScheduler{}

// Name implements Scheduler.
func (o *ProfileScheduler) Name() string { return Ours }

// SetRun names the log file of the next run.
func (o *ProfileScheduler) SetRun(run string) { o.run = run }

// Start implements Scheduler: it starts the operator, waits for /readyz,
// creates the SchedulerProfile and waits until its generation is active.
func (o *ProfileScheduler) Start(ctx context.Context, prof schedv1.KubeSchedulerProfile) error {
	if err := o.startProcess(ctx); err != nil {
		return err
	}
	var err error
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

// StartProfiles implements Scheduler: it starts the operator, creates an
// ExtenderConfig for each extender named and a SchedulerProfile for each
// profile, named after its schedulerName and naming its extenders, and
// waits until every profile is active. Stop deletes them. Only the profile
// named Settings.SchedulerName, if any, is followed by Watcher.
func (o *ProfileScheduler) StartProfiles(ctx context.Context, profs []ServedProfile) error {
	if err := o.startProcess(ctx); err != nil {
		return err
	}
	for _, p := range profs {
		for _, x := range p.Extenders {
			if slices.Contains(o.extenderConfigs, x.Name) {
				continue
			}
			spec, err := ExtenderConfigSpec(x.Config)
			if err != nil {
				return fmt.Errorf("extender %s: %w", x.Name, err)
			}
			if err := o.Client.Create(ctx, &v1alpha1.ExtenderConfig{ObjectMeta: metav1.ObjectMeta{Name: x.Name}, Spec: spec}); err != nil {
				return fmt.Errorf("creating ExtenderConfig %s: %w", x.Name, err)
			}
			o.extenderConfigs = append(o.extenderConfigs, x.Name)
		}
	}
	type pending struct {
		sp *v1alpha1.SchedulerProfile
		w  *ProfileWatcher
	}
	var all []pending
	defer func() {
		for _, p := range all {
			if p.w != o.watcher {
				p.w.Stop()
			}
		}
	}()
	for _, p := range profs {
		if p.Profile.SchedulerName == nil {
			return errors.New("a served profile needs its schedulerName")
		}
		spec, err := ProfileSpec(p.Profile)
		if err != nil {
			return err
		}
		for _, x := range p.Extenders {
			spec.Extenders = append(spec.Extenders, x.Name)
		}
		sp := &v1alpha1.SchedulerProfile{ObjectMeta: metav1.ObjectMeta{Name: *p.Profile.SchedulerName}, Spec: spec}
		w, err := WatchProfile(ctx, o.Client, sp.Name)
		if err != nil {
			return err
		}
		all = append(all, pending{sp, w})
		if sp.Name == o.Settings.SchedulerName {
			o.watcher = w
		}
		if err := o.Client.Create(ctx, sp); err != nil {
			return fmt.Errorf("creating SchedulerProfile %s: %w", sp.Name, err)
		}
		o.served = append(o.served, sp.Name)
	}
	for _, p := range all {
		if _, err := p.w.WaitActive(ctx, p.sp.Generation, time.Minute); err != nil {
			return fmt.Errorf("SchedulerProfile %s: %w", p.sp.Name, err)
		}
	}
	return nil
}

// startProcess starts the operator and waits for /readyz.
func (o *ProfileScheduler) startProcess(ctx context.Context) error {
	// A profile left by an interrupted run has a finalizer no operator
	// will remove: strip it.
	if err := o.removeProfile(ctx, o.Settings.SchedulerName, true); err != nil {
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
	o.metricsURL = ""
	if o.Metrics {
		mport, err := freePort()
		if err != nil {
			return err
		}
		// After --metrics-bind-address=0 above: the last one counts.
		args = append(args, "--metrics-bind-address=127.0.0.1:"+strconv.Itoa(mport), "--metrics-secure=false")
		o.metricsURL = fmt.Sprintf("http://127.0.0.1:%d/metrics", mport)
	}
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
	return p.waitReady(ctx, time.Minute, probeURL(fmt.Sprintf("http://127.0.0.1:%d/readyz", port)))
}

// Watcher follows the run's SchedulerProfile.
func (o *ProfileScheduler) Watcher() *ProfileWatcher { return o.watcher }

// Apply creates or updates the SchedulerProfile to serve prof and returns
// the generation written and the time just before the write.
func (o *ProfileScheduler) Apply(ctx context.Context, prof schedv1.KubeSchedulerProfile) (int64, time.Time, error) {
	return o.ApplyRollout(ctx, prof, nil)
}

// ApplyRollout is Apply with spec.rollout set to rollout (nil: none, the
// change goes live at once).
func (o *ProfileScheduler) ApplyRollout(ctx context.Context, prof schedv1.KubeSchedulerProfile, rollout *v1alpha1.Rollout) (int64, time.Time, error) {
	spec, err := ProfileSpec(prof)
	if err != nil {
		return 0, time.Time{}, err
	}
	spec.Rollout = rollout
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

// MetricsURL is where the running operator serves /metrics ("" when it
// does not: Metrics unset).
func (o *ProfileScheduler) MetricsURL() string {
	if o.proc == nil {
		return ""
	}
	return o.metricsURL
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
	names := append([]string{o.Settings.SchedulerName}, o.served...)
	if o.proc != nil {
		// Delete the profiles while the operator runs, so that it removes
		// their finalizers; then stop the operator.
		for _, name := range names {
			_ = o.removeProfile(ctx, name, false)
		}
		u = o.proc.Stop(30 * time.Second)
		o.proc = nil
	}
	for _, name := range names {
		_ = o.removeProfile(ctx, name, true)
	}
	for _, name := range o.extenderConfigs {
		_ = o.Client.Delete(ctx, &v1alpha1.ExtenderConfig{ObjectMeta: metav1.ObjectMeta{Name: name}})
	}
	o.served, o.extenderConfigs = nil, nil
	return u
}

// removeProfile deletes the SchedulerProfile name and waits until it is
// gone. With strip, it first removes the finalizers (no operator runs to
// remove them).
func (o *ProfileScheduler) removeProfile(ctx context.Context, name string, strip bool) error {
	key := client.ObjectKey{Name: name}
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

// ExtenderConfigSpec converts an upstream v1 extender into an
// ExtenderConfig spec. TLS material is refused: ExtenderConfigs read it
// from a Secret, which the harness does not make.
func ExtenderConfigSpec(x schedv1.Extender) (v1alpha1.ExtenderConfigSpec, error) {
	if x.TLSConfig != nil {
		return v1alpha1.ExtenderConfigSpec{}, errors.New("tlsConfig is not supported by the harness")
	}
	spec := v1alpha1.ExtenderConfigSpec{
		URLPrefix:        x.URLPrefix,
		FilterVerb:       x.FilterVerb,
		PreemptVerb:      x.PreemptVerb,
		PrioritizeVerb:   x.PrioritizeVerb,
		Weight:           x.Weight,
		BindVerb:         x.BindVerb,
		EnableHTTPS:      x.EnableHTTPS,
		NodeCacheCapable: x.NodeCacheCapable,
		Ignorable:        x.Ignorable,
	}
	if x.HTTPTimeout.Duration > 0 {
		spec.HTTPTimeout = &metav1.Duration{Duration: x.HTTPTimeout.Duration}
	}
	for _, r := range x.ManagedResources {
		spec.ManagedResources = append(spec.ManagedResources, v1alpha1.ExtenderManagedResource{Name: r.Name, IgnoredByScheduler: r.IgnoredByScheduler})
	}
	return spec, nil
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
