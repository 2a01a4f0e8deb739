package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"loupe/engine/genmodel"
	"loupe/engine/perf"
)

// TestBusyChild is the busy process of the tests below: the test binary
// run again with LOUPE_TEST_BUSY=1. Alone it skips.
func TestBusyChild(t *testing.T) {
	if os.Getenv("LOUPE_TEST_BUSY") != "1" {
		t.Skip("the child of TestContenders")
	}
	os.Exit(runBusy(nil, os.Stdout, os.Stderr))
}

// testBusyCommand makes startContenders start TestBusyChild.
func testBusyCommand(t *testing.T) {
	old := busyCommand
	busyCommand = func() (*exec.Cmd, error) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestBusyChild$")
		cmd.Env = append(os.Environ(), "LOUPE_TEST_BUSY=1")
		return cmd, nil
	}
	t.Cleanup(func() { busyCommand = old })
}

// TestContenders: the children burn CPU while they run and exit when
// stopped (their stdin closes).
func TestContenders(t *testing.T) {
	testBusyCommand(t)
	c, err := startContenders(2)
	if err != nil {
		t.Fatal(err)
	}
	waitForCPU(c, 20*time.Millisecond, 10*time.Second)
	done := make(chan struct{})
	go func() { c.stop(); close(done) }()
	cmds := c.cmds
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("busy children still running 10 s after stop")
	}
	for i, cmd := range cmds {
		if cmd.ProcessState == nil || !cmd.ProcessState.Exited() {
			t.Errorf("child %d did not exit: %v", i, cmd.ProcessState)
			continue
		}
		if u := cmd.ProcessState.UserTime(); u < 20*time.Millisecond {
			t.Errorf("child %d used %v of CPU before it was stopped: not busy", i, u)
		}
	}
}

// waitForCPU waits until every child has used at least want of CPU time
// (read from /proc/PID/stat), or until limit: on a loaded machine a child
// may get little CPU in a fixed sleep. Without /proc it sleeps 400 ms.
func waitForCPU(c *contenders, want, limit time.Duration) {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		busy := true
		for _, cmd := range c.cmds {
			u, ok := procUserTime(cmd.Process.Pid)
			if !ok {
				time.Sleep(400 * time.Millisecond)
				return
			}
			busy = busy && u >= want
		}
		if busy {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// procUserTime reads a process's user CPU time from /proc/PID/stat
// (field 14, in clock ticks of 10 ms on Linux).
func procUserTime(pid int) (time.Duration, bool) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, false
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:]) // fields from 3 on
	if len(f) < 12 {
		return 0, false
	}
	ticks, err := strconv.Atoi(f[11])
	if err != nil {
		return 0, false
	}
	return time.Duration(ticks) * 10 * time.Millisecond, true
}

// TestBenchContend: bench --contend N runs with N busy children and says so
// in its JSON and its text.
func TestBenchContend(t *testing.T) {
	testBusyCommand(t)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := filepath.Join(t.TempDir(), "tiny")
	if err := genmodel.Write(dir, "tiny", 1, "bf16"); err != nil {
		t.Fatal(err)
	}
	if err := perf.SaveBandwidth(perf.Bandwidth{CPU: perf.CPUName(), Threads: 1, BestGBs: 40}); err != nil {
		t.Fatal(err)
	}
	base := []string{"bench", "--model", dir, "--max-tokens", "3", "--repeat", "1", "--threads", "1", "--beside=false", "--contend", "1"}
	var out, errb bytes.Buffer
	if code := Main(append(base, "--json"), &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var r perf.Report
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("%v in %s", err, out.String())
	}
	if r.Contend != 1 || !strings.Contains(errb.String(), "1 busy processes") {
		t.Errorf("contend %d, log %q", r.Contend, errb.String())
	}
	out.Reset()
	if code := Main(base, &out, &errb); code != 0 {
		t.Fatalf("text: exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "1 CPU-bound busy processes ran beside") {
		t.Errorf("text output does not say so:\n%s", out.String())
	}
	if code := Main([]string{"bench", "--model", dir, "--contend", "-1"}, &out, &errb); code != 2 {
		t.Errorf("--contend -1: exit %d, want 2", code)
	}
}
