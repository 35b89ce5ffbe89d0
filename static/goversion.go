// This file lets Load type-check a module whose Go is newer than the Go
// seer was built with (a `go 1.27` module checked by a seer built with Go
// 1.26): go/types reports such a package as "requires newer Go version"
// but checks it in full all the same, so that error alone does not make
// the package unusable. Any other error still does, and a feature of the
// newer language that this go/types does not know is one.

package static

import (
	"strings"

	"golang.org/x/tools/go/packages"
)

// tooNewMarks are the words of go/types' TooNew errors ("package requires
// newer Go version go1.27 (application built with go1.26)", and "file
// requires ..." for a file's //go:build version).
var tooNewMarks = [...]string{"requires newer Go version ", "(application built with "}

// isTooNew reports whether e is go/types' TooNew error.
func isTooNew(e packages.Error) bool {
	if e.Kind != packages.TypeError {
		return false
	}
	for _, m := range tooNewMarks {
		if !strings.Contains(e.Msg, m) {
			return false
		}
	}
	return true
}

// onlyTooNew reports whether lp was type-checked and its only errors are
// TooNew ones: its syntax and types are complete.
func onlyTooNew(lp *packages.Package) bool {
	if len(lp.Errors) == 0 || lp.Types == nil || lp.TypesInfo == nil {
		return false
	}
	for _, e := range lp.Errors {
		if !isTooNew(e) {
			return false
		}
	}
	return true
}

// acceptTooNew clears the errors of lp when they are only TooNew ones, so
// that it is analysed (ssautil builds no SSA for an ill-typed package).
func acceptTooNew(lp *packages.Package) {
	if onlyTooNew(lp) {
		lp.Errors, lp.IllTyped = nil, false
	}
}
