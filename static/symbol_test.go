package static

import (
	"reflect"
	"testing"
)

func TestParseSymbol(t *testing.T) {
	for _, tc := range []struct {
		name    string
		path    string
		parts   []string
		closure bool
		init    bool
	}{
		{"example.com/bank.(*Account).Deposit", "example.com/bank", []string{"(*Account)", "Deposit"}, false, false},
		{"example.com/bank.Account.Value", "example.com/bank", []string{"Account", "Value"}, false, false},
		{"example.com/bank.TestX.func1", "example.com/bank", []string{"TestX", "func1"}, true, false},
		{"example.com/bank.TestX.func1.2", "example.com/bank", []string{"TestX", "func1", "2"}, true, false},
		{"example.com/bank.F[...]", "example.com/bank", []string{"F[...]"}, false, false},
		{"example.com/bank.F[...].func1", "example.com/bank", []string{"F[...]", "func1"}, true, false},
		{"example.com/bank.(*G[...]).Push", "example.com/bank", []string{"(*G[...])", "Push"}, false, false},
		{"example.com/bank.(*G[go.shape.int]).Push", "example.com/bank", []string{"(*G[go.shape.int])", "Push"}, false, false},
		{"example.com/bank.R-range1", "example.com/bank", []string{"R-range1"}, true, false},
		{"example.com/bank.R.R.Seq.func2.R-range1.func3", "example.com/bank", []string{"R", "R", "Seq", "func2", "R-range1", "func3"}, true, false},
		{"example.com/bank.init", "example.com/bank", []string{"init"}, false, true},
		{"example.com/bank.init.0", "example.com/bank", []string{"init", "0"}, false, false},
		{"example.com/bank.init.0.func1", "example.com/bank", []string{"init", "0", "func1"}, true, false},
		{"example.com/bank.init.func1", "example.com/bank", []string{"init", "func1"}, true, false},
		{"example.com/bank.glob..func1", "example.com/bank", []string{"glob", "", "func1"}, true, false},
		{"example.com/bank.Go.gowrap1", "example.com/bank", []string{"Go", "gowrap1"}, false, false},
		{"example.com/bank.Go.func2.deferwrap1", "example.com/bank", []string{"Go", "func2", "deferwrap1"}, true, false},
		{"example.com/seer%2edata.(*T).M", "example.com/seer.data", []string{"(*T)", "M"}, false, false},
		{"gopkg.in/yaml%2ev3.Marshal", "gopkg.in/yaml.v3", []string{"Marshal"}, false, false},
		{"main.main", "main", []string{"main"}, false, false},
		{"sync.(*Mutex).Lock", "sync", []string{"(*Mutex)", "Lock"}, false, false},
	} {
		s, err := ParseSymbol(tc.name)
		if err != nil {
			t.Errorf("ParseSymbol(%q): %v", tc.name, err)
			continue
		}
		if s.PkgPath != tc.path || !reflect.DeepEqual(s.Parts, tc.parts) {
			t.Errorf("ParseSymbol(%q) = %q %q, want %q %q", tc.name, s.PkgPath, s.Parts, tc.path, tc.parts)
		}
		if s.IsClosure() != tc.closure {
			t.Errorf("%q: IsClosure = %v", tc.name, s.IsClosure())
		}
		if s.IsPackageInit() != tc.init {
			t.Errorf("%q: IsPackageInit = %v", tc.name, s.IsPackageInit())
		}
		if s.String() != tc.name {
			t.Errorf("ParseSymbol(%q).String() = %q", tc.name, s.String())
		}
	}
	for _, bad := range []string{"", "main", "a/b/c", "example.com/x%zz.F", "example.com/x."} {
		if s, err := ParseSymbol(bad); err == nil {
			t.Errorf("ParseSymbol(%q) = %v, want error", bad, s)
		}
	}
}

func TestEscapePath(t *testing.T) {
	for _, tc := range []struct{ path, want string }{
		{"example.com/bank", "example.com/bank"},
		{"example.com/seer.data", "example.com/seer%2edata"},
		{"gopkg.in/yaml.v3", "gopkg.in/yaml%2ev3"},
		{"a.b/c.d/e.f", "a.b/c.d/e%2ef"},
		{"x/%\"y z", "x/%25%22y%20z"},
		{"x/é", "x/%c3%a9"},
	} {
		if got := escapePath(tc.path); got != tc.want {
			t.Errorf("escapePath(%q) = %q, want %q", tc.path, got, tc.want)
		}
		if back, err := unescapePath(tc.want); err != nil || back != tc.path {
			t.Errorf("unescapePath(%q) = %q, %v", tc.want, back, err)
		}
	}
}
