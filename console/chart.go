package console

import (
	"fmt"
	"time"
)

// chart is a stacked bar chart drawn as SVG by the chart template: the
// geometry is computed here, in viewBox units, and every text is escaped
// by html/template. A table of the same numbers (by day) goes with it,
// for screen readers and for anyone who prefers to read.
type chart struct {
	ID, Title, Desc string
	Width, Height   float64
	// Plot is the drawing area inside the axes.
	PlotX, PlotY, PlotW, PlotH float64
	Bars                       []bar
	Series                     []legendEntry
	XLabels                    []axisLabel
	YTicks                     []axisLabel
	Empty                      bool
	// Table has a row per day and a column per series.
	TableHead []string
	TableRows []tableRow
}

type bar struct {
	X, Y, W, H float64
	Class      string
	Title      string
}

type legendEntry struct {
	Label, Class string
	Total        int
}

type axisLabel struct {
	X, Y float64
	Text string
}

type tableRow struct {
	Label  string
	Values []int
	Total  int
}

// seriesDef is one stacked series: what the counts call it, its name and
// its colour class.
type seriesDef struct {
	Key, Label, Class string
}

// chartSpec is what a chart shows: n buckets of step from start, counts
// by bucket (0: the oldest) and series key.
type chartSpec struct {
	ID, Title, Desc string
	Series          []seriesDef
	Start           time.Time
	Step            time.Duration
	N               int
	Counts          map[int]map[string]int
	// LabelDays is the days between two x-axis labels, each at a
	// midnight (UTC); LabelFormat their time layout.
	LabelDays   int
	LabelFormat string
}

const (
	chartW, chartH               = 760.0, 240.0
	marginL, marginR             = 44.0, 8.0
	marginT, marginB             = 10.0, 26.0
	chartTableLayout, dayLabelFm = "2006-01-02", "Jan 2"
)

func buildChart(s chartSpec) chart {
	c := chart{ID: s.ID, Title: s.Title, Desc: s.Desc, Width: chartW, Height: chartH,
		PlotX: marginL, PlotY: marginT, PlotW: chartW - marginL - marginR, PlotH: chartH - marginT - marginB}
	totals := make([]int, s.N)
	peak := 0
	for i := range s.N {
		for _, sd := range s.Series {
			totals[i] += s.Counts[i][sd.Key]
		}
		peak = max(peak, totals[i])
	}
	top := niceCeil(peak)
	bw := c.PlotW / float64(s.N)
	gap := 0.0
	if bw > 4 {
		gap = bw * 0.15
	}
	midnights := 0
	for i := range s.N {
		y := c.PlotY + c.PlotH
		at := s.Start.Add(time.Duration(i) * s.Step)
		for _, sd := range s.Series {
			n := s.Counts[i][sd.Key]
			if n == 0 {
				continue
			}
			h := c.PlotH * float64(n) / float64(top)
			y -= h
			c.Bars = append(c.Bars, bar{X: c.PlotX + float64(i)*bw + gap/2, Y: y, W: bw - gap, H: h, Class: sd.Class,
				Title: fmt.Sprintf("%s: %d %s", at.UTC().Format("Jan 2 15:04"), n, sd.Label)})
		}
		if u := at.UTC(); s.LabelDays > 0 && u.Hour() == 0 && u.Minute() == 0 {
			if midnights%s.LabelDays == 0 {
				c.XLabels = append(c.XLabels, axisLabel{X: c.PlotX + float64(i)*bw, Y: c.PlotY + c.PlotH + 16, Text: u.Format(s.LabelFormat)})
			}
			midnights++
		}
	}
	for _, v := range []int{0, top / 2, top} {
		c.YTicks = append(c.YTicks, axisLabel{X: c.PlotX - 6, Y: c.PlotY + c.PlotH - c.PlotH*float64(v)/float64(top), Text: fmt.Sprint(v)})
	}
	// The table sums the buckets of each day.
	byDay := map[string]int{}
	for i := range s.N {
		day := s.Start.Add(time.Duration(i) * s.Step).UTC().Format(chartTableLayout)
		idx, ok := byDay[day]
		if !ok {
			idx = len(c.TableRows)
			byDay[day] = idx
			c.TableRows = append(c.TableRows, tableRow{Label: day, Values: make([]int, len(s.Series))})
		}
		for j, sd := range s.Series {
			c.TableRows[idx].Values[j] += s.Counts[i][sd.Key]
			c.TableRows[idx].Total += s.Counts[i][sd.Key]
		}
	}
	for j, sd := range s.Series {
		total := 0
		for _, row := range c.TableRows {
			total += row.Values[j]
		}
		c.Series = append(c.Series, legendEntry{Label: sd.Label, Class: sd.Class, Total: total})
		c.TableHead = append(c.TableHead, sd.Label)
	}
	c.Empty = peak == 0
	return c
}

// niceCeil is the smallest of 1, 2, 5 × 10^k at or above n (at least 2,
// so the middle tick is a whole number).
func niceCeil(n int) int {
	if n <= 2 {
		return 2
	}
	for p := 1; ; p *= 10 {
		for _, m := range []int{1, 2, 5} {
			if m*p >= n {
				return m * p
			}
		}
	}
}
