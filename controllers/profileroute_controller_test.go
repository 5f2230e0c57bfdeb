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

package controllers_test

import (
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/internal/controlplane"
	"github.com/profile-scheduler/profile-scheduler/internal/routing"
	"github.com/profile-scheduler/profile-scheduler/internal/test/testenv"
)

// Routes act inside kube-apiserver: every spec creates pods through the
// real API server and reads the schedulerName and annotation they were
// stored with.

func createRoute(name string, spec v1alpha1.ProfileRouteSpec) *v1alpha1.ProfileRoute {
	pr := &v1alpha1.ProfileRoute{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: spec}
	Expect(k8s.Create(suiteCtx, pr)).To(Succeed())
	DeferCleanup(deleteRoute, name)
	return pr
}

// deleteRoute deletes the route and waits until it is gone: the operator
// lets it go once kube-apiserver runs a policy without it.
func deleteRoute(name string) {
	Expect(client.IgnoreNotFound(k8s.Delete(suiteCtx, &v1alpha1.ProfileRoute{ObjectMeta: metav1.ObjectMeta{Name: name}}))).To(Succeed())
	Eventually(func() bool {
		return apierrors.IsNotFound(k8s.Get(suiteCtx, client.ObjectKey{Name: name}, &v1alpha1.ProfileRoute{}))
	}).WithTimeout(timeout).WithPolling(50*time.Millisecond).Should(BeTrue(), "route %s is released once its removal is in force", name)
}

// expectRoute waits until the route's latest generation is decided with
// reason (Ready=True for Active, Stalled=True otherwise).
func expectRoute(name, reason string) *v1alpha1.ProfileRoute {
	pr := &v1alpha1.ProfileRoute{}
	Eventually(func(g Gomega) {
		g.Expect(k8s.Get(suiteCtx, client.ObjectKey{Name: name}, pr)).To(Succeed())
		g.Expect(pr.Status.ObservedGeneration).To(Equal(pr.Generation))
		ready := meta.FindStatusCondition(pr.Status.Conditions, v1alpha1.ConditionReady)
		g.Expect(ready).NotTo(BeNil())
		g.Expect(ready.Reason).To(Equal(reason), ready.Message)
		stalled := meta.FindStatusCondition(pr.Status.Conditions, v1alpha1.ConditionStalled)
		g.Expect(stalled).NotTo(BeNil())
		if reason == v1alpha1.ReasonActive {
			g.Expect(ready.Status).To(Equal(metav1.ConditionTrue))
			g.Expect(stalled.Status).To(Equal(metav1.ConditionFalse))
		} else {
			g.Expect(ready.Status).To(Equal(metav1.ConditionFalse))
			g.Expect(stalled.Status).To(Equal(metav1.ConditionTrue))
		}
	}).WithTimeout(timeout).WithPolling(50 * time.Millisecond).Should(Succeed())
	return pr
}

func routeMessage(pr *v1alpha1.ProfileRoute) string {
	return meta.FindStatusCondition(pr.Status.Conditions, v1alpha1.ConditionReady).Message
}

func labelledNamespace(prefix string, labels map[string]string) string {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix + "-", Labels: labels}}
	Expect(k8s.Create(suiteCtx, ns)).To(Succeed())
	return ns.Name
}

// newPod creates a pod that requests nothing, and returns it as stored.
func newPod(ns, schedulerName string, labels map[string]string) *corev1.Pod {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, GenerateName: "routed-", Labels: labels},
		Spec: corev1.PodSpec{
			SchedulerName:                 schedulerName,
			AutomountServiceAccountToken:  ptr.To(false),
			TerminationGracePeriodSeconds: ptr.To[int64](0),
			Containers:                    []corev1.Container{{Name: "pause", Image: "registry.k8s.io/pause:3.10"}},
		},
	}
	Expect(k8s.Create(suiteCtx, pod)).To(Succeed())
	return pod
}

// routedTo describes a stored pod as "schedulerName route".
func routedTo(pod *corev1.Pod) string {
	return pod.Spec.SchedulerName + " " + pod.Annotations[v1alpha1.RouteAnnotation]
}

