// This file tests that PrepareToolchainIn gives the toolchain Build
// records with: the same shadow GOROOT and build cache.

package record

import (
	"context"
	"os"
	"testing"
)

func TestPrepareToolchainInIsBuilds(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a test binary")
	}
	dir := testModule(t, "example.com/tct", map[string]string{"a_test.go": "package tct\n\nimport \"testing\"\n\nfunc TestA(t *testing.T) {}\n"})
	b, err := Build(context.Background(), RecordOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	tc, err := PrepareToolchainIn(context.Background(), "", dir, os.Environ())
	if err != nil {
		t.Fatal(err)
	}
	if tc.Shadow != b.Shadow() || tc.Cache != b.tc.Cache {
		t.Errorf("PrepareToolchainIn: shadow %s, cache %s; Build's: %s, %s", tc.Shadow, tc.Cache, b.Shadow(), b.tc.Cache)
	}
}
