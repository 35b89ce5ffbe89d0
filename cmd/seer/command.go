// This file implements the command table, after cmd/go's base.Command: a
// command is a value with its usage, flags and run function.

package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

type command struct {
	name      string
	usageLine string
	short     string
	long      string
	flags     *flag.FlagSet
	run       func(c *command, args []string) int
}

var commands []*command

func register(c *command) *command {
	// parse prints the usage itself, once: to stdout when asked for
	// (-h), and a short form to stderr on a bad flag. flag's own call
	// of Usage, made before Parse returns either error, prints nothing.
	c.flags.Usage = func() {}
	commands = append(commands, c)
	return c
}

func lookup(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

func (c *command) usage(w io.Writer) {
	fmt.Fprintf(w, "usage: seer %s\n\n%s\n", c.usageLine, strings.TrimSpace(c.long))
	var hasFlags bool
	c.flags.VisitAll(func(*flag.Flag) { hasFlags = true })
	if hasFlags {
		fmt.Fprintf(w, "\nFlags:\n")
		c.flags.SetOutput(w)
		c.flags.PrintDefaults()
	}
}

// parse parses args, returning false (after printing usage) on error.
func (c *command) parse(args []string) bool {
	c.flags.SetOutput(io.Discard)
	if err := c.flags.Parse(args); err != nil {
		if err == flag.ErrHelp {
			c.usage(os.Stdout)
		} else {
			fmt.Fprintf(os.Stderr, "seer %s: %v\n", c.name, err)
			fmt.Fprintf(os.Stderr, "usage: seer %s\nRun 'seer help %s' for details.\n", c.usageLine, c.name)
		}
		return false
	}
	return true
}

// errorf prints a seer error for command c.
func errorf(c *command, format string, args ...any) {
	fmt.Fprintf(os.Stderr, "seer %s: %s\n", c.name, fmt.Sprintf(format, args...))
}
