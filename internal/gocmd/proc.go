// This file implements the processes seer owns: a process it starts dies
// with it, even when seer is killed (RunOwned).

package gocmd

import (
	"context"
	"os/exec"
	"runtime"
	"syscall"
	"time"
)

// RunOwned starts cmd and waits for it, as a process that dies with seer:
// it runs in a process group of its own, so that a signal reaches the
// processes it starts too (the go command's compilers, a test's
// children); the kernel kills it if seer dies, even by SIGKILL
// (Pdeathsig); and when ctx is done its group is sent SIGINT, which the
// go command answers by stopping its build and removing its work
// directory, and, grace later (at once if grace is 0), SIGKILL. It
// reports whether ctx stopped the process.
func RunOwned(ctx context.Context, cmd *exec.Cmd, grace time.Duration) (stopped bool, err error) {
	// Pdeathsig is sent when the thread that started the child ends, not
	// the process: keep this goroutine on that thread until the child
	// has been waited for.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	if err := ctx.Err(); err != nil {
		return true, err
	}
	if err := cmd.Start(); err != nil {
		return false, err
	}
	pgid := cmd.Process.Pid
	exited := make(chan struct{})
	watcher := make(chan bool, 1)
	go func() {
		select {
		case <-exited:
			watcher <- false
			return
		case <-ctx.Done():
		}
		if grace > 0 {
			syscall.Kill(-pgid, syscall.SIGINT)
			select {
			case <-exited:
				watcher <- true
				return
			case <-time.After(grace):
			}
		}
		syscall.Kill(-pgid, syscall.SIGKILL)
		watcher <- true
	}()
	err = cmd.Wait()
	close(exited)
	if stopped = <-watcher; stopped {
		// The group's leader is gone; whatever it left in the group
		// goes too (the group id cannot be reused while it has members).
		syscall.Kill(-pgid, syscall.SIGKILL)
	}
	return stopped, err
}
