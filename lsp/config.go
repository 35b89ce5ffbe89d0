// This file implements the server's configuration: the "seer" section
// that the client returns for workspace/configuration, also accepted in
// initializationOptions and in didChangeConfiguration's settings.

package lsp

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// Config is the "seer" configuration section of one workspace folder.
//
//	{
//	  "atomicity": true,       // also predict atomicity violations
//	  "timeout": "5m",         // stop a recorded test after this long ("30s", or seconds)
//	  "runOnSave": false,      // re-run predictions when a file of their package is saved
//	  "buildFlags": ["-tags=integration"],
//	  "env": {"GOFLAGS": "-mod=mod"},  // or ["GOFLAGS=-mod=mod"]
//	  "explore": 0             // steered runs after the first (seer check -explore)
//	}
type Config struct {
	Atomicity  bool
	Timeout    time.Duration
	RunOnSave  bool
	BuildFlags []string
	Env        []string // KEY=value
	Explore    int      // check.Options.Explore
}

// DefaultConfig is the configuration before the client says otherwise.
func DefaultConfig() Config {
	return Config{Atomicity: true, Timeout: 5 * time.Minute}
}

// parseConfig applies the settings in v (decoded JSON) to base. Settings
// it does not understand are reported and left out; the rest still
// apply. v may be the section itself or an object holding it under
// "seer".
func parseConfig(base Config, v any) (Config, []string) {
	m, ok := v.(map[string]any)
	if !ok {
		if v == nil {
			return base, nil
		}
		return base, []string{fmt.Sprintf("settings are a %T, want an object", v)}
	}
	if inner, ok := m["seer"].(map[string]any); ok {
		m = inner
	}
	c := base
	var problems []string
	bad := func(key string, val any, want string) {
		problems = append(problems, fmt.Sprintf("seer.%s: %v is not %s", key, val, want))
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, key := range keys {
		val := m[key]
		if val == nil {
			continue // unset: keep the default
		}
		switch key {
		case "atomicity", "runOnSave":
			b, ok := val.(bool)
			if !ok {
				bad(key, val, "a boolean")
				continue
			}
			if key == "atomicity" {
				c.Atomicity = b
			} else {
				c.RunOnSave = b
			}
		case "timeout":
			d, ok := parseTimeout(val)
			if !ok {
				bad(key, val, `a positive duration ("90s", "5m") or number of seconds`)
				continue
			}
			c.Timeout = d
		case "buildFlags":
			list, ok := stringList(val)
			if !ok {
				bad(key, val, "a list of strings")
				continue
			}
			c.BuildFlags = list
		case "explore":
			n, ok := val.(float64)
			if !ok || n < 0 || n != float64(int(n)) {
				bad(key, val, "a number of runs, 0 or more")
				continue
			}
			c.Explore = int(n)
		case "env":
			env, ok := envList(val)
			if !ok {
				bad(key, val, `an object of strings or a list of "KEY=value"`)
				continue
			}
			c.Env = env
		default:
			problems = append(problems, fmt.Sprintf("seer.%s: unknown setting", key))
		}
	}
	return c, problems
}

func parseTimeout(v any) (time.Duration, bool) {
	switch v := v.(type) {
	case float64:
		if v > 0 {
			return time.Duration(v * float64(time.Second)), true
		}
	case string:
		d, err := time.ParseDuration(strings.TrimSpace(v))
		if err == nil && d > 0 {
			return d, true
		}
	}
	return 0, false
}

func stringList(v any) ([]string, bool) {
	items, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := make([]string, 0, len(items))
	for _, it := range items {
		s, ok := it.(string)
		if !ok {
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

func envList(v any) ([]string, bool) {
	if m, ok := v.(map[string]any); ok {
		out := make([]string, 0, len(m))
		for k, val := range m {
			s, ok := val.(string)
			if !ok {
				return nil, false
			}
			out = append(out, k+"="+s)
		}
		sort.Strings(out)
		return out, true
	}
	list, ok := stringList(v)
	if !ok {
		return nil, false
	}
	for _, kv := range list {
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
			return nil, false
		}
	}
	return list, true
}
