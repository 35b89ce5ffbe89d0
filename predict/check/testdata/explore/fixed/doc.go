// Package fixed holds the fixed twins of ../bug's kernels: seer check
// -explore must find nothing in them under the same budget.
package fixed
