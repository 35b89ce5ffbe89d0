package harness

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// number is what Median takes: time.Duration, byte counts, plain numbers.
type number interface {
	~int | ~int32 | ~int64 | ~uint64 | ~float64
}

// MemTarget is the peak RSS every run must stay under (1 GB).
const MemTarget = 1 << 30

// A Run is one timed run of one side of a suite.
type Run struct {
	Wall    time.Duration `json:"wall_ns"`
	MaxRSS  int64         `json:"maxrss_bytes"`   // ru_maxrss: largest single process
	TreeRSS int64         `json:"tree_rss_bytes"` // sampled peak of the whole tree's sum
	// TreeAnon is the sampled peak of the tree's anonymous memory (RSS
	// less file-backed mappings such as seer's spool).
	TreeAnon int64  `json:"tree_anon_bytes"`
	Exit     int    `json:"exit"`
	Signal   string `json:"signal,omitempty"`
	Note     string `json:"note,omitempty"` // what the output said: races, findings, a cut trace
	Err      string `json:"error,omitempty"`
	// Stages is how a seer check run's time divides (SeerStages).
	Stages *Stages `json:"stages,omitempty"`
}

// Peak is the larger of the run's two memory measures.
func (r Run) Peak() int64 { return max(r.MaxRSS, r.TreeRSS) }

// A Side is the runs of one tool on one suite.
type Side struct {
	Tool    string   `json:"tool"` // "go test -race" or "seer check"
	Command []string `json:"command"`
	Env     []string `json:"env,omitempty"` // added to seerbench's own
	Dir     string   `json:"dir"`
	Runs    []Run    `json:"runs"`
}

// PeakAnon is the largest anonymous-memory sample over the side's runs.
func (s Side) PeakAnon() int64 {
	var p int64
	for _, r := range s.Runs {
		p = max(p, r.TreeAnon)
	}
	return p
}

// MedianWall is the median wall time of the side's runs.
func (s Side) MedianWall() time.Duration {
	walls := make([]time.Duration, len(s.Runs))
	for i, r := range s.Runs {
		walls[i] = r.Wall
	}
	return Median(walls)
}

// MedianStages is the median of each part of the side's runs' stages
// (SeerStages), and whether any run has them.
func (s Side) MedianStages() (Stages, bool) {
	var run, conv, an, other []time.Duration
	for _, r := range s.Runs {
		if st := r.Stages; st != nil {
			run, conv = append(run, st.Run), append(conv, st.Convert)
			an, other = append(an, st.Analyse), append(other, st.Other)
		}
	}
	if len(run) == 0 {
		return Stages{}, false
	}
	return Stages{Run: Median(run), Convert: Median(conv), Analyse: Median(an), Other: Median(other)}, true
}

// PeakRSS is the largest memory measure over the side's runs.
func (s Side) PeakRSS() int64 {
	var p int64
	for _, r := range s.Runs {
		p = max(p, r.Peak())
	}
	return p
}

// Exits summarises the runs' exit statuses: "0" when all agree, else each
// in run order ("0,1,0"); a run killed by a signal shows the signal.
func (s Side) Exits() string {
	parts := make([]string, len(s.Runs))
	for i, r := range s.Runs {
		parts[i] = fmt.Sprint(r.Exit)
		if r.Signal != "" {
			parts[i] = r.Signal
		}
	}
	if len(parts) > 0 && !slices.ContainsFunc(parts, func(p string) bool { return p != parts[0] }) {
		return parts[0]
	}
	return strings.Join(parts, ",")
}

// A Result is one suite measured with both tools.
type Result struct {
	Suite  string  `json:"suite"`
	Desc   string  `json:"description"`
	Target float64 `json:"target_ratio"` // seer check wall / go test -race wall must be at most this
	GoTest Side    `json:"go_test_race"`
	Seer   Side    `json:"seer_check"`
	Err    string  `json:"error,omitempty"` // the suite could not be set up or run
}

// Ratio is seer check's median wall time over go test -race's (0 if
// either is missing).
func (r Result) Ratio() float64 {
	g, s := r.GoTest.MedianWall(), r.Seer.MedianWall()
	if g <= 0 || s <= 0 {
		return 0
	}
	return float64(s) / float64(g)
}

// Meets says whether seer check meets the suite's targets: the wall-time
// ratio and MemTarget for both sides' peaks.
func (r Result) Meets() bool {
	ratio := r.Ratio()
	return r.Err == "" && ratio > 0 && ratio <= r.Target &&
		r.Seer.PeakRSS() <= MemTarget && r.GoTest.PeakRSS() <= MemTarget
}