func liveProfile(name string) string {
	Expect(k8s.Create(suiteCtx, newProfile(name, v1alpha1.SchedulerProfileSpec{}))).To(Succeed())
	DeferCleanup(deleteProfile, name)
	expectLive(name, timeout)
	return name
}

var _ = Describe("ProfileRoute", func() {
	It("gives every new pod of a matrix of namespaces, labels and routes exactly the documented schedulerName", func() {
		id := rand.String(5)
		pack, spread := liveProfile("route-pack-"+id), liveProfile("route-spread-"+id)
		legacy := "legacy-" + id
		batch := labelledNamespace("batch", map[string]string{"team": "batch-" + id})
		web := labelledNamespace("web", map[string]string{"team": "web-" + id})
		other := labelledNamespace("other", nil)
		gold := map[string]string{"tier": "gold-" + id}

		createRoute("batch-"+id, v1alpha1.ProfileRouteSpec{Profile: pack,
			NamespaceSelector: &v1alpha1.LabelSelector{MatchLabels: map[string]string{"team": "batch-" + id}}})
		createRoute("gold-"+id, v1alpha1.ProfileRouteSpec{Profile: spread, AllNamespaces: true, Priority: 10,
			PodSelector: &v1alpha1.LabelSelector{MatchLabels: gold}})
		createRoute("legacy-"+id, v1alpha1.ProfileRouteSpec{Profile: pack, FromSchedulerNames: []string{legacy},
			NamespaceSelector: &v1alpha1.LabelSelector{MatchExpressions: []v1alpha1.LabelSelectorRequirement{
				{Key: "team", Operator: metav1.LabelSelectorOpIn, Values: []string{"web-" + id}}}}})
		pr := expectRoute("batch-"+id, v1alpha1.ReasonActive)
		Expect(pr.Status.SchedulerName).To(Equal(pack))
		Expect(pr.Status.MatchedNamespaces).To(Equal(&v1alpha1.MatchedNamespaces{Count: 1, Names: []string{batch}}))
		Expect(pr.Status.ExcludedNamespaces).To(Equal([]string{"default", "kube-system"}))
		Expect(pr.Finalizers).To(ContainElement("scheduling.profilescheduler.io/route"))
		expectRoute("gold-"+id, v1alpha1.ReasonActive)
		expectRoute("legacy-"+id, v1alpha1.ReasonActive)
		Eventually(func(g Gomega) {
			g.Expect(getProfile(pack).Status.Routes).To(Equal([]string{"batch-" + id, "legacy-" + id}))
			g.Expect(getProfile(spread).Status.Routes).To(Equal([]string{"gold-" + id}))
		}).WithTimeout(timeout).Should(Succeed(), "a profile lists the routes that feed it")

		// Ready means in force: no waiting from here on.
		for _, tc := range []struct {
			ns, schedulerName string
			labels            map[string]string
			want              string
		}{
			{batch, "", nil, pack + " batch-" + id},
			{batch, "default-scheduler", nil, pack + " batch-" + id},
			{batch, "", gold, spread + " gold-" + id},
			{batch, "other-scheduler", gold, "other-scheduler "},
			{batch, legacy, nil, legacy + " "},
			{web, "", nil, "default-scheduler "},
			{web, legacy, nil, pack + " legacy-" + id},
			{web, "", gold, spread + " gold-" + id},
			{other, "", gold, spread + " gold-" + id},
			{other, "", map[string]string{"tier": "silver"}, "default-scheduler "},
			// The operator's own namespace (here "default") and kube-system
			// are routed only by a route that names them.
			{"default", "", gold, "default-scheduler "},
			{"kube-system", "", gold, "default-scheduler "},
		} {
			pod := newPod(tc.ns, tc.schedulerName, tc.labels)
			Expect(routedTo(pod)).To(Equal(tc.want), "pod in %s with labels %v asking for %q", tc.ns, tc.labels, tc.schedulerName)
			if tc.ns == "default" || tc.ns == "kube-system" {
				Expect(k8s.Delete(suiteCtx, pod)).To(Succeed())
			}
		}
	})

	It("falls back or holds while the profile does not serve, and stalls on a conflict or an invalid selector", func() {
		id := rand.String(5)
		missing := "missing-" + id
		fb := labelledNamespace("fallback", map[string]string{"route": "fallback-" + id})
		hd := labelledNamespace("hold", map[string]string{"route": "hold-" + id})
		createRoute("fallback-"+id, v1alpha1.ProfileRouteSpec{Profile: missing,
			NamespaceSelector: &v1alpha1.LabelSelector{MatchLabels: map[string]string{"route": "fallback-" + id}}})
		createRoute("hold-"+id, v1alpha1.ProfileRouteSpec{Profile: missing, WhenProfileNotServing: v1alpha1.ProfileNotServingHold,
			NamespaceSelector: &v1alpha1.LabelSelector{MatchLabels: map[string]string{"route": "hold-" + id}}})
		Expect(routeMessage(expectRoute("fallback-"+id, v1alpha1.ReasonProfileNotFound))).To(ContainSubstring(`spec.profile: SchedulerProfile %q not found`, missing))
		Expect(routeMessage(expectRoute("hold-"+id, v1alpha1.ReasonActive))).To(ContainSubstring("routed pods wait"))
		Expect(routedTo(newPod(fb, "", nil))).To(Equal("default-scheduler "))
		held := newPod(hd, "", nil)
		Expect(routedTo(held)).To(Equal(missing + " hold-" + id))

		// The profile comes: the fallback route routes, the held pod is
		// scheduled.
		liveProfile(missing)
		expectRoute("fallback-"+id, v1alpha1.ReasonActive)
		Expect(routedTo(newPod(fb, "", nil))).To(Equal(missing + " fallback-" + id))
		boundNode(held, timeout)

		// A profile with no serving generation: ProfileNotServing.
		refused := "refused-" + id
		Expect(k8s.Create(suiteCtx, newProfile(refused, v1alpha1.SchedulerProfileSpec{Plugins: &v1alpha1.Plugins{
			Filter: v1alpha1.PluginSet{Enabled: []v1alpha1.Plugin{{Name: "NoSuchPlugin"}}}}}))).To(Succeed())
		DeferCleanup(deleteProfile, refused)
		expectRefused(refused, v1alpha1.ReasonUnknownPlugin, timeout)
		createRoute("not-serving-"+id, v1alpha1.ProfileRouteSpec{Profile: refused,
			NamespaceSelector: &v1alpha1.LabelSelector{MatchLabels: map[string]string{"route": "not-serving-" + id}}})
		expectRoute("not-serving-"+id, v1alpha1.ReasonProfileNotServing)

		// Equal priority, overlapping: the newer is refused, naming the
		// older; it takes over once the older is deleted.
		createRoute("newer-"+id, v1alpha1.ProfileRouteSpec{Profile: missing,
			NamespaceSelector: &v1alpha1.LabelSelector{MatchExpressions: []v1alpha1.LabelSelectorRequirement{
				{Key: "route", Operator: metav1.LabelSelectorOpExists}}}})
		Expect(routeMessage(expectRoute("newer-"+id, v1alpha1.ReasonRouteConflict))).To(ContainSubstring(`ProfileRoute "fallback-%s"`, id))
		deleteRoute("fallback-" + id)
		expectRoute("newer-"+id, v1alpha1.ReasonRouteConflict) // still shadowed by hold-
		deleteRoute("hold-" + id)
		deleteRoute("not-serving-" + id)
		expectRoute("newer-"+id, v1alpha1.ReasonActive)

		// Invalid selectors: the API server refuses an empty one; the
		// controller names the field of one it cannot parse.
		err := k8s.Create(suiteCtx, &v1alpha1.ProfileRoute{ObjectMeta: metav1.ObjectMeta{Name: "empty-" + id},
			Spec: v1alpha1.ProfileRouteSpec{Profile: missing, NamespaceSelector: &v1alpha1.LabelSelector{}}})
		Expect(err).To(MatchError(ContainSubstring("set spec.allNamespaces: true instead")))
		createRoute("invalid-"+id, v1alpha1.ProfileRouteSpec{Profile: missing, AllNamespaces: true,
			PodSelector: &v1alpha1.LabelSelector{MatchExpressions: []v1alpha1.LabelSelectorRequirement{
				{Key: "tier", Operator: metav1.LabelSelectorOpIn}}}})
		Expect(routeMessage(expectRoute("invalid-"+id, v1alpha1.ReasonInvalidSelector))).To(ContainSubstring("spec.podSelector.matchExpressions[0].values"))
	})

	It("routes pods created while the operator is stopped, and stops routing once a deleted route is gone", func() {
		id := rand.String(5)
		pack := liveProfile("route-down-" + id)
		ns := labelledNamespace("down", map[string]string{"route": "down-" + id})
		createRoute("down-"+id, v1alpha1.ProfileRouteSpec{Profile: pack,
			NamespaceSelector: &v1alpha1.LabelSelector{MatchLabels: map[string]string{"route": "down-" + id}}})
		expectRoute("down-"+id, v1alpha1.ReasonActive)

		op.stop()
		var pods []*corev1.Pod
		for range 3 {
			pod := newPod(ns, "", nil)
			Expect(routedTo(pod)).To(Equal(pack + " down-" + id))
			pods = append(pods, pod)
		}
		op = startOperator()
		for _, pod := range pods {
			boundNode(pod, timeout)
		}

		// Deletion: once the route is gone, no new pod is routed by it.
		deleteRoute("down-" + id)
		for range 5 {
			Expect(routedTo(newPod(ns, "", nil))).To(Equal("default-scheduler "))
		}
	})
})

