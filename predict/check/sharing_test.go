// This file tests packagesSharing (packages.go): how many analyses may
// share the memory limit while packages are left to check.

package check

import (
	"sync/atomic"
	"testing"
)

func TestPackagesSharing(t *testing.T) {
	for _, tc := range []struct {
		procs int
		left  int64
		want  int
	}{
		{1, 5, 1},
		{2, 5, 2}, // two checked at once, more queued
		{2, 2, 2},
		{2, 1, 1}, // the last package: the whole limit
		{4, 3, 3},
		{2, 0, 1},
	} {
		var left atomic.Int64
		left.Store(tc.left)
		if got := packagesSharing(tc.procs, &left)(); got != tc.want {
			t.Errorf("procs %d, %d left: %d analyses share the limit, want %d", tc.procs, tc.left, got, tc.want)
		}
	}
	// It reads the count when asked, not when made.
	var left atomic.Int64
	left.Store(3)
	f := packagesSharing(2, &left)
	left.Add(-2)
	if got := f(); got != 1 {
		t.Errorf("after two packages ended: %d, want 1", got)
	}
}
