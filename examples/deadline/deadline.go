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

package deadline

import (
	"context"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/profile-scheduler/profile-scheduler/examples/deadline/apis/config"
	configv1 "github.com/profile-scheduler/profile-scheduler/examples/deadline/apis/config/v1"
	"github.com/profile-scheduler/profile-scheduler/examples/deadline/apis/config/validation"
)

// Name is the plugin's name in profiles, its args' kind (NameArgs) and
// metrics.
const Name = "Deadline"

// Deadline orders the queue by deadline and keeps fast nodes for pods due
// soon.
type Deadline struct {
	args config.DeadlineArgs
	now  func() time.Time
}

var (
	_ fwk.QueueSortPlugin = &Deadline{}
	_ fwk.ScorePlugin     = &Deadline{}
)

// AddToScheme registers the plugin's args, internal and versioned, with
// their defaults and conversions: give it to app.WithPluginScheme.
func AddToScheme(s *runtime.Scheme) error {
	if err := config.AddToScheme(s); err != nil {
		return err
	}
	return configv1.AddToScheme(s)
}

// New builds the plugin from its args, the internal type the scheme
// converts a profile's versioned args into.
func New(_ context.Context, obj runtime.Object, _ fwk.Handle) (fwk.Plugin, error) {
	args, ok := obj.(*config.DeadlineArgs)
	if !ok {
		return nil, fmt.Errorf("want args of type config.DeadlineArgs, got %T", obj)
	}
	if err := validation.ValidateDeadlineArgs(field.NewPath("args"), args); err != nil {
		return nil, err
	}
	return &Deadline{args: *args, now: time.Now}, nil
}

// Name returns the plugin's name.
func (pl *Deadline) Name() string { return Name }

// deadline is the pod's deadline: its annotation when it holds an RFC 3339
// time, else its creation plus the default deadline.
func (pl *Deadline) deadline(pod *v1.Pod) time.Time {
	if s, ok := pod.Annotations[pl.args.DeadlineAnnotation]; ok {
		if t, err := time.Parse(time.RFC3339, s); err == nil {
			return t
		}
	}
	return pod.CreationTimestamp.Add(pl.args.DefaultDeadline)
}

// Less orders higher priority first, then the earlier deadline, then the
// entity queued first. An entity that is not a pod (a pod group) is
// ordered by priority and queue time only.
func (pl *Deadline) Less(a, b fwk.QueuedEntityInfo) bool {
	if pa, pb := a.GetPriority(), b.GetPriority(); pa != pb {
		return pa > pb
	}
	podA, okA := a.(interface{ GetPod() *v1.Pod })
	podB, okB := b.(interface{ GetPod() *v1.Pod })
	if okA && okB {
		if da, db := pl.deadline(podA.GetPod()), pl.deadline(podB.GetPod()); !da.Equal(db) {
			return da.Before(db)
		}
	}
	return a.GetTimestamp().Before(b.GetTimestamp())
}

// urgent reports whether the pod's deadline is within UrgentWithin.
func (pl *Deadline) urgent(pod *v1.Pod) bool {
	return pl.deadline(pod).Sub(pl.now()) <= pl.args.UrgentWithin
}

// Score is MaxScore where the node suits the pod (a fast node for an urgent
// pod, another node for the others) and MinScore elsewhere.
func (pl *Deadline) Score(_ context.Context, _ fwk.CycleState, pod *v1.Pod, nodeInfo fwk.NodeInfo) (int64, *fwk.Status) {
	node := nodeInfo.Node()
	if node == nil {
		return 0, fwk.NewStatus(fwk.Error, "node not found")
	}
	_, fast := node.Labels[pl.args.FastNodeLabel]
	if fast == pl.urgent(pod) {
		return fwk.MaxScore, nil
	}
	return fwk.MinScore, nil
}

// ScoreExtensions returns nil: the scores are already in [0, MaxScore].
func (pl *Deadline) ScoreExtensions() fwk.ScoreExtensions { return nil }
