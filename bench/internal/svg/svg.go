// Package svg draws the few plots of the benchmark report as plain SVG:
// grouped bar charts and small line charts, optionally on a log scale. It is
// deliberately small; the numbers are in the report's tables too.
package svg

import (
	"fmt"
	"html"
	"math"
	"strings"
)

var palette = []string{"#1b6ca8", "#e07b39", "#4c9a2a", "#b03a48", "#7a5195", "#8c8c8c"}

// Bars is a grouped bar chart: one group per Groups entry, one bar per
// Series entry inside each group. Values[s][g] <= 0 means "no bar".
type Bars struct {
	Title, YLabel string
	Groups        []string
	Series        []string
	Values        [][]float64
	Log           bool
}

const (
	width, height           = 760, 380
	left, right, top, bottm = 70, 20, 40, 70
)

type scale struct {
	lo, hi float64
	log    bool
}

func newScale(vals []float64, log bool) scale {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range vals {
		if v <= 0 && log {
			continue
		}
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	if math.IsInf(lo, 1) {
		lo, hi = 1, 10
	}
	if log {
		return scale{math.Pow(10, math.Floor(math.Log10(lo))), math.Pow(10, math.Ceil(math.Log10(hi))), true}
	}
	return scale{0, hi * 1.1, false}
}

// y maps v to a pixel row.
func (s scale) y(v float64) float64 {
	h := float64(height - top - bottm)
	if s.log {
		v = math.Max(v, s.lo)
		return float64(height-bottm) - h*(math.Log10(v)-math.Log10(s.lo))/(math.Log10(s.hi)-math.Log10(s.lo))
	}
	return float64(height-bottm) - h*(v-s.lo)/(s.hi-s.lo)
}

func (s scale) ticks() []float64 {
	var t []float64
	if s.log {
		for v := s.lo; v <= s.hi*1.0001; v *= 10 {
			t = append(t, v)
		}
		return t
	}
	step := niceStep(s.hi / 5)
	for v := 0.0; v <= s.hi; v += step {
		t = append(t, v)
	}
	return t
}

func niceStep(x float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(x)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= x {
			return m * p
		}
	}
	return 10 * p
}

// Num formats a number compactly for labels.
func Num(v float64) string {
	switch a := math.Abs(v); {
	case a == 0:
		return "0"
	case a >= 1e6:
		return fmt.Sprintf("%.3gM", v/1e6)
	case a >= 1e4:
		return fmt.Sprintf("%.3gk", v/1e3)
	case a >= 100:
		return fmt.Sprintf("%.0f", v)
	case a >= 1:
		return fmt.Sprintf("%.3g", v)
	}
	return fmt.Sprintf("%.2g", v)
}

type doc struct{ b strings.Builder }

func (d *doc) f(format string, a ...any) { fmt.Fprintf(&d.b, format, a...) }

func (d *doc) frame(title, ylabel string, s scale) {
	d.f(`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", width, height, width, height)
	d.f(`<rect width="100%%" height="100%%" fill="white"/>` + "\n")
	d.f(`<text x="%d" y="22" font-size="15" font-weight="bold">%s</text>`+"\n", left, html.EscapeString(title))
	d.f(`<text transform="translate(16,%d) rotate(-90)" text-anchor="middle">%s</text>`+"\n", (height-bottm+top)/2, html.EscapeString(ylabel))
	for _, t := range s.ticks() {
		y := s.y(t)
		d.f(`<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#ddd"/>`+"\n", left, width-right, y, y)
		d.f(`<text x="%d" y="%.1f" text-anchor="end">%s</text>`+"\n", left-6, y+4, Num(t))
	}
	d.f(`<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="#333"/>`+"\n", left, width-right, height-bottm, height-bottm)
}

// legend lays the series names out left to right, wrapping to a second
// row when the first is full.
func (d *doc) legend(series []string) {
	x, y := left, height-34
	for i, s := range series {
		w := 24 + 7*len(s)
		if x+w > width-right && x > left {
			x, y = left, y+16
		}
		d.f(`<rect x="%d" y="%d" width="10" height="10" fill="%s"/><text x="%d" y="%d">%s</text>`+"\n", x, y, palette[i%len(palette)], x+14, y+9, html.EscapeString(s))
		x += w
	}
}

// SVG renders the chart.
func (c Bars) SVG() string {
	var all []float64
	for _, s := range c.Values {
		all = append(all, s...)
	}
	sc := newScale(all, c.Log)
	var d doc
	d.frame(c.Title, c.YLabel, sc)
	gw := float64(width-left-right) / float64(len(c.Groups))
	bw := gw * 0.8 / float64(len(c.Series))
	for g, name := range c.Groups {
		x0 := float64(left) + gw*float64(g) + gw*0.1
		for s := range c.Series {
			v := c.Values[s][g]
			if v <= 0 {
				continue
			}
			y := sc.y(v)
			d.f(`<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s %s: %s</title></rect>`+"\n",
				x0+bw*float64(s), y, bw-1, float64(height-bottm)-y, palette[s%len(palette)], html.EscapeString(c.Series[s]), html.EscapeString(name), Num(v))
			d.f(`<text x="%.1f" y="%.1f" text-anchor="middle" font-size="9">%s</text>`+"\n", x0+bw*(float64(s)+0.5), y-3, Num(v))
		}
		d.f(`<text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n", x0+gw*0.4, height-bottm+16, html.EscapeString(name))
	}
	d.legend(c.Series)
	d.f("</svg>\n")
	return d.b.String()
}

// Lines is a line chart over shared X values (drawn evenly spaced, labelled
// by XLabels), one line per Series.
type Lines struct {
	Title, YLabel string
	XLabels       []string
	Series        []string
	Values        [][]float64
	Log           bool
}

// SVG renders the chart.
func (c Lines) SVG() string {
	var all []float64
	for _, s := range c.Values {
		all = append(all, s...)
	}
	sc := newScale(all, c.Log)
	var d doc
	d.frame(c.Title, c.YLabel, sc)
	n := len(c.XLabels)
	x := func(i int) float64 {
		if n == 1 {
			return float64(left+width-right) / 2
		}
		return float64(left+30) + float64(width-left-right-60)*float64(i)/float64(n-1)
	}
	for i, l := range c.XLabels {
		d.f(`<text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n", x(i), height-bottm+16, html.EscapeString(l))
	}
	for s, vals := range c.Values {
		var pts []string
		for i, v := range vals {
			if v <= 0 {
				continue
			}
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(i), sc.y(v)))
			d.f(`<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/><text x="%.1f" y="%.1f" font-size="9">%s</text>`+"\n", x(i), sc.y(v), palette[s%len(palette)], x(i)+5, sc.y(v)-5, Num(v))
		}
		d.f(`<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>`+"\n", palette[s%len(palette)], strings.Join(pts, " "))
	}
	d.legend(c.Series)
	d.f("</svg>\n")
	return d.b.String()
}
