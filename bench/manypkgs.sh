#!/bin/sh
# manypkgs.sh DIR [N]: writes a module of N packages (default 50) into DIR,
# each with a test that runs a few goroutines over a mutex-guarded counter
# (every tenth package also has a racy field), for timing seer check ./...
# over many packages: -p against -p 1, and a second run answered from the
# cache (bench/RESULTS.md, "Many packages").
set -eu
dir=${1:?usage: manypkgs.sh DIR [N]}
n=${2:-50}
mkdir -p "$dir"
printf 'module example.com/many\n\ngo 1.26\n' >"$dir/go.mod"
i=0
while [ "$i" -lt "$n" ]; do
	p=$(printf 'p%02d' "$i")
	mkdir -p "$dir/$p"
	cat >"$dir/$p/$p.go" <<GO
package $p

import "sync"

// Counter is guarded by mu; hits is not, in the racy packages.
type Counter struct {
	mu   sync.Mutex
	n    int
	hits int
}

func (c *Counter) Add(k int) {
	c.mu.Lock()
	c.n += k
	c.mu.Unlock()
}

func (c *Counter) Hit() { c.hits++ }
GO
	racy=""
	if [ $((i % 10)) -eq 9 ]; then
		racy="c.Hit()"
	fi
	cat >"$dir/$p/${p}_test.go" <<GO
package $p

import (
	"sync"
	"testing"
)

func TestAdd(t *testing.T) {
	var c Counter
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := 0; k < 200; k++ {
				c.Add(1)
			}
			$racy
		}()
	}
	wg.Wait()
	if c.n != 800 {
		t.Fatal(c.n)
	}
}
GO
	i=$((i + 1))
done
