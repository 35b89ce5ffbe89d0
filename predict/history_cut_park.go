// This file implements parking the events past a cut history beside the
// prefix's analysis (analyzePrefix): Trace.Park writes the tail to a
// file and gives its pages back, mostly waiting on I/O (bench/RESULTS.md,
// "stress-chan-3m: the memory beside the CTP, the tail parked beside the
// prefix"), and the prefix's analysis reads none of the tail, so it need
// not wait for it.
// The prefix is taken first (Trace.Prefix copies the trace's header, its
// tables shortened), since Park shortens the whole trace's own tables;
// the prefix's analysis never reads the whole trace's header, and the
// pages Park writes and gives back lie wholly past the prefix's last
// event. The memory Park gives back is given back a little later than
// when the prefix waited for it: the prefix's pre-passes, which start
// beside it, are the small part of its analysis.

package predict

import "github.com/seer-tools/seer/trace"

// parkBeside starts parking t's events from at on (Trace.Park) on a
// goroutine of its own; the returned wait returns Park's answer once it
// is done. The caller must not read t's own tables until wait returns,
// nor any event from at on until the answer is restored.
func parkBeside(t *trace.Trace, at int) (wait func() (*trace.Parked, error)) {
	var (
		p   *trace.Parked
		err error
	)
	done := goroutine(func() { p, err = t.Park(at) })
	return func() (*trace.Parked, error) {
		done()
		return p, err
	}
}
