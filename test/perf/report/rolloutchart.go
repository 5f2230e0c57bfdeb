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

package report

import (
	"errors"
	"fmt"
	"image/color"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/profile-scheduler/profile-scheduler/test/perf/harness"
)

// RolloutChart draws a good change's promotion (the rollout case's
// promote run): on top, the pods each generation bound per second, the
// serving one and the candidate side by side; below, each generation's
// p99 from creation to bind; both per harness.TimelineWindow, with the
// canary step's start and the promotion marked. The format follows the
// file's extension (.svg, .png, .pdf).
func RolloutChart(run *harness.PromoteRun, path string) error {
	if run == nil || len(run.Timeline) == 0 {
		return errors.New("the promote run has no timeline")
	}
	rate := plot.New()
	rate.Title.Text = fmt.Sprintf("Pods bound per second by each generation across a rollout (%s, %.0f pods/s offered)", run.Steps, run.Rate)
	rate.Y.Label.Text = "binds per second"
	rate.Y.Min = 0
	lat := plot.New()
	lat.Title.Text = "p99 from creation to bind, per generation"
	lat.X.Label.Text = "seconds from the change"
	lat.Y.Label.Text = "p99 ms"
	lat.Y.Min = 0
	for _, p := range []*plot.Plot{rate, lat} {
		p.X.Padding, p.Y.Padding = 0, 0
		p.Add(plotter.NewGrid())
	}
	legend := plot.NewLegend()
	legend.Top, legend.Left = true, true
	legend.TextStyle.Font.Size = vg.Points(10)
	legend.ThumbnailWidth = vg.Points(24)

	w := harness.TimelineWindow.Seconds()
	maxRate, maxLat := 1.0, 1.0
	for _, g := range []struct {
		candidate bool
		title     string
		color     color.Color
	}{{false, fmt.Sprintf("generation %d's predecessor (serving)", run.Generation), blue}, {true, fmt.Sprintf("generation %d (candidate, then promoted)", run.Generation), orange}} {
		var rates, p99s plotter.XYs
		for _, win := range run.Timeline {
			if win.Candidate != g.candidate {
				continue
			}
			rates = append(rates, plotter.XY{X: win.AtSeconds + w/2, Y: win.BindsPerSecond})
			maxRate = max(maxRate, win.BindsPerSecond)
			if win.Pods > 0 {
				p99s = append(p99s, plotter.XY{X: win.AtSeconds + w/2, Y: win.P99Millis})
				maxLat = max(maxLat, win.P99Millis)
			}
		}
		rl, err := plotter.NewLine(rates)
		if err != nil {
			return err
		}
		rl.Width = vg.Points(2)
		rl.Color = g.color
		rate.Add(rl)
		legend.Add(g.title, rl)
		if len(p99s) > 0 {
			ll, pts, err := plotter.NewLinePoints(p99s)
			if err != nil {
				return err
			}
			ll.Width, ll.Color, pts.Color = vg.Points(2), rl.Color, rl.Color
			lat.Add(ll, pts)
		}
	}
	rate.Y.Max, lat.Y.Max = maxRate*1.15, maxLat*1.15
	for _, c := range run.Changes {
		if c.AtSeconds <= 0 {
			legend.Add(fmt.Sprintf("0 s: %s", c.What))
			continue
		}
		for _, p := range []*plot.Plot{rate, lat} {
			mark, err := plotter.NewLine(plotter.XYs{{X: c.AtSeconds, Y: 0}, {X: c.AtSeconds, Y: p.Y.Max}})
			if err != nil {
				return err
			}
			mark.Color = grey
			mark.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
			p.Add(mark)
		}
		legend.Add(fmt.Sprintf("%.0f s: %s", c.AtSeconds, c.What))
	}

	const width, height, legendWidth = 11 * vg.Inch, 7 * vg.Inch, 3.2 * vg.Inch
	cw, err := draw.NewFormattedCanvas(width, height, strings.TrimPrefix(filepath.Ext(path), "."))
	if err != nil {
		return err
	}
	dc := draw.New(cw)
	tiles := draw.Tiles{Rows: 2, Cols: 1, PadX: vg.Points(6), PadY: vg.Points(10), PadTop: vg.Points(4), PadBottom: vg.Points(4), PadLeft: vg.Points(4)}
	canvases := plot.Align([][]*plot.Plot{{rate}, {lat}}, tiles, draw.Crop(dc, 0, -legendWidth, 0, 0))
	rate.Draw(canvases[0][0])
	lat.Draw(canvases[1][0])
	legend.YOffs = -vg.Points(24)
	legend.Draw(draw.Crop(dc, width-legendWidth, 0, 0, 0))
	return saveCanvas(cw, path)
}