// tableEventReasons lists the reasons of the events about the routes'
// RoutingTable.
func tableEventReasons() []string {
	var list eventsv1.EventList
	Expect(k8s.List(suiteCtx, &list)).To(Succeed())
	var out []string
	for _, e := range list.Items {
		if e.Regarding.Kind == "RoutingTable" && e.Regarding.Name == routing.PolicyName {
			out = append(out, e.Reason)
		}
	}
	return out
}

// podStream creates a pod in ns every 50 ms until stopped, and counts
// those not routed to want.
type podStream struct {
	stop      chan struct{}
	closeOnce sync.Once
	done      sync.WaitGroup
	mu        sync.Mutex
	created   int
	missed    []string
}

func streamPods(ns, want string) *podStream {
	p := &podStream{stop: make(chan struct{})}
	p.done.Go(func() {
		defer GinkgoRecover()
		for {
			select {
			case <-p.stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
			got := routedTo(newPod(ns, "", nil))
			p.mu.Lock()
			p.created++
			if got != want {
				p.missed = append(p.missed, got)
			}
			p.mu.Unlock()
		}
	})
	return p
}

// take returns the pods created and those that missed their route since
// the last take.
func (p *podStream) take() (int, []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	n, missed := p.created, p.missed
	p.created, p.missed = 0, nil
	return n, missed
}

func (p *podStream) close() {
	p.closeOnce.Do(func() { close(p.stop) })
	p.done.Wait()
}

var _ = Describe("The routes program, which the installer creates, and its RoutingTable, which the operator writes", func() {
	It("writes back a table edited, merged into or deleted by hand within seconds, saying so, while pods are created", func() {
		id := rand.String(5)
		pack := liveProfile("route-table-" + id)
		ns := labelledNamespace("table", map[string]string{"route": "table-" + id})
		createRoute("table-"+id, v1alpha1.ProfileRouteSpec{Profile: pack,
			NamespaceSelector: &v1alpha1.LabelSelector{MatchLabels: map[string]string{"route": "table-" + id}}})
		expectRoute("table-"+id, v1alpha1.ReasonActive)
		var table v1alpha1.RoutingTable
		Expect(k8s.Get(suiteCtx, client.ObjectKey{Name: routing.PolicyName}, &table)).To(Succeed())
		inForce := table.Spec
		Expect(inForce.Routes).To(ContainElement(HaveField("Name", "table-"+id)))
		restored := func(what string) {
			GinkgoHelper()
			Eventually(func(g Gomega) {
				var got v1alpha1.RoutingTable
				g.Expect(k8s.Get(suiteCtx, client.ObjectKey{Name: routing.PolicyName}, &got)).To(Succeed())
				g.Expect(got.Spec).To(Equal(inForce))
			}).WithTimeout(5*time.Second).WithPolling(20*time.Millisecond).Should(Succeed(), "the table %s is written back", what)
			Eventually(tableEventReasons).WithTimeout(5 * time.Second).Should(ContainElement(v1alpha1.EventRoutingTableRestored))
		}

		pods := streamPods(ns, pack+" table-"+id)
		defer pods.close()
		By("an update that empties the table")
		edited := table.DeepCopy()
		edited.Spec = v1alpha1.RoutingTableSpec{Revision: "by-hand"}
		Expect(k8s.Update(suiteCtx, edited)).To(Succeed())
		restored("emptied")
		By("a merge patch, as a client-side apply of a route of one's own")
		Expect(k8s.Get(suiteCtx, client.ObjectKey{Name: routing.PolicyName}, &table)).To(Succeed())
		merged := table.DeepCopy()
		merged.Spec.Routes = append([]v1alpha1.TableRoute{{Name: "mine", SchedulerName: "elsewhere", FromSchedulerNames: []string{"default-scheduler"}}}, merged.Spec.Routes...)
		Expect(k8s.Patch(suiteCtx, merged, client.MergeFrom(&table))).To(Succeed())
		restored("merged into")
		By("a delete")
		Expect(k8s.Delete(suiteCtx, &v1alpha1.RoutingTable{ObjectMeta: metav1.ObjectMeta{Name: routing.PolicyName}})).To(Succeed())
		restored("deleted")
		expectRoute("table-"+id, v1alpha1.ReasonActive)
		// Pods keep coming after the last restore, while kube-apiserver
		// reads the table again.
		time.Sleep(time.Second)
		created, missed := pods.take()
		GinkgoWriter.Printf("%d pods created while the table was edited, merged into and deleted; %d missed their route: %v\n", created, len(missed), missed)
		Expect(created).To(BeNumerically(">", 10))
		Eventually(func() string { return routedTo(newPod(ns, "", nil)) }).WithTimeout(5 * time.Second).Should(Equal(pack + " table-" + id))
		pods.take()
		time.Sleep(500 * time.Millisecond)
		created, missed = pods.take()
		Expect(missed).To(BeEmpty(), "pods created once the table is restored and read (of %d)", created)
	})

	It("reports a policy or binding deleted or replaced by hand on every route, routes nothing meanwhile, and routes again once the installer restores it", func() {
		id := rand.String(5)
		pack := liveProfile("route-gone-" + id)
		ns := labelledNamespace("gone", map[string]string{"route": "gone-" + id})
		createRoute("gone-"+id, v1alpha1.ProfileRouteSpec{Profile: pack,
			NamespaceSelector: &v1alpha1.LabelSelector{MatchLabels: map[string]string{"route": "gone-" + id}}})
		expectRoute("gone-"+id, v1alpha1.ReasonActive)
		Expect(routedTo(newPod(ns, "", nil))).To(Equal(pack + " gone-" + id))

		notInForce := func(seen string) {
			GinkgoHelper()
			// Probed every few seconds: no route change is needed.
			pr := expectRoute("gone-"+id, v1alpha1.ReasonAdmissionPolicyNotInForce)
			Expect(routeMessage(pr)).To(And(ContainSubstring("it came back with "+seen),
				ContainSubstring("routes MutatingAdmissionPolicy and its binding "+routing.PolicyName)))
			Expect(pr.Status.SchedulerName).To(BeEmpty())
			Eventually(tableEventReasons).WithTimeout(timeout).Should(ContainElement(v1alpha1.EventRoutesNotInForce))
		}
		By("the policy deleted, while pods are created")
		pods := streamPods(ns, pack+" gone-"+id)
		defer pods.close()
		Expect(k8s.Delete(suiteCtx, &admissionregistrationv1.MutatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: routing.PolicyName}})).To(Succeed())
		notInForce("no revision")
		Eventually(func() string { return routedTo(newPod(ns, "", nil)) }).WithTimeout(timeout).WithPolling(200*time.Millisecond).
			Should(Equal("default-scheduler "), "no policy, no routing")
		By("the installer restores it")
		Expect(controlplane.InstallRoutesPolicy(suiteCtx, k8s)).To(Succeed())
		expectRoute("gone-"+id, v1alpha1.ReasonActive)
		Expect(tableEventReasons()).To(ContainElement(v1alpha1.EventRoutesInForce))
		created, missed := pods.take()
		GinkgoWriter.Printf("%d pods created from the policy's deletion until the routes were Ready again; %d missed their route\n", created, len(missed))
		Expect(missed).NotTo(BeEmpty(), "no policy, no routing: the routes said so meanwhile")
		time.Sleep(500 * time.Millisecond)
		created, missed = pods.take()
		Expect(missed).To(BeEmpty(), "pods created once the routes are Ready again (of %d)", created)
		pods.close()
		Expect(routedTo(newPod(ns, "", nil))).To(Equal(pack + " gone-" + id))

		By("the binding replaced by one of another table")
		var binding admissionregistrationv1.MutatingAdmissionPolicyBinding
		Expect(k8s.Get(suiteCtx, client.ObjectKey{Name: routing.PolicyName}, &binding)).To(Succeed())
		Expect(k8s.Delete(suiteCtx, &binding)).To(Succeed())
		other := binding.DeepCopy()
		other.ObjectMeta = metav1.ObjectMeta{Name: binding.Name, Labels: binding.Labels}
		other.Spec.ParamRef.Name = "someone-elses"
		Expect(k8s.Create(suiteCtx, other)).To(Succeed())
		notInForce("no revision")
		Expect(k8s.Delete(suiteCtx, other)).To(Succeed())
		Expect(controlplane.InstallRoutesPolicy(suiteCtx, k8s)).To(Succeed())
		expectRoute("gone-"+id, v1alpha1.ReasonActive)
		Expect(routedTo(newPod(ns, "", nil))).To(Equal(pack + " gone-" + id))
	})

	It("leaves the program and table of another release alone, and each routes by its own table", func() {
		id := rand.String(5)
		pack := liveProfile("route-mine-" + id)
		mine := labelledNamespace("mine", map[string]string{"release": "mine-" + id})
		theirs := labelledNamespace("theirs", map[string]string{"release": "theirs-" + id})
		createRoute("mine-"+id, v1alpha1.ProfileRouteSpec{Profile: pack,
			NamespaceSelector: &v1alpha1.LabelSelector{MatchLabels: map[string]string{"release": "mine-" + id}}})
		expectRoute("mine-"+id, v1alpha1.ReasonActive)

		By("another release's program and table, as its chart and operator write them")
		other := "team-b-" + id + "-routes"
		policy, binding, err := routing.Program(other)
		Expect(err).NotTo(HaveOccurred())
		Expect(k8s.Create(suiteCtx, policy)).To(Succeed())
		Expect(k8s.Create(suiteCtx, binding)).To(Succeed())
		DeferCleanup(func() {
			Expect(k8s.Delete(suiteCtx, binding)).To(Succeed())
			Expect(k8s.Delete(suiteCtx, policy)).To(Succeed())
		})
		table, _ := routing.Build(routing.Input{Routes: []v1alpha1.ProfileRoute{{ObjectMeta: metav1.ObjectMeta{Name: "theirs"},
			Spec: v1alpha1.ProfileRouteSpec{Profile: "team-b", WhenProfileNotServing: v1alpha1.ProfileNotServingHold,
				NamespaceSelector: &v1alpha1.LabelSelector{MatchLabels: map[string]string{"release": "theirs-" + id}}}}}})
		params := table.Params(other)
		Expect(k8s.Create(suiteCtx, params)).To(Succeed())
		DeferCleanup(func() { Expect(k8s.Delete(suiteCtx, params)).To(Succeed()) })
		Eventually(func() string { return routedTo(newPod(theirs, "", nil)) }).WithTimeout(timeout).WithPolling(200 * time.Millisecond).
			Should(Equal("team-b theirs"))
		Expect(routedTo(newPod(mine, "", nil))).To(Equal(pack + " mine-" + id))
		pr := expectRoute("mine-"+id, v1alpha1.ReasonActive)
		Expect(pr.Status.Policy).To(Equal(routing.PolicyName))

		By("a probe of each table is stamped by its own program only")
		probe := routing.ProbePod("default", other)
		Expect(k8s.Create(suiteCtx, probe, client.DryRunAll)).To(Succeed())
		Expect(probe.Annotations).To(HaveKeyWithValue(routing.RevisionAnnotation, params.Spec.Revision))
		Consistently(func(g Gomega) {
			var got v1alpha1.RoutingTable
			g.Expect(k8s.Get(suiteCtx, client.ObjectKey{Name: other}, &got)).To(Succeed())
			g.Expect(got.Spec).To(Equal(params.Spec), "the operator leaves another release's table alone")
		}).WithTimeout(2 * time.Second).Should(Succeed())
	})

	It("routes by every selector operator, keys with / and ., and namespaces without labels", func() {
		id := rand.String(5)
		pack := liveProfile("route-ops-" + id)
		key := "example.com/tier." + id
		bare := labelledNamespace("bare", nil)
		labelled := labelledNamespace("ops", map[string]string{"team.example.com/name": "ops-" + id})
		createRoute("in-"+id, v1alpha1.ProfileRouteSpec{Profile: pack, AllNamespaces: true, Priority: 4,
			PodSelector: &v1alpha1.LabelSelector{MatchExpressions: []v1alpha1.LabelSelectorRequirement{
				{Key: key, Operator: metav1.LabelSelectorOpIn, Values: []string{"a", "b"}}}}})
		createRoute("notin-"+id, v1alpha1.ProfileRouteSpec{Profile: pack, Priority: 3,
			NamespaceSelector: &v1alpha1.LabelSelector{MatchLabels: map[string]string{"team.example.com/name": "ops-" + id}},
			PodSelector: &v1alpha1.LabelSelector{MatchExpressions: []v1alpha1.LabelSelectorRequirement{
				{Key: key, Operator: metav1.LabelSelectorOpNotIn, Values: []string{"c"}}}}})
		createRoute("exists-"+id, v1alpha1.ProfileRouteSpec{Profile: pack, AllNamespaces: true, Priority: 2,
			PodSelector: &v1alpha1.LabelSelector{MatchExpressions: []v1alpha1.LabelSelectorRequirement{
				{Key: "exists.example.com/" + id, Operator: metav1.LabelSelectorOpExists}}}})
		createRoute("absent-"+id, v1alpha1.ProfileRouteSpec{Profile: pack, Priority: 1,
			NamespaceSelector: &v1alpha1.LabelSelector{MatchExpressions: []v1alpha1.LabelSelectorRequirement{
				{Key: "kubernetes.io/metadata.name", Operator: metav1.LabelSelectorOpIn, Values: []string{bare}},
				{Key: "team.example.com/name", Operator: metav1.LabelSelectorOpDoesNotExist}}},
			PodSelector: &v1alpha1.LabelSelector{MatchExpressions: []v1alpha1.LabelSelectorRequirement{
				{Key: key, Operator: metav1.LabelSelectorOpDoesNotExist}}}})
		for _, r := range []string{"in-", "notin-", "exists-", "absent-"} {
			expectRoute(r+id, v1alpha1.ReasonActive)
		}
		table, _ := routing.Build(routing.Input{Routes: listRoutes(), Profiles: []v1alpha1.SchedulerProfile{*getProfile(pack)},
			Protected: routing.DefaultProtected("default")})
		for _, tc := range []struct {
			ns     string
			labels map[string]string
			want   string
		}{
			{bare, map[string]string{key: "a"}, "in-"},
			{bare, map[string]string{key: "c"}, ""},
			{labelled, map[string]string{key: "c"}, ""},
			{labelled, map[string]string{key: "d"}, "notin-"},
			{labelled, nil, "notin-"},
			{bare, map[string]string{key: "c", "exists.example.com/" + id: ""}, "exists-"},
			{bare, nil, "absent-"},
			{labelled, map[string]string{"exists.example.com/" + id: "x", key: "c"}, "exists-"},
		} {
			want, wantRoute := "default-scheduler ", ""
			if tc.want != "" {
				wantRoute = tc.want + id
				want = pack + " " + wantRoute
			}
			var nsLabels map[string]string
			if tc.ns == labelled {
				nsLabels = map[string]string{"team.example.com/name": "ops-" + id}
			}
			goRoute := ""
			if e := table.Route(tc.ns, nsLabels, tc.labels, ""); e != nil {
				goRoute = e.Route
			}
			Expect(goRoute).To(Equal(wantRoute),
				"kubectl sp route's answer for a pod in %s with labels %v", tc.ns, tc.labels)
			Expect(routedTo(newPod(tc.ns, "", tc.labels))).To(Equal(want), "pod in %s with labels %v", tc.ns, tc.labels)
		}
	})
})