// Median returns the median of xs (the mean of the middle two for an even
// count; 0 for none). xs is not modified.
func Median[T number](xs []T) T {
	var zero T
	if len(xs) == 0 {
		return zero
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// FormatBytes formats n bytes in binary units, three significant digits
// or so: "512 KB", "87.3 MB", "1.21 GB".
func FormatBytes(n int64) string {
	switch {
	case n <= 0:
		return "-"
	case n < 1<<20:
		return fmt.Sprintf("%d KB", (n+512)>>10)
	case n < 1<<30:
		return fmtSig(float64(n)/(1<<20)) + " MB"
	default:
		return fmtSig(float64(n)/(1<<30)) + " GB"
	}
}

// FormatDuration formats d in seconds: "0.84s", "12.3s", "123s".
func FormatDuration(d time.Duration) string {
	if d <= 0 {
		return "-"
	}
	return fmtSig(d.Seconds()) + "s"
}

func fmtSig(x float64) string {
	switch {
	case x < 10:
		return fmt.Sprintf("%.2f", x)
	case x < 100:
		return fmt.Sprintf("%.1f", x)
	default:
		return fmt.Sprintf("%.0f", x)
	}
}

// WriteTable prints results as an aligned table, one suite a line, then
// the notes each run left (races go test reported, seer's findings, cut
// traces, errors).
func WriteTable(w io.Writer, results []Result) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "suite\truns\tgo test -race\tseer check\tratio\ttarget\tRSS go test\tRSS seer\texit go\texit seer\tmeets")
	for _, r := range results {
		ratio := "-"
		if x := r.Ratio(); x > 0 {
			ratio = fmt.Sprintf("%.1fx", x)
		}
		meets := "no"
		if r.Meets() {
			meets = "yes"
		}
		if r.Err != "" {
			meets = "error"
		}
		fmt.Fprintf(tw, "%s\t%d/%d\t%s\t%s\t%s\t≤%gx\t%s\t%s\t%s\t%s\t%s\n",
			r.Suite, len(r.GoTest.Runs), len(r.Seer.Runs),
			FormatDuration(r.GoTest.MedianWall()), FormatDuration(r.Seer.MedianWall()),
			ratio, r.Target,
			FormatBytes(r.GoTest.PeakRSS()), FormatBytes(r.Seer.PeakRSS()),
			orDash(r.GoTest.Exits()), orDash(r.Seer.Exits()), meets)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	header := false
	for _, r := range results {
		st, ok := r.Seer.MedianStages()
		if !ok {
			continue
		}
		if !header {
			fmt.Fprintln(tw, "\nseer check's time\trun\tconversion after run\tanalysis\tother")
			header = true
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.Suite,
			FormatDuration(st.Run), FormatDuration(st.Convert), FormatDuration(st.Analyse), FormatDuration(st.Other))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	var notes []string
	for _, r := range results {
		if r.Err != "" {
			notes = append(notes, fmt.Sprintf("%s: %s", r.Suite, r.Err))
		}
		for _, s := range []Side{r.GoTest, r.Seer} {
			if peak, anon := s.PeakRSS(), s.PeakAnon(); peak > MemTarget && anon > 0 {
				notes = append(notes, fmt.Sprintf("%s, %s: peak RSS %s, of which anonymous at most %s (the rest is file-backed)",
					r.Suite, s.Tool, FormatBytes(peak), FormatBytes(anon)))
			}
			runNotes := make([]string, len(s.Runs))
			for i, run := range s.Runs {
				runNotes[i] = strings.TrimSpace(run.Note + " " + run.Err)
			}
			if len(runNotes) > 0 && !slices.ContainsFunc(runNotes, func(n string) bool { return n != runNotes[0] }) {
				if runNotes[0] != "" {
					notes = append(notes, fmt.Sprintf("%s, %s: %s", r.Suite, s.Tool, runNotes[0]))
				}
				continue
			}
			for i, n := range runNotes {
				if n != "" {
					notes = append(notes, fmt.Sprintf("%s, %s, run %d: %s", r.Suite, s.Tool, i+1, n))
				}
			}
		}
	}
	if len(notes) > 0 {
		fmt.Fprintln(w)
		for _, n := range notes {
			fmt.Fprintln(w, n)
		}
	}
	_, err := fmt.Fprintln(w, "\nwall: median of the runs; RSS: peak over the runs of max(ru_maxrss of the largest process, sampled sum over the process tree)")
	return err
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
