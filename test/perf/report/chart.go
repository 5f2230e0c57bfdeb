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
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/profile-scheduler/profile-scheduler/internal/test/stats"
	"github.com/profile-scheduler/profile-scheduler/test/perf/harness"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Swap chart layout: what the chart shows around each change.
const (
	// binSeconds is the width of a bin of the binds-per-bin panel.
	binSeconds = 0.1
	// beforeSeconds and afterSeconds bound the window around a change.
	beforeSeconds = 1.0
	afterSeconds  = 4.0
)

var (
	red    = color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}
	orange = color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff}
	blue   = color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}
	grey   = color.Gray{Y: 0x80}
)

// series is one line of the swap chart: a scheduler and how it changed.
type series struct {
	title string
	color color.Color
	run   *harness.SwapRun
}

// swapSeries orders the runs upstream restart, upstream lease hand-over,
// ours, leaving out runs that bound nothing or made no change.
func swapSeries(runs []*harness.SwapRun) []series {
	var out []series
	for _, want := range []struct {
		sched  string
		le     bool
		title  string
		colour color.Color
	}{
		{harness.Upstream, false, "kube-scheduler (restart)", red},
		{harness.Upstream, true, "kube-scheduler (restart, lease hand-over)", orange},
		{harness.Ours, false, "profile-scheduler (update)", blue},
	} {
		for _, r := range runs {
			if r.Scheduler == want.sched && r.LeaderElection == want.le && len(r.Series) > 0 && len(r.SwapAtSeconds) > 0 {
				out = append(out, series{want.title, want.colour, r})
				break
			}
		}
	}
	return out
}

// sharedChanges is how many changes every run made: the chart shows that
// many of each, so no scheduler is shown over more changes than another.
func sharedChanges(ss []series) int {
	n := 0
	for i, s := range ss {
		if i == 0 || len(s.run.SwapAtSeconds) < n {
			n = len(s.run.SwapAtSeconds)
		}
	}
	return n
}

// bindsAround returns the mean number of binds per bin of width seconds
// around each of the run's first n changes, from before seconds ahead of
// it to after seconds past it, and the start of each bin relative to the
// change. A change counts towards a bin only when the bin lies after the
// previous change and before the next one (or the end of the storm), so
// what one change did is not read as another's; bins no change covers are
// left out (starts and mean end at the last covered bin, begin at the
// first).
func bindsAround(run *harness.SwapRun, n int, before, after, width float64) (starts, mean []float64) {
	bins := int((before+after)/width + 0.5)
	sum, cover := make([]float64, bins), make([]int, bins)
	const eps = 1e-9
	for i, at := range run.SwapAtSeconds[:n] {
		lo, hi := at-before, at+after
		if i > 0 {
			lo = max(lo, run.SwapAtSeconds[i-1])
		}
		if i+1 < len(run.SwapAtSeconds) {
			hi = min(hi, run.SwapAtSeconds[i+1])
		} else if run.StormSeconds > 0 && len(run.SwapAtSeconds) > 0 {
			hi = min(hi, run.SwapAtSeconds[0]+run.StormSeconds)
		}
		for b := range bins {
			from := at - before + float64(b)*width
			if from >= lo-eps && from+width <= hi+eps {
				cover[b]++
			}
		}
		for _, pt := range run.Series {
			if pt.T < lo || pt.T >= hi {
				continue
			}
			d := pt.T - at + before
			if b := int(d / width); d >= 0 && b < bins && cover[b] > 0 {
				from := at - before + float64(b)*width
				if from >= lo-eps && from+width <= hi+eps {
					sum[b]++
				}
			}
		}
	}
	for b := range bins {
		if cover[b] == 0 {
			continue
		}
		starts = append(starts, -before+float64(b)*width)
		mean = append(mean, sum[b]/float64(cover[b]))
	}
	return starts, mean
}

// changeGapsOf is the gap after each of the run's first n changes, ms.
func changeGapsOf(run *harness.SwapRun, n int) plotter.Values {
	out := make(plotter.Values, n)
	for i := 0; i < n && i < len(run.Changes); i++ {
		out[i] = run.Changes[i].GapMillis
	}
	return out
}

