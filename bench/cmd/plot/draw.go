package main

import (
	"os"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	vgdraw "gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// draw renders the panels side by side into a PNG file at path.
func draw(panels []panel, path string) error {
	row := make([]*plot.Plot, len(panels))
	for i, p := range panels {
		pl, err := panelPlot(p)
		if err != nil {
			return err
		}
		row[i] = pl
	}
	img := vgimg.New(12*vg.Inch, 5*vg.Inch)
	dc := vgdraw.New(img)
	tiles := vgdraw.Tiles{Rows: 1, Cols: len(row), PadX: vg.Millimeter * 4, PadY: vg.Millimeter * 2,
		PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2, PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2}
	canvases := plot.Align([][]*plot.Plot{row}, tiles, dc)
	for i, pl := range row {
		pl.Draw(canvases[0][i])
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(f); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}

// legendRoom is how far above the highest point the y axis goes, so that
// the legend in the top left corner stays clear of the lines.
const legendRoom = 1.45

// panelPlot makes the plot of one panel: log-scale bytes against ns/key.
func panelPlot(p panel) (*plot.Plot, error) {
	pl := plot.New()
	pl.Title.Text = p.title + " (p = 1e-4, one goroutine)"
	pl.X.Label.Text = "filter size (log scale)"
	pl.Y.Label.Text = "ns per key"
	pl.X.Scale = plot.LogScale{}
	pl.X.Tick.Marker = byteTicks{}
	pl.Y.Min = 0
	pl.Y.Tick.Marker = nsTicks{}
	pl.Legend.Top = true
	pl.Legend.Left = true
	pl.Add(plotter.NewGrid())
	var args []any
	top := 0.0
	for _, l := range p.lines {
		xys := make(plotter.XYs, len(l.points))
		for i, pt := range l.points {
			xys[i] = plotter.XY{X: pt.bytes, Y: pt.ns}
			top = max(top, pt.ns)
		}
		args = append(args, l.name, xys)
	}
	if err := plotutil.AddLinePoints(pl, args...); err != nil {
		return nil, err
	}
	pl.Y.Max = top * legendRoom
	return pl, nil
}
