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
	"sync/atomic"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/profile-scheduler/profile-scheduler/controllers"
	"github.com/profile-scheduler/profile-scheduler/internal/controlplane"
)

// Binds reach only the leader's arbiter: the chart's arbiter Service
// selects the label the leader puts on its own pod once its scheduler
// has synced. A replica removes it when it starts (a container restarted
// in the pod of a former leader) and when it stops cleanly.
func TestArbiterLabelsOnlyTheLeadersPod(t *testing.T) {
	g := NewWithT(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	env, cfg, err := controlplane.Start()
	g.Expect(err).NotTo(HaveOccurred())
	defer func() { _ = env.Stop() }()
	cs, err := kubernetes.NewForConfig(cfg)
	g.Expect(err).NotTo(HaveOccurred())
	pod, err := cs.CoreV1().Pods("default").Create(ctx, &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "operator-0", Labels: map[string]string{controllers.ArbiterLeaderLabel: controllers.ArbiterLeaderValue, "app": "op"}},
		Spec: corev1.PodSpec{
			AutomountServiceAccountToken: ptr.To(false),
			Containers:                   []corev1.Container{{Name: "manager", Image: "registry.k8s.io/pause:3.10"}},
		},
	}, metav1.CreateOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	label := func() string {
		p, err := cs.CoreV1().Pods(pod.Namespace).Get(ctx, pod.Name, metav1.GetOptions{})
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(p.Labels).To(HaveKeyWithValue("app", "op"), "other labels are kept")
		return p.Labels[controllers.ArbiterLeaderLabel]
	}

	elected := make(chan struct{})
	var synced atomic.Bool
	l := &arbiterLabeler{pods: cs, namespace: pod.Namespace, name: pod.Name, elected: elected, synced: synced.Load}
	g.Expect(l.NeedLeaderElection()).To(BeFalse(), "a standby runs it too")
	run, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = l.Start(run)
	}()
	g.Eventually(label).WithTimeout(10*time.Second).Should(BeEmpty(), "a standby removes the label a former leader's container left")
	close(elected)
	g.Consistently(label).WithTimeout(500*time.Millisecond).Should(BeEmpty(), "a leader whose scheduler has not synced does not judge yet")
	synced.Store(true)
	g.Eventually(label).WithTimeout(10 * time.Second).Should(Equal(controllers.ArbiterLeaderValue))
	stop()
	g.Eventually(done).WithTimeout(10 * time.Second).Should(BeClosed())
	g.Expect(label()).To(BeEmpty(), "a leader that stops cleanly leaves the Service before handing over")
}
