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

package controllers

import (
	"context"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/scheduler/review"
)

// recordingReviewer keeps the requests it gets and places every pod on
// one node.
type recordingReviewer struct{ reqs []review.Request }

func (f *recordingReviewer) Review(_ context.Context, req review.Request) (*review.Answer, error) {
	f.reqs = append(f.reqs, req)
	return &review.Answer{SchedulerName: corev1.DefaultSchedulerName, SnapshotNodes: 1, Pod: &review.PodAnswer{
		Pod: req.Pod, SelectedNode: "n1", Feasible: []review.NodeResult{{Name: "n1", Total: 1}},
	}}, nil
}

// A review scores every node, but status lists the scores of
// spec.maxNodes nodes only: the reconciler asks the scheduler for no more
// (listing them for every feasible node was most of what a review
// allocated).
func TestReviewAsksForTheScoresStatusLists(t *testing.T) {
	g := NewWithT(t)
	scheme := runtime.NewScheme()
	g.Expect(clientgoscheme.AddToScheme(scheme)).To(Succeed())
	g.Expect(v1alpha1.AddToScheme(scheme)).To(Succeed())
	c := fake.NewClientBuilder().WithScheme(scheme).
		WithIndex(&v1alpha1.SchedulerProfile{}, indexSchedulerName, func(o client.Object) []string {
			return []string{o.(*v1alpha1.SchedulerProfile).EffectiveSchedulerName()}
		}).Build()
	reviewer := &recordingReviewer{}
	r := &schedulingReviewReconciler{Client: c, Reviewer: reviewer, now: metav1.Now}

	for _, tc := range []struct {
		maxNodes *int32
		want     int
	}{{nil, 10}, {ptr.To[int32](3), 3}, {ptr.To[int32](500), 500}} {
		sr := &v1alpha1.SchedulingReview{
			ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "why"},
			Spec: v1alpha1.SchedulingReviewSpec{
				PodTemplate: &v1alpha1.ReviewPodTemplate{Spec: v1alpha1.PodSpecTemplate(corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "pause"}}})},
				MaxNodes:    tc.maxNodes,
			},
		}
		out, err := r.answer(context.Background(), sr)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(out.failure).To(BeNil())
		g.Expect(reviewer.reqs).NotTo(BeEmpty())
		g.Expect(reviewer.reqs[len(reviewer.reqs)-1].ScoredNodes).To(Equal(tc.want), "spec.maxNodes %v", tc.maxNodes)
		g.Expect(reviewStatus(sr, out, metav1.Now()).Result.SelectedNode).To(Equal("n1"))
	}
}

// The answer is written with an update of the version read. A review
// changed meanwhile makes it conflict: that is no error (the change comes
// back through the watch), and the next reconcile answers.
func TestReviewAnswerConflictIsRetriedNotAnError(t *testing.T) {
	g := NewWithT(t)
	scheme := runtime.NewScheme()
	g.Expect(clientgoscheme.AddToScheme(scheme)).To(Succeed())
	g.Expect(v1alpha1.AddToScheme(scheme)).To(Succeed())
	sr := &v1alpha1.SchedulingReview{
		ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "why"},
		Spec: v1alpha1.SchedulingReviewSpec{
			PodTemplate: &v1alpha1.ReviewPodTemplate{Spec: v1alpha1.PodSpecTemplate(corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "pause"}}})},
		},
	}
	base := fake.NewClientBuilder().WithScheme(scheme).WithObjects(sr).WithStatusSubresource(sr).
		WithIndex(&v1alpha1.SchedulerProfile{}, indexSchedulerName, func(o client.Object) []string {
			return []string{o.(*v1alpha1.SchedulerProfile).EffectiveSchedulerName()}
		}).Build()
	// answers counts the status writes that answer the review (the
	// reconciler also marks a review it starts answering).
	answers := 0
	c := interceptor.NewClient(base, interceptor.Funcs{
		SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
			if !obj.(*v1alpha1.SchedulingReview).Finished() {
				return c.SubResource(sub).Update(ctx, obj, opts...)
			}
			answers++
			if answers == 1 {
				// Someone labels the review between the read and the write.
				latest := &v1alpha1.SchedulingReview{}
				g.Expect(c.Get(ctx, client.ObjectKeyFromObject(obj), latest)).To(Succeed())
				latest.Labels = map[string]string{"team": "a"}
				g.Expect(c.Update(ctx, latest)).To(Succeed())
			}
			return c.SubResource(sub).Update(ctx, obj, opts...)
		},
	})
	r := &schedulingReviewReconciler{Client: c, Reviewer: &recordingReviewer{}, now: metav1.Now}
	req := reconcile.Request{NamespacedName: client.ObjectKeyFromObject(sr)}

	res, err := r.Reconcile(context.Background(), req)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(res).To(Equal(reconcile.Result{}))
	got := &v1alpha1.SchedulingReview{}
	g.Expect(base.Get(context.Background(), req.NamespacedName, got)).To(Succeed())
	g.Expect(got.Finished()).To(BeFalse(), "the conflicting write must not land")

	res, err = r.Reconcile(context.Background(), req)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(res.RequeueAfter).To(Equal(600 * time.Second))
	g.Expect(base.Get(context.Background(), req.NamespacedName, got)).To(Succeed())
	g.Expect(got.Finished()).To(BeTrue())
	g.Expect(got.Status.Result.SelectedNode).To(Equal("n1"))
	g.Expect(got.Labels).To(HaveKeyWithValue("team", "a"))
	g.Expect(answers).To(Equal(2), "the conflicting answer, then the one that landed")
}
