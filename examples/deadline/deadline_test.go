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
	"testing"
	"time"

	. "github.com/onsi/gomega"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	fwk "k8s.io/kube-scheduler/framework"
	schedconfig "k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/scheme"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/utils/ptr"

	"github.com/profile-scheduler/profile-scheduler/examples/deadline/apis/config"
	"github.com/profile-scheduler/profile-scheduler/examples/deadline/apis/config/validation"
	"github.com/profile-scheduler/profile-scheduler/pluginargs"
)

func init() {
	// As app.WithPluginScheme(AddToScheme) registers them in the binary.
	if err := pluginargs.AddScheme(AddToScheme); err != nil {
		panic(err)
	}
}

// decode decodes a profile's pluginConfig args as profile-scheduler and
// kube-scheduler do: strictly, defaulted, converted to the internal type.
func decode(args string) (*config.DeadlineArgs, error) {
	doc := fmt.Sprintf(`{"apiVersion":"kubescheduler.config.k8s.io/v1","kind":"KubeSchedulerConfiguration","profiles":[{"schedulerName":"s","pluginConfig":[{"name":"Deadline","args":%s}]}]}`, args)
	obj, _, err := scheme.Codecs.UniversalDecoder().Decode([]byte(doc), nil, nil)
	if err != nil {
		return nil, err
	}
	a, ok := obj.(*schedconfig.KubeSchedulerConfiguration).Profiles[0].PluginConfig[0].Args.(*config.DeadlineArgs)
	if !ok {
		return nil, fmt.Errorf("decoded %T", obj.(*schedconfig.KubeSchedulerConfiguration).Profiles[0].PluginConfig[0].Args)
	}
	return a, nil
}

func TestArgsDecodeDefaultAndConvert(t *testing.T) {
	g := NewWithT(t)
	a, err := decode(`{}`)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(*a).To(Equal(config.DeadlineArgs{DeadlineAnnotation: "example.com/deadline", DefaultDeadline: time.Hour, UrgentWithin: 5 * time.Minute, FastNodeLabel: "example.com/fast"}))

	a, err = decode(`{"urgentWithinSeconds":60,"fastNodeLabel":"tier/fast"}`)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(a.UrgentWithin).To(Equal(time.Minute))
	g.Expect(a.FastNodeLabel).To(Equal("tier/fast"))
	g.Expect(a.DefaultDeadline).To(Equal(time.Hour), "unset fields keep their defaults")

	_, err = decode(`{"urgentWithin":60}`)
	g.Expect(err).To(MatchError(ContainSubstring(`unknown field "urgentWithin"`)))
}

func TestValidateArgs(t *testing.T) {
	path := field.NewPath("spec", "pluginConfig").Index(0).Child("args")
	for _, tc := range []struct {
		args string
		want string
	}{
		{args: `{}`},
		{args: `{"urgentWithinSeconds":0}`, want: "spec.pluginConfig[0].args.urgentWithinSeconds: Invalid value: 0: must be greater than 0 and at most 604800 (7 days)"},
		{args: `{"defaultDeadlineSeconds":999999999}`, want: "spec.pluginConfig[0].args.defaultDeadlineSeconds: Invalid value: 999999999"},
		{args: `{"fastNodeLabel":"not a label"}`, want: `spec.pluginConfig[0].args.fastNodeLabel: Invalid value: "not a label"`},
	} {
		t.Run(tc.args, func(t *testing.T) {
			g := NewWithT(t)
			a, err := decode(tc.args)
			g.Expect(err).NotTo(HaveOccurred())
			err = validation.ValidateDeadlineArgs(path, a)
			if tc.want == "" {
				g.Expect(err).NotTo(HaveOccurred())
				return
			}
			g.Expect(err).To(MatchError(ContainSubstring(tc.want)))
		})
	}
}

var t0 = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

func newPlugin(t *testing.T) *Deadline {
	t.Helper()
	a, err := decode(`{}`)
	if err != nil {
		t.Fatal(err)
	}
	p, err := New(context.Background(), a, nil)
	if err != nil {
		t.Fatal(err)
	}
	pl := p.(*Deadline)
	pl.now = func() time.Time { return t0 }
	return pl
}

func pod(name string, priority int32, created time.Time, deadline string) *v1.Pod {
	p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: metav1.NewTime(created)}, Spec: v1.PodSpec{Priority: ptr.To(priority)}}
	if deadline != "" {
		p.Annotations = map[string]string{"example.com/deadline": deadline}
	}
	return p
}

func queued(p *v1.Pod, queuedAt time.Time) *framework.QueuedPodInfo {
	pi, _ := framework.NewPodInfo(p)
	return &framework.QueuedPodInfo{PodInfo: pi, QueueingParams: framework.QueueingParams{Timestamp: queuedAt}}
}

func TestLess(t *testing.T) {
	pl := newPlugin(t)
	for _, tc := range []struct {
		name string
		a, b *framework.QueuedPodInfo
		want bool
	}{
		{"higher priority first, whatever the deadline",
			queued(pod("a", 10, t0, "2030-01-01T00:00:00Z"), t0), queued(pod("b", 0, t0, "2026-11-01T12:01:00Z"), t0), true},
		{"the earlier annotated deadline first",
			queued(pod("a", 0, t0, "2026-11-01T12:30:00Z"), t0.Add(time.Minute)), queued(pod("b", 0, t0, "2026-11-01T13:00:00Z"), t0), true},
		{"a pod without the annotation is due an hour after its creation",
			queued(pod("a", 0, t0.Add(-50*time.Minute), ""), t0), queued(pod("b", 0, t0, "2026-11-01T12:30:00Z"), t0), true},
		{"an unparsable annotation counts as none",
			queued(pod("a", 0, t0, "tomorrow"), t0), queued(pod("b", 0, t0, "2026-11-01T12:30:00Z"), t0), false},
		{"equal deadlines: the pod queued first",
			queued(pod("a", 0, t0, ""), t0.Add(time.Second)), queued(pod("b", 0, t0, ""), t0), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			g.Expect(pl.Less(tc.a, tc.b)).To(Equal(tc.want))
			if tc.want {
				g.Expect(pl.Less(tc.b, tc.a)).To(BeFalse(), "the order is strict")
			}
		})
	}
}

func TestScore(t *testing.T) {
	pl := newPlugin(t)
	fast := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "fast", Labels: map[string]string{"example.com/fast": ""}}}
	slow := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "slow"}}
	urgent := pod("urgent", 0, t0, "2026-11-01T12:04:00Z")
	relaxed := pod("relaxed", 0, t0, "2026-11-01T15:00:00Z")
	overdue := pod("overdue", 0, t0.Add(-2*time.Hour), "")
	for _, tc := range []struct {
		pod  *v1.Pod
		node *v1.Node
		want int64
	}{
		{urgent, fast, fwk.MaxScore}, {urgent, slow, fwk.MinScore},
		{relaxed, fast, fwk.MinScore}, {relaxed, slow, fwk.MaxScore},
		{overdue, fast, fwk.MaxScore}, {overdue, slow, fwk.MinScore},
	} {
		t.Run(tc.pod.Name+" on "+tc.node.Name, func(t *testing.T) {
			g := NewWithT(t)
			ni := framework.NewNodeInfo()
			ni.SetNode(tc.node)
			got, status := pl.Score(context.Background(), nil, tc.pod, ni)
			g.Expect(status.IsSuccess()).To(BeTrue(), status.Message())
			g.Expect(got).To(Equal(tc.want))
		})
	}
}
