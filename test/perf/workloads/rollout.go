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

package workloads

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Rollout makes a case measure progressive rollouts (a SchedulerProfile's
// spec.rollout; profile-scheduler only, upstream's runs of the case are
// the reference for the first part). Its steps are a normal case's (nodes,
// unmeasured pods, one measured step) and serve the first of three parts:
//
//   - Shadow cost: the measured step's throughput run without and with a
//     shadow step running (ShadowChange rolled out with one shadow step
//     that outlasts the run), back to back; upstream's throughput run of
//     the same step beside them.
//   - Blast radius: on PoolNodes nodes of each of two pools, pods of both
//     pools created at Rate per second; BadChange, which leaves the pods
//     of one pool unschedulable, applied with one canary step of
//     CanaryPercent and StepSeconds, then applied at once.
//   - A good change: GoodChange rolled out with a shadow step and a canary
//     step of PromotePercent, each StepSeconds, under the same load, to
//     promotion; GoodRepeat times, each on a fresh namespace, for its
//     false-rollback rate.
type Rollout struct {
	// ShadowChange is the profile the shadow step judges with.
	ShadowChange json.RawMessage `json:"shadowChange"`
	// BadChange and GoodChange are profiles (without schedulerName);
	// BadChange must leave the pods of pool b unschedulable.
	BadChange  json.RawMessage `json:"badChange"`
	GoodChange json.RawMessage `json:"goodChange"`
	// PoolNodes is the node count of each pool, from NodeTemplate.
	PoolNodes    Count  `json:"poolNodes"`
	NodeTemplate string `json:"nodeTemplate"`
	// PodTemplate is the load's pod; the harness pins every other pod to
	// each pool with a nodeSelector.
	PodTemplate string `json:"podTemplate"`
	// Rate is the load's pods per second.
	Rate Count `json:"rate"`
	// StepSeconds is every step's duration (at least 10, the API's least).
	StepSeconds Count `json:"stepSeconds"`
	// BlastStepSeconds is the bad change's canary step, StepSeconds when
	// unset: a long one shows the analysis that runs while the step does
	// (the canary rolled back long before the step's end).
	BlastStepSeconds Count `json:"blastStepSeconds,omitempty"`
	// CanaryPercent is the bad change's canary share, PromotePercent the
	// good change's.
	CanaryPercent  Count `json:"canaryPercent"`
	PromotePercent Count `json:"promotePercent"`
	// MinSamples is the analysis' minSamples.
	MinSamples Count `json:"minSamples"`
	// GoodRepeat is how many times the good change is rolled out (1 to
	// MaxGoodRepeat, 1 when unset): its false rollbacks over them.
	GoodRepeat *Count `json:"goodRepeat,omitempty"`
	// WarmupMillis of load before a change; AfterSeconds of load after
	// the rollout ended; DrainSeconds bounds the wait for the pods left.
	WarmupMillis Count `json:"warmupMillis"`
	AfterSeconds Count `json:"afterSeconds"`
	DrainSeconds Count `json:"drainSeconds"`
}

// MinStepSeconds is the shortest step spec.rollout accepts.
const MinStepSeconds = 10

// MaxGoodRepeat bounds rollout.goodRepeat: each run of the good change
// lasts its two steps and more.
const MaxGoodRepeat = 100

// RolloutValues are a rollout case's counts, resolved.
type RolloutValues struct {
	PoolNodes, Rate, CanaryPercent, PromotePercent, MinSamples int
	Step, BlastStep, Warmup, After, Drain                      time.Duration
	GoodRepeat                                                 int
}

// Values resolves the counts against vals, and checks those a -set may
// change without the case's validation seeing it (goodRepeat).
func (x *Rollout) Values(vals map[string]int) (RolloutValues, error) {
	var v RolloutValues
	var errs []error
	num := func(name string, n Count) int {
		i, err := n.Value(vals)
		if err != nil {
			errs = append(errs, fmt.Errorf("rollout.%s: %w", name, err))
		}
		return i
	}
	v.PoolNodes, v.Rate = num("poolNodes", x.PoolNodes), num("rate", x.Rate)
	v.CanaryPercent, v.PromotePercent = num("canaryPercent", x.CanaryPercent), num("promotePercent", x.PromotePercent)
	v.MinSamples = num("minSamples", x.MinSamples)
	v.Step = time.Duration(num("stepSeconds", x.StepSeconds)) * time.Second
	v.BlastStep = v.Step
	if x.BlastStepSeconds != (Count{}) {
		v.BlastStep = time.Duration(num("blastStepSeconds", x.BlastStepSeconds)) * time.Second
	}
	v.Warmup = time.Duration(num("warmupMillis", x.WarmupMillis)) * time.Millisecond
	v.After = time.Duration(num("afterSeconds", x.AfterSeconds)) * time.Second
	v.Drain = time.Duration(num("drainSeconds", x.DrainSeconds)) * time.Second
	v.GoodRepeat = 1
	if x.GoodRepeat != nil {
		n, err := x.GoodRepeat.Value(vals)
		switch {
		case err != nil:
			errs = append(errs, fmt.Errorf("rollout.goodRepeat: %w", err))
		case n < 1 || n > MaxGoodRepeat:
			errs = append(errs, fmt.Errorf("rollout.goodRepeat must be 1 to %d, got %d", MaxGoodRepeat, n))
		default:
			v.GoodRepeat = n
		}
	}
	return v, errors.Join(errs...)
}

func (c *Case) validateRollout(vals map[string]int, d TemplateData) error {
	x := c.Rollout
	v, err := x.Values(vals)
	if err != nil {
		return err
	}
	switch {
	case v.PoolNodes <= 0 || v.Rate <= 0:
		return errors.New("rollout: poolNodes and rate must be positive")
	case v.Step < MinStepSeconds*time.Second || v.Step > 24*time.Hour:
		return fmt.Errorf("rollout.stepSeconds must be %d to 86400, got %s", MinStepSeconds, v.Step)
	case v.BlastStep < MinStepSeconds*time.Second || v.BlastStep > 24*time.Hour:
		return fmt.Errorf("rollout.blastStepSeconds must be %d to 86400, got %s", MinStepSeconds, v.BlastStep)
	case v.CanaryPercent < 1 || v.CanaryPercent > 99 || v.PromotePercent < 1 || v.PromotePercent > 99:
		return errors.New("rollout: canaryPercent and promotePercent must be 1 to 99")
	case v.MinSamples < 0 || v.Warmup < 0 || v.After < 0 || v.Drain <= 0:
		return errors.New("rollout: minSamples, warmupMillis and afterSeconds must not be negative, drainSeconds must be positive")
	}
	for name, raw := range map[string]json.RawMessage{"shadowChange": x.ShadowChange, "badChange": x.BadChange, "goodChange": x.GoodChange} {
		if len(raw) == 0 {
			return fmt.Errorf("rollout.%s is required", name)
		}
		if _, err := SchedulerProfile(raw, "validate"); err != nil {
			return fmt.Errorf("rollout.%s: %w", name, err)
		}
	}
	if _, err := c.Node(x.NodeTemplate, d); err != nil {
		return fmt.Errorf("rollout: nodeTemplate: %w", err)
	}
	if _, err := c.Pod(x.PodTemplate, d); err != nil {
		return fmt.Errorf("rollout: podTemplate: %w", err)
	}
	return nil
}
