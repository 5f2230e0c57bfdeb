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
	"crypto/tls"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/profile-scheduler/profile-scheduler/internal/webhookcert"
	"github.com/profile-scheduler/profile-scheduler/test/perf/workloads"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A bind storm: the harness plays two schedulers whose caches are blind,
// each binding its half of the pods at Rate/2 per second onto nodes
// picked at random, with the bind arbiter judging every bind, and
// optionally the arbiter's serving certificate rotated midway as its
// rotator rotates it. Every refused bind is then checked against the
// cluster's final state: the node must still lack room for the pod
// (binds only add pods, so room at the end is at most room at the
// refusal: a refusal of a pod that fits at the end is one a correct
// count would have admitted).

// stormSchedulers name the storm's two schedulers (the pods'
// schedulerName; no scheduler serves them).
var stormSchedulers = []string{"storm-a", "storm-b"}

// StormRun is one bind storm.
type StormRun struct {
	Case   string `json:"case"`
	Repeat int    `json:"repeat"`
	Nodes  int    `json:"nodes"`
	// Binds tried, one per pod; Rate asked, and reached (binds sent per
	// second from the first to the last).
	Binds       int     `json:"binds"`
	Rate        float64 `json:"rate"`
	RateReached float64 `json:"rateReached"`
	// Admitted, Refused by the arbiter, Failed otherwise (timeouts, ...).
	Admitted int `json:"admitted"`
	Refused  int `json:"refused"`
	Failed   int `json:"failed"`
	// WrongRefusals counts refused binds whose pod fits its node in the
	// final state.
	WrongRefusals int `json:"wrongRefusals"`
	// WrongExamples are a few of them.
	WrongExamples []string `json:"wrongExamples,omitempty"`
	// BindMillis is a bind request's round trip, admitted or refused.
	BindMillis struct{ P50, P99 float64 } `json:"bindMillis"`
	Overcommit
	// Rotated: the arbiter's certificate was rotated at RotatedAtSeconds
	// from the first bind; BindsAfterRotation were sent after it.
	Rotated            bool    `json:"rotated"`
	RotatedAtSeconds   float64 `json:"rotatedAtSeconds,omitempty"`
	BindsAfterRotation int     `json:"bindsAfterRotation,omitempty"`
	// ServesRotated: after the storm the webhook server served the
	// rotated serving certificate (it reloaded it).
	ServesRotated bool `json:"servesRotated,omitempty"`
	// Arbiter is what the operator serving the arbiter counted and
	// spent; binds the harness saw admitted beyond its decisions went
	// through unjudged (the webhook failed open).
	Arbiter         *ArbiterCost `json:"arbiter,omitempty"`
	FailedOpenBinds int          `json:"failedOpenBinds"`
	Seconds         float64      `json:"seconds"`
	Error           string       `json:"error,omitempty"`
}

// stormBind is one bind the storm sent.
type stormBind struct {
	pod, node string
	sent      time.Time
	took      time.Duration
	refused   bool
	err       error
}

