// This file implements the report's side of "why no race here?" (the
// driver finds the pairs: predict/check's whynorace.go): the pairs of
// conflicting accesses that seer reports no race between, with what orders
// them, and the sentences that tell it on the editor's hover.

package report

import (
	"fmt"
	"strings"
)

// An Ordered is a pair of conflicting accesses that seer reports no race
// between, with the reason it can give.
type Ordered struct {
	Test     string `json:"test,omitempty"`
	Package  string `json:"package,omitempty"`
	Variable string `json:"variable,omitempty"`
	// Accesses are the two accesses, in the recorded run's order.
	Accesses [2]Access `json:"accesses"`
	// Lock, when set, is a lock both accesses hold (as the source names
	// it), taken at Held[0] and Held[1].
	Lock string `json:"lock,omitempty"`
	Held []Step `json:"held,omitempty"`
	// Chain, when Lock is empty, orders Accesses[0] before Accesses[1]:
	// each link's From happens before its To by Rule.
	Chain []Link `json:"chain,omitempty"`
}

// The rules of a Link: predict.OrderRule's names, which the driver
// copies (a test in predict/check holds them equal).
const (
	RuleProgramOrder = "program order"
	RuleGo           = "go"
	RuleJoin         = "join"
	RuleSync         = "sync"
	RuleReadFrom     = "read-from"
	RuleLock         = "lock"
)

// A Link is one must-happen-before edge of an ordering chain.
type Link struct {
	// Rule is "program order", "go", "join", "sync", "read-from" or
	// "lock" (predict.OrderRule).
	Rule     string `json:"rule"`
	From, To Step
	// Because, for "lock", is the chain from an event of From's critical
	// section to one of To's that forces their order.
	Because []Link `json:"because,omitempty"`
}

// WhyNoRaceSentences says why o's accesses cannot race, one sentence a
// rule: the common lock, or each link of the chain (program order steps
// are told as "then"); or, when seer has neither, that it does not know
// a single reason. rel shortens file names.
func WhyNoRaceSentences(o *Ordered, rel func(string) string) []string {
	at := positioner(rel)
	a, b := &o.Accesses[0], &o.Accesses[1]
	if o.Lock != "" && len(o.Held) == 2 {
		h0, h1 := &o.Held[0], &o.Held[1]
		return []string{fmt.Sprintf("both accesses hold %s (goroutine %d locked it at %s, goroutine %d at %s), and two critical sections of one lock cannot overlap",
			o.Lock, h0.Goroutine, at(h0.File, h0.Line), h1.Goroutine, at(h1.File, h1.Line))}
	}
	if len(o.Chain) == 0 {
		return []string{fmt.Sprintf("seer found no schedule in which goroutine %d's %s at %s and goroutine %d's %s at %s race, but cannot name the rules that order them: no lock is held at both, and it found no chain of synchronisation, read values and critical sections from one to the other (it may be that none exists, and the analysis did not try this pair)",
			a.Goroutine, a.Op, at(a.File, a.Line), b.Goroutine, b.Op, at(b.File, b.Line))}
	}
	return chainSentences(o.Chain, at)
}

// chainSentences words a chain, one sentence a link; at gives a
// position, shortened against the one before.
func chainSentences(chain []Link, at func(string, int) string) []string {
	var out []string
	for k, l := range chain {
		from, to := &chain[k].From, &chain[k].To
		if l.Rule == RuleProgramOrder {
			if k == 0 {
				out = append(out, fmt.Sprintf("goroutine %d %s at %s, then %s at %s", from.Goroutine, StepText(from), at(from.File, from.Line), StepText(to), at(to.File, to.Line)))
			} else {
				out = append(out, fmt.Sprintf("goroutine %d then %s at %s", to.Goroutine, StepText(to), at(to.File, to.Line)))
			}
			continue
		}
		// The earlier end is told first, so that a line number after
		// the first of a file reads in order.
		fromAt := at(from.File, from.Line)
		toAt := ""
		if to.File != "" {
			toAt = at(to.File, to.Line)
		}
		var s string
		switch l.Rule {
		case RuleGo:
			s = fmt.Sprintf("the go statement at %s starts goroutine %d", fromAt, to.Goroutine)
			if to.File != "" {
				s += fmt.Sprintf(", whose first step is at %s", toAt)
			}
		case RuleJoin:
			s = fmt.Sprintf("goroutine %d %s only after goroutine %d ends at %s", to.Goroutine, StepText(to), from.Goroutine, fromAt)
		case RuleReadFrom:
			s = fmt.Sprintf("goroutine %d %s at %s, the value goroutine %d wrote at %s, so that write comes first in every schedule that keeps what the read saw", to.Goroutine, StepText(to), toAt, from.Goroutine, fromAt)
		case RuleLock:
			if toAt != "" {
				toAt = " at " + toAt
			}
			s = fmt.Sprintf("goroutine %d %s%s only after goroutine %d %s at %s: the two critical sections cannot overlap, and they cannot run the other way round, because %s",
				to.Goroutine, StepText(to), toAt, from.Goroutine, StepText(from), fromAt, strings.Join(chainSentences(l.Because, at), ", and "))
		default:
			if toAt != "" {
				toAt = " at " + toAt
			}
			s = fmt.Sprintf("goroutine %d %s%s after goroutine %d %s at %s (%s)", to.Goroutine, StepText(to), toAt, from.Goroutine, StepText(from), fromAt, syncReason(from.Op, to.Op))
		}
		out = append(out, s)
	}
	return out
}

// syncReason says why a release orders an acquire, by their operations.
func syncReason(from, to string) string {
	switch {
	case from == "send" && to == "recv":
		return "a receive comes after the send it takes"
	case from == "close" && to == "recv":
		return "a receive that sees a close comes after it"
	case from == "recv" && to == "send":
		return "on an unbuffered or full channel, a send completes after a receive makes room"
	case (from == "done" || from == "add") && to == "wait":
		return "Wait returns only after the counter reaches zero"
	case from == "once-done" && to == "once-check":
		return "Do returns only after the function it ran"
	case (from == "atomic-store" || from == "atomic-rmw") && (to == "atomic-load" || to == "atomic-rmw"):
		return "an atomic load comes after the store it reads"
	case from == "signal" || from == "broadcast":
		return "a woken Wait comes after the Signal or Broadcast"
	case from == "unlock" || from == "lock" || from == "runlock" || from == "rlock":
		return "a mutex unlocked by another goroutine than the one that locked it orders its operations as observed"
	}
	return "synchronisation as the race detector defines it"
}
