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

package operator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/profile-scheduler/profile-scheduler/controllers"
	"github.com/profile-scheduler/profile-scheduler/scheduler"
)

// The bind arbiter's own client: it looks up the pods its informer does
// not know (at most arbiterLookupQPS a second) and labels its pod, never
// on the scheduler's client budget.
const (
	arbiterLookupQPS   = 5
	arbiterLookupBurst = 10
)

// setupBindArbiter serves the bind arbiter on the manager's webhook
// server. Only the leader judges: the binds admitted and not yet seen
// live in its process. The leader labels its own pod (POD_NAME) once it
// judges, and every replica removes the label at start and on a clean
// stop, so that the chart's arbiter Service sends binds to the leader
// only; a replica that does not lead and still receives a review (its
// port reached directly) admits.
func setupBindArbiter(mgr ctrl.Manager, sched *scheduler.Scheduler, cfg *rest.Config, o Options) error {
	elected := mgr.Elected()
	leading := func() bool {
		select {
		case <-elected:
			return true
		default:
			return false
		}
	}
	own := rest.AddUserAgent(rest.CopyConfig(cfg), "bind-arbiter")
	own.QPS, own.Burst = arbiterLookupQPS, arbiterLookupBurst
	cs, err := kubernetes.NewForConfig(own)
	if err != nil {
		return err
	}
	arbiter, err := sched.NewArbiter(leading, scheduler.WithArbiterLookups(cs, arbiterLookupQPS, arbiterLookupBurst))
	if err != nil {
		return err
	}
	// The operator's own namespace, when it runs in a pod (outside one,
	// local mode, podNamespace's "default" is the user's).
	excluded := o.BindArbiterExcludedNamespaces
	if inPod() {
		excluded = append([]string{podNamespace()}, excluded...)
	}
	controllers.SetupBindArbiter(mgr, arbiter, excluded, o.BindArbiterConcurrency)
	name := strings.TrimSpace(os.Getenv("POD_NAME"))
	if name == "" {
		// Outside a pod (local mode): nothing to label.
		return nil
	}
	return mgr.Add(&arbiterLabeler{pods: cs, namespace: podNamespace(), name: name, elected: elected, synced: sched.HasSynced})
}

// arbiterLabeler keeps controllers.ArbiterLeaderLabel on its own pod
// while this replica's arbiter judges, and off otherwise. It runs on
// every replica, leader or not.
type arbiterLabeler struct {
	pods            kubernetes.Interface
	namespace, name string
	elected         <-chan struct{}
	synced          func() bool
}

// NeedLeaderElection is false: a standby removes the label a container
// restarted in its pod left.
func (l *arbiterLabeler) NeedLeaderElection() bool { return false }

// Start removes the label, waits until this replica leads and its
// scheduler has synced, sets it, and removes it again on a clean stop
// (before the lease is released), so the Service drops this replica
// before another one takes over.
func (l *arbiterLabeler) Start(ctx context.Context) error {
	logger := log.FromContext(ctx).WithValues("pod", l.namespace+"/"+l.name)
	if err := l.set(ctx, false); err != nil {
		logger.Error(err, "Removing the bind arbiter's leader label from the operator's own pod failed")
	}
	select {
	case <-ctx.Done():
		return nil
	case <-l.elected:
	}
	if err := wait.PollUntilContextCancel(ctx, 50*time.Millisecond, true, func(context.Context) (bool, error) { return l.synced(), nil }); err != nil {
		return nil
	}
	// Retried until it lands: until then binds reach no replica and are
	// admitted unjudged (the webhook fails open).
	_ = wait.PollUntilContextCancel(ctx, time.Second, true, func(ctx context.Context) (bool, error) {
		if err := l.set(ctx, true); err != nil {
			logger.Error(err, "Labelling the operator's own pod as the bind arbiter's leader failed; retrying")
			return false, nil
		}
		logger.Info("This replica judges binds: its pod is labelled for the bind arbiter's Service", "label", controllers.ArbiterLeaderLabel)
		return true, nil
	})
	<-ctx.Done()
	stop, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := l.set(stop, false); err != nil {
		logger.Error(err, "Removing the bind arbiter's leader label on stop failed")
	}
	return nil
}

// set adds the label (on) or removes it.
func (l *arbiterLabeler) set(ctx context.Context, on bool) error {
	var value any
	if on {
		value = controllers.ArbiterLeaderValue
	}
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"labels": map[string]any{controllers.ArbiterLeaderLabel: value}}})
	if err != nil {
		return err
	}
	_, err = l.pods.CoreV1().Pods(l.namespace).Patch(ctx, l.name, types.MergePatchType, patch, metav1.PatchOptions{})
	if apierrors.IsNotFound(err) {
		return errors.Join(err, fmt.Errorf("no pod %s/%s ($POD_NAME)", l.namespace, l.name))
	}
	return err
}

// inPod reports whether the operator runs in a pod: it was told its
// namespace, or has a service account's.
func inPod() bool {
	if strings.TrimSpace(os.Getenv("POD_NAMESPACE")) != "" {
		return true
	}
	_, err := os.Stat("/var/run/secrets/kubernetes.io/serviceaccount/namespace")
	return err == nil
}