// RunBindStorm runs a bind storm on case c's node template: binds pods
// (c's coexist pod template, half per storm scheduler) onto enough nodes
// that about half of them fit, at rate binds per second, the arbiter
// (served by arbiter.Process alone, its certificates in certDir) judging
// them; with rotate, the arbiter's certificates are rotated after half
// the binds.
func (r *Runner) RunBindStorm(ctx context.Context, c *workloads.Case, vals map[string]int, arbiter *BindArbiter, certDir string, repeat, binds int, rate float64, rotate bool) (run *StormRun, err error) {
	run = &StormRun{Case: c.Name, Repeat: repeat, Binds: binds, Rate: rate, Rotated: rotate}
	defer func() {
		if err != nil {
			run.Error = err.Error()
		}
	}()
	e, err := r.prepare(ctx, c, "storm")
	defer r.cleanup(e)
	if err != nil {
		return run, err
	}
	pods, err := renderPods(c, c.Coexist.PodTemplate, "s", 0, binds, e.ns, "", vals)
	if err != nil {
		return run, err
	}
	for i, p := range pods {
		p.Spec.SchedulerName = stormSchedulers[i%2]
	}
	// About half the pods fit: each node holds allocatable / request.
	var node *workloads.CreateNodes
	for _, s := range c.Steps {
		if s.CreateNodes != nil {
			node = s.CreateNodes
		}
	}
	if node == nil {
		return run, errors.New("the storm needs the case's createNodes step (its node template)")
	}
	probe, err := r.node(c, node.Template, node.Prefix, 0, vals)
	if err != nil {
		return run, err
	}
	perNode := probe.Status.Allocatable.Cpu().MilliValue() / max(1, requestOf(pods[0]).cpu)
	nodes := make([]*corev1.Node, max(1, int(int64(binds)/2/max(1, perNode))))
	for i := range nodes {
		if nodes[i], err = r.node(c, node.Template, node.Prefix, i, vals); err != nil {
			return run, err
		}
		e.nodes[nodes[i].Name] = nodes[i].Labels
	}
	if err := r.parallel(ctx, len(nodes), func(ctx context.Context, i int) error {
		_, err := r.CP.Core.CoreV1().Nodes().Create(ctx, nodes[i], metav1.CreateOptions{})
		return err
	}); err != nil {
		return run, err
	}
	run.Nodes = len(e.nodes)
	stop, err := r.startArbiter(ctx, c, e, arbiter)
	defer stop()
	if err != nil {
		return run, err
	}
	if err := r.createPods(ctx, pods); err != nil {
		return run, err
	}
	if err := e.rec.WaitSeen(ctx, "s", binds, time.Minute); err != nil {
		return run, err
	}
	names := make([]string, 0, len(e.nodes))
	for n := range e.nodes {
		names = append(names, n)
	}
	slices.Sort(names)
	rnd := rand.New(rand.NewPCG(uint64(repeat), 35))
	sent := make([]stormBind, binds)
	for i := range sent {
		sent[i] = stormBind{pod: pods[i].Name, node: names[rnd.IntN(len(names))]}
	}
	r.logf("%s/storm: %d binds onto %d nodes (%d pods each) at %.0f/s, two schedulers, the bind arbiter judging; certificate rotated midway: %t",
		c.Name, binds, run.Nodes, perNode, rate, rotate)

	stopCost := r.measureArbiter(ctx, arbiter.Process, fmt.Sprintf("%s-storm-%d", c.Name, repeat))
	t0 := time.Now()
	var rotateErr error
	rotated := make(chan struct{})
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range 64 {
		wg.Go(func() {
			for i := range jobs {
				b := &sent[i]
				b.sent = time.Now()
				b.err = r.CP.Core.CoreV1().Pods(e.ns).Bind(ctx, &corev1.Binding{
					ObjectMeta: metav1.ObjectMeta{Namespace: e.ns, Name: b.pod},
					Target:     corev1.ObjectReference{Kind: "Node", Name: b.node},
				}, metav1.CreateOptions{})
				b.took = time.Since(b.sent)
				b.refused = b.err != nil && strings.Contains(b.err.Error(), "has no room for")
			}
		})
	}
	interval := time.Duration(float64(time.Second) / rate)
	for i := range sent {
		if rotate && i == binds/2 {
			run.RotatedAtSeconds = time.Since(t0).Seconds()
			run.BindsAfterRotation = binds - i
			// Beside the binds, as the operator's rotator runs beside
			// its webhook server.
			go func() {
				defer close(rotated)
				rotateErr = rotateArbiterCert(ctx, r, certDir)
			}()
		}
		if next := t0.Add(time.Duration(i) * interval); time.Until(next) > 0 {
			time.Sleep(time.Until(next))
		}
		select {
		case jobs <- i:
		case <-ctx.Done():
		}
	}
	close(jobs)
	wg.Wait()
	if rotate {
		<-rotated
	}
	var first, last time.Time
	var took []float64
	for _, b := range sent {
		if b.sent.IsZero() {
			continue
		}
		if first.IsZero() || b.sent.Before(first) {
			first = b.sent
		}
		if b.sent.After(last) {
			last = b.sent
		}
		took = append(took, float64(b.took)/float64(time.Millisecond))
		switch {
		case b.err == nil:
			run.Admitted++
		case b.refused:
			run.Refused++
		default:
			run.Failed++
		}
	}
	if d := last.Sub(first).Seconds(); d > 0 {
		run.RateReached = float64(len(took)-1) / d
	}
	if len(took) > 0 {
		slices.Sort(took)
		run.BindMillis.P50, run.BindMillis.P99 = took[(len(took)-1)/2], took[(len(took)-1)*99/100]
	}
	// The binds reach the watch, and the arbiter's informers, a little
	// later: wait until the watch has them all.
	_ = e.rec.WaitFor(ctx, 30*time.Second, func(bs []Bind) bool { return len(bs) >= run.Admitted })
	run.Seconds = time.Since(t0).Seconds()
	run.Arbiter = stopCost()
	if run.Arbiter != nil {
		run.FailedOpenBinds = max(0, run.Admitted-int(run.Arbiter.Judged-run.Arbiter.Refused+run.Arbiter.Unjudged))
	}
	if rotate && rotateErr == nil {
		// The webhook server reloads its certificate when its watcher sees
		// the files change, or at its next poll (controller-runtime's
		// certwatcher polls every 10s): wait that long, and a little more.
		deadline := time.Now().Add(certReloadWait)
		for {
			run.ServesRotated, rotateErr = servesCert(arbiter.Port, certDir)
			if rotateErr != nil || run.ServesRotated || time.Now().After(deadline) {
				break
			}
			time.Sleep(250 * time.Millisecond)
		}
		if rotateErr == nil && !run.ServesRotated {
			rotateErr = fmt.Errorf("the arbiter still serves the certificate it had before the rotation, %s after the storm", certReloadWait)
		}
	}
	err = errors.Join(rotateErr, r.checkStorm(ctx, e, run, sent))
	r.logf("%s/storm: the arbiter serves the rotated certificate after the storm: %t", c.Name, run.ServesRotated)
	r.logf("%s/storm: %d binds sent at %.0f/s (p50 %.1f ms, p99 %.1f ms): %d admitted, %d refused, %d failed; %d refusals a correct count would have admitted; %d nodes overcommitted, %d pods over; %d admitted unjudged (failed open)",
		c.Name, len(took), run.RateReached, run.BindMillis.P50, run.BindMillis.P99, run.Admitted, run.Refused, run.Failed,
		run.WrongRefusals, run.OvercommittedNodes, run.PodsOver, run.FailedOpenBinds)
	for _, b := range sent {
		if b.err != nil && !b.refused && run.Failed > 0 {
			r.logf("%s/storm: a failed bind: %s on %s: %v", c.Name, b.pod, b.node, b.err)
			break
		}
	}
	return run, err
}

