// This file implements `seer history check`: decide whether a recorded
// key-value history is consistent under SC, TSO and the causal criteria
// (package predict/consistency).

package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/seer-tools/seer/predict/consistency"
)

var (
	historyFlags   = flag.NewFlagSet("history", flag.ContinueOnError)
	historyModel   = historyFlags.String("model", "all", "check under `model`: sc, tso, cc, ccv, cm, ccm, wccm, a comma-separated list, or all")
	historyJSON    = historyFlags.Bool("json", false, "print the results as JSON")
	historyExplain = historyFlags.Bool("explain", false, "name a minimal set of rules that contradict")
	historyTimeout = historyFlags.Duration("timeout", consistency.DefaultTimeout, "bound the search and each SAT solve (SC, TSO) by `d`; a model left undecided is reported as such (0: no bound)")
)

var _ = register(&command{
	name:      "history",
	usageLine: "history check [-model sc|tso|cc|ccv|cm|ccm|wccm|all] [-json] [-explain] [-timeout d] FILE",
	short:     "check a key-value history against consistency models",
	long: `
History check reads a history of reads and writes, one line per process,

	# store buffering
	P0: w(x,1) r(y,0)
	P1: w(y,1) r(x,0)

and decides whether it is consistent under each model asked for:

	sc    sequential consistency
	tso   total store order (x86)
	cc    weak causal consistency
	ccv   causal convergence
	cm    causal memory
	ccm   convergent causal memory
	wccm  weak convergent causal memory (TSO's polynomial pre-check)

w(key,value) writes, r(key,value) reads; every key is 0 before any write,
and a value may be written to a key at most once (0 never), so that each
read names the write it read from. An operation may carry its call and
return times as w(x,1)@3-5; no model here uses them. Blank lines and #
comments are ignored. FILE "-" is standard input.

For a violation it prints the cycle of orderings that cannot all hold,
each step with its reason (po: program order; wr: reads from; rw: must
read before the overwrite; hb, cf, pww: orders the causal models derive).
With -explain it also names a minimal set of rules (a process's program
order, a read's value, a key's initial value, the model's axiom) that
contradict: dropping any one of them makes the history consistent.

The algorithms are those of Zennou et al., "Gradual Consistency
Checking" (CAV 2019): the causal criteria in polynomial time, SC and TSO
by rejecting early with them and then extending the partial store order,
by a search for the execution itself and, if that gives up, a SAT
solver. See docs/history.md.

SC and TSO are NP-complete: the search and each SAT solve are bounded by
-timeout (one minute by default; 0 removes the bound). A model whose solve
runs out is reported as undecided, neither consistent nor not.

The exit status is 0 when the history is consistent under every model
asked for, 1 when it is not consistent under one of them, 3 when none is
violated but one is undecided, and 2 for bad input or usage.`,
	flags: historyFlags,
	run:   runHistory,
})

func runHistory(c *command, args []string) int {
	if len(args) == 0 || args[0] != "check" {
		if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
			errorf(c, "unknown subcommand %q (want check)", args[0])
		} else {
			errorf(c, "missing subcommand")
		}
		fmt.Fprintf(os.Stderr, "usage: seer %s\nRun 'seer help history' for details.\n", c.usageLine)
		return 2
	}
	if !c.parse(args[1:]) {
		return 2
	}
	if c.flags.NArg() != 1 {
		errorf(c, "want one FILE, have %d arguments", c.flags.NArg())
		return 2
	}
	models, err := parseModels(*historyModel)
	if err != nil {
		errorf(c, "%v", err)
		return 2
	}
	name := c.flags.Arg(0)
	var r io.Reader = os.Stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			errorf(c, "%v", err)
			return 2
		}
		defer f.Close()
		r = f
	} else {
		name = "<stdin>"
	}
	h, err := consistency.Parse(name, r)
	if err != nil {
		var ie *consistency.InputError
		if errors.As(err, &ie) {
			fmt.Fprintf(os.Stderr, "%v\n", err)
		} else {
			errorf(c, "%v", err)
		}
		return 2
	}
	var results []*consistency.Result
	opts := consistency.Options{Timeout: *historyTimeout}
	if opts.Timeout == 0 {
		opts.Timeout = -1 // the flag's 0 is "no bound"
	}
	for _, m := range models {
		check := consistency.CheckContext
		if *historyExplain {
			check = consistency.ExplainContext
		}
		res, err := check(context.Background(), h, m, opts)
		if err != nil {
			errorf(c, "%v", err)
			return 2
		}
		results = append(results, res)
	}
	return printHistory(os.Stdout, name, results, *historyJSON)
}

// parseModels parses -model.
func parseModels(s string) ([]consistency.Model, error) {
	if s == "all" {
		return []consistency.Model{consistency.SC, consistency.TSO, consistency.CC, consistency.CCv, consistency.CM, consistency.CCM, consistency.WCCM}, nil
	}
	var ms []consistency.Model
	for _, f := range strings.Split(s, ",") {
		m, ok := consistency.ParseModel(strings.TrimSpace(f))
		if !ok {
			return nil, fmt.Errorf("unknown model %q (want sc, tso, cc, ccv, cm, ccm, wccm or all)", f)
		}
		ms = append(ms, m)
	}
	return ms, nil
}

// printHistory prints the results and returns the exit status.
func printHistory(w io.Writer, name string, results []*consistency.Result, asJSON bool) int {
	status := 0
	for _, res := range results {
		if res.Undecided && status == 0 {
			status = 3
		}
	}
	for _, res := range results {
		if !res.Consistent && !res.Undecided {
			status = 1 // a violation is an answer; undecided ones are not
		}
	}
	if asJSON {
		type jsonResult struct {
			File string
			*consistency.Result
		}
		out := make([]jsonResult, len(results))
		for i, r := range results {
			out[i] = jsonResult{name, r}
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.Encode(out)
		return status
	}
	for _, res := range results {
		if res.Consistent {
			fmt.Fprintf(w, "%s: %s: consistent\n", name, res.Model)
			continue
		}
		if res.Undecided {
			fmt.Fprintf(w, "%s: %s: undecided\n\tthe search and the SAT solver ran out of -timeout completing the store order (%d of %d pairs of writes left open)\n", name, res.Model, res.Unordered, res.Pairs)
			continue
		}
		v := res.Violation
		fmt.Fprintf(w, "%s: %s: not consistent", name, res.Model)
		if v.Model != res.Model {
			fmt.Fprintf(w, " (already not %s)", v.Model)
		}
		fmt.Fprintf(w, "\n\t%s\n", v.Msg)
		if len(v.Cycle) > 0 {
			fmt.Fprintf(w, "\tcycle:\n")
			for _, s := range v.Cycle {
				fmt.Fprintf(w, "\t\t%s\n", s)
			}
		}
		if len(v.Rules) > 0 && v.NotMinimal {
			fmt.Fprintf(w, "\tthese rules contradict (some may not be needed: deciding it ran out of -timeout):\n")
			for _, r := range v.Rules {
				fmt.Fprintf(w, "\t\t%s\n", r)
			}
		} else if len(v.Rules) > 0 {
			fmt.Fprintf(w, "\tthese rules contradict (drop any one and the history is %s):\n", res.Model)
			for _, r := range v.Rules {
				fmt.Fprintf(w, "\t\t%s\n", r)
			}
		}
	}
	return status
}
