package pool

import "syscall"

// canYield: Linux's sched_yield gives the CPU to another runnable thread
// on it, if any, and returns at once otherwise.
const canYield = true

// osYield offers the calling thread's CPU to another runnable thread. A raw
// system call: it cannot block, so the Go scheduler need not hear of it.
func osYield() { syscall.RawSyscall(syscall.SYS_SCHED_YIELD, 0, 0, 0) }