// listRoutes lists every ProfileRoute.
func listRoutes() []v1alpha1.ProfileRoute {
	var list v1alpha1.ProfileRouteList
	Expect(k8s.List(suiteCtx, &list)).To(Succeed())
	return list.Items
}

var _ = Describe("Routes as large as the API admits", func() {
	It("are admitted, the oldest first, while their RoutingTable fits, and kube-apiserver runs the program over it for a pod every route evaluates", func() {
		id := rand.String(5)
		pack := liveProfile("route-largest-" + id)
		set := testenv.NewLargestRoutes("largest-"+id, pack, 58)
		for _, r := range set.Routes {
			Expect(k8s.Create(suiteCtx, &v1alpha1.ProfileRoute{ObjectMeta: metav1.ObjectMeta{Name: r.Name}, Spec: r.Spec})).To(Succeed())
		}
		// Deleted at once, then waited for: one table without them.
		DeferCleanup(func() {
			for _, r := range set.Routes {
				Expect(client.IgnoreNotFound(k8s.Delete(suiteCtx, &v1alpha1.ProfileRoute{ObjectMeta: metav1.ObjectMeta{Name: r.Name}}))).To(Succeed())
			}
			for _, r := range set.Routes {
				deleteRoute(r.Name)
			}
		})
		// Which routes fit depends on their ages (a second apart or not):
		// what the operator decides is what routing.Build decides on the
		// stored routes.
		var mine []v1alpha1.ProfileRoute
		for _, r := range listRoutes() {
			if strings.HasPrefix(r.Name, "largest-"+id+"-") {
				mine = append(mine, r)
			}
		}
		_, verdicts := routing.Build(routing.Input{Routes: mine, Profiles: []v1alpha1.SchedulerProfile{*getProfile(pack)}})
		last, refused := -1, 0
		for i, r := range set.Routes {
			switch v := verdicts[r.Name]; v.Reason {
			case v1alpha1.ReasonActive:
				last = i
			default:
				refused++
				Expect(v.Reason).To(Equal(v1alpha1.ReasonTooManyRoutes))
			}
		}
		Expect(refused).To(BeNumerically(">=", 2), "the table fits 56 routes at the maxima")
		for _, r := range set.Routes {
			pr := expectRoute(r.Name, verdicts[r.Name].Reason)
			if verdicts[r.Name].Reason != v1alpha1.ReasonActive {
				Expect(routeMessage(pr)).To(ContainSubstring("bytes of the RoutingTable"))
			}
		}
		var table v1alpha1.RoutingTable
		Expect(k8s.Get(suiteCtx, client.ObjectKey{Name: routing.PolicyName}, &table)).To(Succeed())
		Expect(len(table.Spec.Routes)).To(BeNumerically(">=", len(set.Routes)-refused))

		ns := labelledNamespace("largest", set.NamespaceLabels)
		Expect(routedTo(newPod(ns, set.FromSchedulerName, set.PodLabels(last)))).To(Equal(pack+" "+set.Routes[last].Name),
			"every route before it is evaluated down to its last requirement, in the program kube-apiserver runs")
	})
})
