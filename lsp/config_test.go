// This file implements the tests of the configuration parser.

package lsp

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestParseConfig(t *testing.T) {
	decode := func(s string) any {
		var v any
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	c, problems := parseConfig(DefaultConfig(), decode(`{"seer": {"atomicity": false, "timeout": "90s", "runOnSave": true,
		"buildFlags": ["-tags=a"], "env": ["A=1", "B=2"], "explore": 20}}`))
	if c.Atomicity || c.Timeout != 90*time.Second || !c.RunOnSave || strings.Join(c.BuildFlags, ",") != "-tags=a" ||
		strings.Join(c.Env, ",") != "A=1,B=2" || c.Explore != 20 || len(problems) != 0 {
		t.Errorf("got %+v %v", c, problems)
	}
	c, _ = parseConfig(DefaultConfig(), decode(`{"timeout": 2.5, "env": {"Z": "1", "A": "2"}, "atomicity": null}`))
	if c.Timeout != 2500*time.Millisecond || strings.Join(c.Env, ",") != "A=2,Z=1" || !c.Atomicity {
		t.Errorf("got %+v", c)
	}
	c, problems = parseConfig(DefaultConfig(), decode(`{"timeout": "soon", "atomicity": "yes", "env": ["NOEQUALS"], "bogus": 1, "buildFlags": [1], "explore": 2.5}`))
	if c.Timeout != DefaultConfig().Timeout || !c.Atomicity || c.Explore != 0 || len(problems) != 6 {
		t.Errorf("bad settings: got %+v %q", c, problems)
	}
	if c, problems := parseConfig(DefaultConfig(), nil); c.Timeout != DefaultConfig().Timeout || problems != nil {
		t.Errorf("nil settings: %+v %v", c, problems)
	}
}
