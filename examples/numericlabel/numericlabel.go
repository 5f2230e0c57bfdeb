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

package numericlabel

import (
	"context"
	"fmt"
	"math"
	"strconv"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	fwk "k8s.io/kube-scheduler/framework"
)

// Name is the plugin's name in profiles and metrics.
const Name = "NumericLabel"

// unranked is the raw score of a node without a usable label: it ends last.
const unranked = math.MinInt64

// NumericLabel scores nodes by the integer value of a label.
type NumericLabel struct {
	labelKey  string
	preferLow bool
}

var (
	_ fwk.ScorePlugin     = &NumericLabel{}
	_ fwk.ScoreExtensions = &NumericLabel{}
)

// New builds the plugin from its args: a *NumericLabelArgs when the args
// type is registered (app.WithPluginArgs), as profile-scheduler does.
func New(_ context.Context, obj runtime.Object, _ fwk.Handle) (fwk.Plugin, error) {
	args, ok := obj.(*NumericLabelArgs)
	if !ok {
		return nil, fmt.Errorf("want args of type NumericLabelArgs, got %T", obj)
	}
	if err := ValidateArgs(field.NewPath("args"), args); err != nil {
		return nil, err
	}
	return &NumericLabel{labelKey: args.LabelKey, preferLow: args.PreferLow}, nil
}

// Name returns the plugin's name.
func (pl *NumericLabel) Name() string { return Name }

// Score returns the label's integer value, the raw material of
// NormalizeScore; a node without the label, or with a value that is not an
// integer, gets unranked.
func (pl *NumericLabel) Score(_ context.Context, _ fwk.CycleState, _ *v1.Pod, nodeInfo fwk.NodeInfo) (int64, *fwk.Status) {
	node := nodeInfo.Node()
	if node == nil {
		return 0, fwk.NewStatus(fwk.Error, "node not found")
	}
	v, err := strconv.ParseInt(node.Labels[pl.labelKey], 10, 64)
	if err != nil || v == unranked {
		return unranked, nil
	}
	return v, nil
}

// ScoreExtensions returns the plugin itself: it normalizes its scores.
func (pl *NumericLabel) ScoreExtensions() fwk.ScoreExtensions { return pl }

// NormalizeScore maps the values to [0, MaxScore] linearly: the
// preferred end gets MaxScore, the other 0; unranked nodes get 0; when
// every ranked node has the same value, each gets MaxScore.
func (pl *NumericLabel) NormalizeScore(_ context.Context, _ fwk.CycleState, _ *v1.Pod, scores fwk.NodeScoreList) *fwk.Status {
	lo, hi, ranked := int64(math.MaxInt64), int64(math.MinInt64), false
	for _, s := range scores {
		if s.Score == unranked {
			continue
		}
		ranked = true
		lo, hi = min(lo, s.Score), max(hi, s.Score)
	}
	for i := range scores {
		s := &scores[i]
		switch {
		case s.Score == unranked || !ranked:
			s.Score = fwk.MinScore
		case hi == lo:
			s.Score = fwk.MaxScore
		default:
			// In float64: hi-lo may not fit in an int64.
			frac := (float64(s.Score) - float64(lo)) / (float64(hi) - float64(lo))
			if pl.preferLow {
				frac = 1 - frac
			}
			s.Score = int64(math.Round(frac * float64(fwk.MaxScore)))
		}
	}
	return nil
}
