// This file tests which packages share a load of their source
// (sourcegroup.go).

package check

import (
	"strings"
	"testing"

	"github.com/seer-tools/seer/static"
)

func TestShareSource(t *testing.T) {
	for _, tc := range []struct {
		name, todo string
		static     bool // Options.Static set: the caller's cache loads each
		want       string
	}{
		{"one", "a", false, "a"},
		{"groups of sourceGroup", "a b c d e f g", false, "a b c d | e f g"},
		{"a package built alone splits them", "a b u c d m e", false, "a b | u | c d | m | e"},
		{"a last one alone", "a b c d e", false, "a b c d | e"},
		{"the caller's cache", "a b c", true, "a | b | c"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := Options{}
			if tc.static {
				opts.Static = &static.Cache{}
			}
			todo := testPackages(t, tc.todo)
			shareSource(opts, todo)
			var groups []string
			for i, p := range todo {
				switch {
				case i == 0:
				case p.shared != nil && p.shared == todo[i-1].shared:
					groups[len(groups)-1] += " " + p.lp.Path
					continue
				}
				groups = append(groups, p.lp.Path)
				if p.shared != nil && p.shared.paths[0] != p.lp.Path {
					t.Errorf("%s's group starts with %s", p.lp.Path, p.shared.paths[0])
				}
			}
			if got := strings.Join(groups, " | "); got != tc.want {
				t.Errorf("groups %q, want %q", got, tc.want)
			}
			for _, p := range todo {
				if p.shared != nil && len(p.shared.paths) < 2 {
					t.Errorf("%s shares a load with no other package", p.lp.Path)
				}
			}
		})
	}
}
