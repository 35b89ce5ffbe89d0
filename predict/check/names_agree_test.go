// This file tests that the names package report keeps of its own, since
// it imports no other seer package, agree with those of predict and of the
// witness checker: the finding kinds and the rules of an ordering chain.

package check

import (
	"testing"

	"github.com/seer-tools/seer/predict"
	"github.com/seer-tools/seer/predict/report"
	"github.com/seer-tools/seer/predict/witness"
)

func TestReportNamesAgree(t *testing.T) {
	for _, k := range []witness.Kind{witness.Race, witness.Atomicity, witness.Deadlock, witness.Leak,
		witness.SendOnClosed, witness.CloseOfClosed, witness.NegativeWaitGroup, witness.WaitGroupReuse, witness.UnlockOfUnlocked, witness.NilDeref, witness.IndexOutOfRange, witness.NilMapWrite} {
		if _, ok := report.ParseKind(string(k)); !ok {
			t.Errorf("witness kind %q is no report kind", k)
		}
	}
	for _, k := range report.Kinds() {
		if k.IsMisuse() != witness.IsMisuse(witness.Kind(k)) {
			t.Errorf("%s: report says misuse %t, the witness checker %t", k, k.IsMisuse(), witness.IsMisuse(witness.Kind(k)))
		}
	}
	for r, name := range map[predict.OrderRule]string{
		predict.RuleProgramOrder: report.RuleProgramOrder,
		predict.RuleGo:           report.RuleGo,
		predict.RuleJoin:         report.RuleJoin,
		predict.RuleSync:         report.RuleSync,
		predict.RuleReadFrom:     report.RuleReadFrom,
		predict.RuleLock:         report.RuleLock,
	} {
		if r.String() != name {
			t.Errorf("rule %d: predict names it %q, report %q", r, r.String(), name)
		}
	}
}
