// Package cost holds the test whose runs BenchmarkExploreCost times: one
// test of many synchronisation events and no bug, so that each steered
// run costs what recording and analysing it does.
package cost
