// This file names the source lines of a run's events for exploring
// (explore_plan.go) once per call stack rather than once per event.

package check

import "github.com/seer-tools/seer/trace"

// siteMemo is runSite over one trace, remembered by call stack: a run's
// synchronisation events come from a few stacks, and finding the user's
// frame of a stack and formatting it cost more than the rest of
// coverage put together (300,000 locks of one test: bench/RESULTS.md).
type siteMemo struct {
	t     *trace.Trace
	sites map[trace.StackID]string
}

func newSiteMemo(t *trace.Trace) *siteMemo {
	return &siteMemo{t: t, sites: map[trace.StackID]string{}}
}

// at is runSite(t, i).
func (m *siteMemo) at(i int) string {
	id := m.t.Events[i].Stack
	s, ok := m.sites[id]
	if !ok {
		s = runSite(m.t, i)
		m.sites[id] = s
	}
	return s
}