// certReloadWait bounds how long after a storm the rotated certificate
// may take to be served.
const certReloadWait = 20 * time.Second

// checkStorm replays the storm's binds on the nodes and checks every
// refusal against the final state.
func (r *Runner) checkStorm(ctx context.Context, e *env, run *StormRun, sent []stormBind) error {
	list, err := r.CP.Core.CoreV1().Pods(e.ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	reqs := map[string]podRequest{}
	for _, p := range list.Items {
		reqs[p.Name] = requestOf(&p)
	}
	nodes, err := r.CP.Core.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: BenchLabel})
	if err != nil {
		return err
	}
	alloc, slots := map[string]podRequest{}, map[string]int64{}
	for _, n := range nodes.Items {
		a := n.Status.Allocatable
		alloc[n.Name] = podRequest{cpu: a.Cpu().MilliValue(), mem: a.Memory().Value()}
		slots[n.Name] = a.Pods().Value()
	}
	run.Overcommit = replayBinds(e.rec.Binds(), reqs, alloc, slots)
	bound := map[string]string{}
	for _, p := range list.Items {
		if p.Spec.NodeName != "" && p.DeletionTimestamp == nil {
			bound[p.Name] = p.Spec.NodeName
		}
	}
	run.WrongRefusals, run.WrongExamples = wrongRefusals(sent, bound, reqs, alloc, slots)
	return nil
}

