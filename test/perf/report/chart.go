package report

import (
	"fmt"
	"image/color"

	"github.com/profile-scheduler/profile-scheduler/test/perf/harness"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

var colors = map[string]color.Color{
	harness.Upstream: color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff},
	harness.Ours:     color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff},
}

var titles = map[string]string{
	harness.Upstream: "kube-scheduler (restart)",
	harness.Ours:     "profile-scheduler (update)",
}

// SwapChart saves an SVG of bound pods over time during the swap storm, one
// line per scheduler, with a mark where each profile change was made.
func SwapChart(runs []*harness.SwapRun, path string) error {
	p := plot.New()
	p.Title.Text = "Pods bound during the profile-swap storm"
	p.X.Label.Text = "seconds since load start"
	p.Y.Label.Text = "pods bound"
	p.Legend.Top = true
	p.Legend.Left = true
	p.Add(plotter.NewGrid())
	for _, run := range runs {
		if len(run.Series) == 0 {
			continue
		}
		xy := make(plotter.XYs, 0, len(run.Series)+1)
		xy = append(xy, plotter.XY{})
		for _, pt := range run.Series {
			xy = append(xy, plotter.XY{X: pt.T, Y: float64(pt.N)})
		}
		line, err := plotter.NewLine(xy)
		if err != nil {
			return err
		}
		line.Color = colors[run.Scheduler]
		line.Width = vg.Points(1.5)
		p.Add(line)
		p.Legend.Add(titles[run.Scheduler], line)

		marks := make(plotter.XYs, 0, len(run.SwapAtSeconds))
		for _, t := range run.SwapAtSeconds {
			marks = append(marks, plotter.XY{X: t, Y: boundAt(run.Series, t)})
		}
		if len(marks) > 0 {
			sc, err := plotter.NewScatter(marks)
			if err != nil {
				return err
			}
			sc.GlyphStyle.Color = colors[run.Scheduler]
			sc.GlyphStyle.Shape = draw.CrossGlyph{}
			sc.GlyphStyle.Radius = vg.Points(3)
			p.Add(sc)
			p.Legend.Add(fmt.Sprintf("%s: profile change", run.Scheduler), sc)
		}
	}
	return p.Save(9*vg.Inch, 4.5*vg.Inch, path)
}

// boundAt is the count of the series at time t.
func boundAt(series []harness.Point, t float64) float64 {
	n := 0
	for _, pt := range series {
		if pt.T > t {
			break
		}
		n = pt.N
	}
	return float64(n)
}