// SwapChart saves a chart of what a profile change costs the binding of
// pods under steady load, for each scheduler over the same number of
// changes: on top, the longest time without a bind after each change, one
// bar per scheduler; below, binds per 100 ms from 1 s before to 4 s after a
// change, averaged over those changes, where a restart shows as a trough
// to zero. The legend stands to the right of both. The format follows the
// file's extension (.svg, .png, .pdf).
func SwapChart(runs []*harness.SwapRun, path string) error {
	ss := swapSeries(runs)
	n := sharedChanges(ss)

	gaps := plot.New()
	gaps.Title.Text = fmt.Sprintf("Longest time without a bind after each profile change (first %d changes of each)", n)
	gaps.X.Label.Text = "profile change"
	gaps.Y.Label.Text = "ms without a bind"
	gaps.Y.Min = 0
	gaps.X.Padding, gaps.Y.Padding = 0, 0
	gaps.Add(plotter.NewGrid())

	rate := plot.New()
	rate.Title.Text = fmt.Sprintf("Pods bound per %.0f ms around a profile change, up to the next (mean over the same %d changes)", binSeconds*1000, n)
	rate.X.Label.Text = "seconds from the change (upstream: old process told to stop; ours: SchedulerProfile written)"
	rate.Y.Label.Text = fmt.Sprintf("binds per %.0f ms", binSeconds*1000)
	rate.X.Min, rate.X.Max = -beforeSeconds, afterSeconds
	rate.Y.Min = 0
	rate.X.Padding, rate.Y.Padding = 0, 0
	rate.Add(plotter.NewGrid())

	legend := plot.NewLegend()
	legend.Top, legend.Left = true, true
	legend.TextStyle.Font.Size = vg.Points(10)
	legend.ThumbnailWidth = vg.Points(24)
	legend.Padding = vg.Points(5)

	barWidth := vg.Points(max(4, 48/float64(max(len(ss), 1))))
	if n > 12 {
		barWidth = vg.Points(max(2, 240/float64(n*max(len(ss), 1))))
	}
	ymax := 0.0
	for i, s := range ss {
		bars, err := plotter.NewBarChart(changeGapsOf(s.run, n), barWidth)
		if err != nil {
			return err
		}
		bars.Color = s.color
		bars.LineStyle.Width = 0
		bars.Offset = barWidth * vg.Length(float64(i)-float64(len(ss)-1)/2)
		gaps.Add(bars)

		g := stats.Summarize([]float64(changeGapsOf(s.run, n)))
		legend.Add(s.title, bars)
		legend.Add(fmt.Sprintf("   gap p50 %.0f ms, max %.0f ms", g.P50, g.Max))

		starts, mean := bindsAround(s.run, n, beforeSeconds, afterSeconds, binSeconds)
		xy := make(plotter.XYs, 0, len(starts)+1)
		for b := range starts {
			xy = append(xy, plotter.XY{X: starts[b], Y: mean[b]})
			ymax = max(ymax, mean[b])
		}
		if len(starts) == 0 {
			continue
		}
		xy = append(xy, plotter.XY{X: starts[len(starts)-1] + binSeconds, Y: mean[len(mean)-1]})
		line, err := plotter.NewLine(xy)
		if err != nil {
			return err
		}
		line.StepStyle = plotter.PostStep
		line.Color = s.color
		line.Width = vg.Points(2)
		rate.Add(line)
	}
	ticks := make([]string, n)
	for i := range ticks {
		ticks[i] = strconv.Itoa(i + 1)
		if n > 20 && (i+1)%5 != 0 {
			ticks[i] = ""
		}
	}
	gaps.NominalX(ticks...)
	gaps.X.Min, gaps.X.Max = -0.5, float64(n)-0.5
	rate.Y.Max = max(ymax*1.15, 1)
	mark, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: 0, Y: rate.Y.Max}})
	if err != nil {
		return err
	}
	mark.Color = grey
	mark.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	rate.Add(mark)
	legend.Add("profile change (lower panel)", mark)
	if len(ss) == 0 {
		legend.Add("no swap run bound a pod")
	}

	const width, height, legendWidth = 11 * vg.Inch, 7.5 * vg.Inch, 2.9 * vg.Inch
	format := strings.TrimPrefix(filepath.Ext(path), ".")
	cw, err := draw.NewFormattedCanvas(width, height, format)
	if err != nil {
		return err
	}
	dc := draw.New(cw)
	plots := draw.Crop(dc, 0, -legendWidth, 0, 0)
	tiles := draw.Tiles{Rows: 2, Cols: 1, PadX: vg.Points(6), PadY: vg.Points(10), PadTop: vg.Points(4), PadBottom: vg.Points(4), PadLeft: vg.Points(4)}
	canvases := plot.Align([][]*plot.Plot{{gaps}, {rate}}, tiles, plots)
	gaps.Draw(canvases[0][0])
	rate.Draw(canvases[1][0])
	legend.YOffs = -vg.Points(24)
	legend.Draw(draw.Crop(dc, width-legendWidth+vg.Points(8), 0, 0, 0))
	return saveCanvas(cw, path)
}

// saveCanvas writes a drawn chart to path.
func saveCanvas(cw vg.CanvasWriterTo, path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := cw.WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