// wrongRefusals counts the refused binds of sent whose pod fits its node
// with the pods bound at the end (pod name to node), and describes up to
// five of them.
func wrongRefusals(sent []stormBind, bound map[string]string, reqs map[string]podRequest, alloc map[string]podRequest, slots map[string]int64) (n int, examples []string) {
	type use struct{ cpu, mem, pods int64 }
	used := map[string]*use{}
	for pod, node := range bound {
		u := used[node]
		if u == nil {
			u = &use{}
			used[node] = u
		}
		req := reqs[pod]
		u.cpu, u.mem, u.pods = u.cpu+req.cpu, u.mem+req.mem, u.pods+1
	}
	for _, b := range sent {
		if !b.refused {
			continue
		}
		u, a, req := used[b.node], alloc[b.node], reqs[b.pod]
		if u == nil {
			u = &use{}
		}
		if u.cpu+req.cpu <= a.cpu && u.mem+req.mem <= a.mem && u.pods+1 <= slots[b.node] {
			n++
			if len(examples) < 5 {
				examples = append(examples, fmt.Sprintf("%s on %s (%dm of %dm used at the end): %v", b.pod, b.node, u.cpu, a.cpu, b.err))
			}
		}
	}
	return n, examples
}

// servesCert reports whether the server on localhost:port serves the
// certificate in certDir/tls.crt.
func servesCert(port int, certDir string) (bool, error) {
	pair, err := tls.LoadX509KeyPair(filepath.Join(certDir, "tls.crt"), filepath.Join(certDir, "tls.key"))
	if err != nil {
		return false, err
	}
	conn, err := tls.Dial("tcp", fmt.Sprintf("localhost:%d", port), &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // compares the certificate served, trusts nothing
	if err != nil {
		return false, err
	}
	defer conn.Close()
	peer := conn.ConnectionState().PeerCertificates
	return len(peer) > 0 && len(pair.Certificate) > 0 && bytes.Equal(peer[0].Raw, pair.Certificate[0]), nil
}

// rotateArbiterCert rotates the arbiter's certificates in certDir as the
// operator's rotator does when a third of their validity remains: a new
// CA and serving certificate written into the directory (the webhook
// server reloads them), then the new CA merged into the webhook
// configuration's caBundle beside the old one. The rotator renews only
// what it finds stale; the serving certificate is removed first, which
// makes it so.
func rotateArbiterCert(ctx context.Context, r *Runner, certDir string) error {
	rot := &webhookcert.Rotator{Client: r.CP.Client, Options: webhookcert.Options{
		CertDir:           certDir,
		ConfigurationName: ArbiterWebhookConfiguration,
		DNSNames:          []string{"localhost"},
	}}
	if err := os.Remove(filepath.Join(certDir, "tls.crt")); err != nil {
		return fmt.Errorf("rotating the arbiter's certificate: %w", err)
	}
	if err := rot.Ensure(time.Now()); err != nil {
		return fmt.Errorf("rotating the arbiter's certificate: %w", err)
	}
	if err := rot.PatchCABundle(ctx); err != nil {
		return fmt.Errorf("rotating the arbiter's certificate: merging the CA: %w", err)
	}
	r.logf("storm: the arbiter's certificate rotated (a new CA, merged into the caBundle beside the old one)")
	return nil
}
