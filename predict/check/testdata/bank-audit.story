race on a.note (predicted, TestAudit)
in the recorded run goroutine 9's critical section on a.mu at bank.go:22 ran before goroutine 10's at :32; the witness runs goroutine 10's first, and nothing else orders them
witness: the recorded run before event N, less goroutine 9's events from bank.go:21 on (N events) and N later events of N goroutines in the runtime or the test harness
  g9 writes a.note at bank.go:21
  g10 reads a.note at bank.go:35
