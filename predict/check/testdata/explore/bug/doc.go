// Package bug holds the kernels of seer check -explore's tests: bugs that
// the first run of each test does not show, and a steered run does
// (../fixed holds their fixed twins). Each file says which strategy
// finds its bug.
package bug
