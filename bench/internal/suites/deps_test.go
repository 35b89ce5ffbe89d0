package suites

// The library suites are the test suites of these modules, run from the
// module cache. Importing them here keeps them in go.mod (go mod tidy
// keeps what the main module's tests import) at the versions seerbench
// measures; go get -u in bench/ moves them on.
import (
	_ "github.com/alitto/pond/v2"
	_ "github.com/golang/groupcache"
	_ "github.com/hashicorp/golang-lru/v2"
	_ "github.com/orcaman/concurrent-map/v2"
	_ "github.com/panjf2000/ants/v2"
	_ "golang.org/x/sync/errgroup"
)
