package harness

import "testing"

func TestGoTestNote(t *testing.T) {
	out := `==================
WARNING: DATA RACE
Write at 0x00c000012345 by goroutine 7:
==================
==================
WARNING: DATA RACE
==================
--- FAIL: TestRaceA (0.00s)
    testing.go:1617: race detected during execution of test
--- FAIL: TestRaceB (0.00s)
    --- FAIL: TestRaceB/sub (0.00s)
FAIL
exit status 1
FAIL	racetest	4.321s
ok  	other	0.1s
FAIL
`
	// go test prints a bare FAIL line before FAIL<tab>package: one package.
	if got, want := GoTestNote([]byte(out)), "2 race reports, 2 failed tests [TestRaceA TestRaceB], 1 failed package"; got != want {
		t.Errorf("GoTestNote = %q, want %q", got, want)
	}
	if got := GoTestNote([]byte("ok  \tx\t0.1s\n")); got != "" {
		t.Errorf("GoTestNote(ok) = %q, want empty", got)
	}
}

func TestSeerNote(t *testing.T) {
	stdout := `{
  "findings": [
    {"kind": "race", "predicted": true},
    {"kind": "race", "predicted": false},
    {"kind": "atomicity", "predicted": true}
  ],
  "tests": [
    {"package": "p", "name": "TestA", "events": 100, "outcome": "pass"},
    {"package": "p", "name": "TestB", "events": 30, "outcome": "fail", "leaked": ["p/a.go:3"]},
    {"package": "p", "name": "TestC", "events": 0, "outcome": "skip"},
    {"package": "p", "name": "TestD", "events": 5, "outcome": "fail",
     "errors": ["the run made more than 30000000 events: seer analysed the first ones"]}
  ]
}`
	want := "3 findings (2 predicted), 4 tests (2 fail, 1 skip) [TestB TestD], 135 events, 1 test leaving goroutines, trace cut at the event cap"
	if got := SeerNote([]byte(stdout), nil); got != want {
		t.Errorf("SeerNote = %q\nwant %q", got, want)
	}
	if got, want := SeerNote([]byte(`{"findings": [], "tests": []}`), nil), "0 findings (0 predicted), 0 tests, 0 events"; got != want {
		t.Errorf("SeerNote(empty) = %q, want %q", got, want)
	}
	if got, want := SeerNote(nil, []byte("building\nseer: check: out of memory\n")), "no JSON report: seer: check: out of memory"; got != want {
		t.Errorf("SeerNote(no report) = %q, want %q", got, want)
	}
}

func TestSomeNames(t *testing.T) {
	if got, want := someNames([]string{"A"}), "[A]"; got != want {
		t.Errorf("someNames = %q, want %q", got, want)
	}
	names := []string{"A", "B", "C", "D", "E"}
	if got, want := someNames(names), "[A B C …]"; got != want {
		t.Errorf("someNames = %q, want %q", got, want)
	}
	if names[3] != "D" {
		t.Error("someNames changed its argument")
	}
}
