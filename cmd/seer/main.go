// Command seer predicts concurrency bugs in Go tests from one recorded
// run: data races, atomicity violations, deadlocks, goroutine leaks, and
// misuses of channels, WaitGroups and mutexes. See README.md and
// `seer help`.
package main

import (
	"fmt"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"runtime/pprof"
	"time"
)

func main() {
	if os.Getenv("GOGC") == "" {
		// Most of what seer holds is a few large arrays without
		// pointers (the event table, per-event indices), which a
		// collection does not scan, so collecting more often costs
		// less than usual, while GOGC's default goal lets the heap reach
		// twice the live data (as it did converting a capped run). At 50
		// the goal is one and a half times. (25 gave less peak memory for
		// more CPU, and 50 sits between: bench/RESULTS.md, "Figures once
		// in comments".) A GOGC the user sets is kept.
		debug.SetGCPercent(50)
	}
	os.Exit(profiled(func() int { return run(os.Args[1:]) }))
}

// profiled runs f, writing a CPU profile of it to $SEER_CPUPROFILE, a
// heap profile at its end to $SEER_MEMPROFILE, and one at its largest
// live heap to $SEER_PEAKPROFILE when they are set: the profiles behind
// the cost work (bench/README.md).
func profiled(f func() int) int {
	if path := os.Getenv("SEER_PEAKPROFILE"); path != "" {
		defer peakProfile(path)()
	}
	if path := os.Getenv("SEER_CPUPROFILE"); path != "" {
		out, err := os.Create(path)
		if err != nil {
			fmt.Fprintf(os.Stderr, "seer: SEER_CPUPROFILE: %v\n", err)
			return 2
		}
		defer out.Close()
		if err := pprof.StartCPUProfile(out); err != nil {
			fmt.Fprintf(os.Stderr, "seer: SEER_CPUPROFILE: %v\n", err)
			return 2
		}
		defer pprof.StopCPUProfile()
	}
	if path := os.Getenv("SEER_MEMPROFILE"); path != "" {
		defer func() {
			if err := writeProfile(path, "allocs"); err != nil {
				fmt.Fprintf(os.Stderr, "seer: SEER_MEMPROFILE: %v\n", err)
			}
		}()
	}
	return f()
}

// writeProfile writes the runtime/pprof profile of that name to path.
func writeProfile(path, name string) error {
	out, err := os.Create(path)
	if err != nil {
		return err
	}
	err = pprof.Lookup(name).WriteTo(out, 0)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}

// peakProfile writes to path, each time a collection ends with a live
// heap 1% larger than any before it, the heap profile, whose in-use figures are
// those of that collection: what was live at the peak, and who made it.
// The returned function stops the watch.
func peakProfile(path string) (stop func()) {
	done, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		var peak uint64
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			metrics.Read(sample)
			if live := sample[0].Value.Uint64(); live > peak+peak/100 {
				peak = live
				if err := writeProfile(path, "heap"); err != nil {
					fmt.Fprintf(os.Stderr, "seer: SEER_PEAKPROFILE: %v\n", err)
					return
				}
			}
		}
	}()
	return func() { close(done); <-stopped }
}

// run executes one seer command line and returns the exit status.
func run(args []string) int {
	if len(args) == 0 {
		usage(os.Stderr)
		return 2
	}
	name := args[0]
	if name == "help" || name == "-h" || name == "-help" || name == "--help" {
		if len(args) > 1 {
			if c := lookup(args[1]); c != nil {
				c.usage(os.Stdout)
				return 0
			}
		}
		usage(os.Stdout)
		return 0
	}
	c := lookup(name)
	if c == nil {
		fmt.Fprintf(os.Stderr, "seer: unknown command %q\nRun 'seer help' for usage.\n", name)
		return 2
	}
	return c.run(c, args[1:])
}

func usage(w *os.File) {
	fmt.Fprintf(w, "seer predicts concurrency bugs (data races, atomicity violations, deadlocks,\nleaks, misuse of channels, WaitGroups and mutexes) in Go tests from one\nrecorded run.\n\nUsage:\n\n\tseer <command> [arguments]\n\nThe commands are:\n\n")
	for _, c := range commands {
		fmt.Fprintf(w, "\t%-8s %s\n", c.name, c.short)
	}
	fmt.Fprintf(w, "\nUse \"seer help <command>\" for more information about a command.\n")
}
