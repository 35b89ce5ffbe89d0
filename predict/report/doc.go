// Package report is seer's report model and every way it is shown: the
// findings of `seer check`, `seer predict` and the language server, the
// sentences that tell them, and the renderers that write them.
//
// It imports only the standard library (the root's deps_test.go says
// so), so that what a finding says does not depend on how it was found:
// package predict/check builds a Report, and cmd/seer and the language
// server show it only through this package.
//
// # Entry points
//
//   - Report, Finding, Access, Step and the rest of the model: the
//     document `seer check -json` prints.
//   - Kind, with its constants (KindRace, KindAtomicity, KindDeadlock,
//     KindLeak and the misuse kinds KindSendOnClosed, KindCloseOfClosed,
//     KindNegativeWaitGroup, KindWaitGroupReuse, KindUnlockOfUnlocked,
//     and KindNilDeref, KindIndexOutOfRange and KindNilMapWrite,
//     predicted panics from order violations),
//     Kinds, ParseKind, Kind.Title and Explain (the -explain text). Each
//     kind's data is one row of one table (kind.go).
//   - The sentences: Title, PrefixPhrase, ReorderedSentences,
//     HoldSentences, CycleSentence, RepairedSentences (with
//     StuckSentences, a select that can never proceed), LeakSentence,
//     BlockedSentences, MisuseSentence, NilDerefSentence,
//     WhyNoRaceSentences, StepText.
//   - The renderers: WriteJSON, WriteSARIF, WitnessHTML.
//   - Exploring (seer check -explore, explore.go): Finding.Origin, the run
//     a finding came from, and its Sentence; Report.Explore, how each run
//     of tests was explored (Exploration, ExploreRun, ExploreLeak); the
//     Strategy names.
package report
