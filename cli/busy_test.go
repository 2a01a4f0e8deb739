package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
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
	time.Sleep(400 * time.Millisecond)
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
			t.Errorf("child %d used %v of CPU in 400 ms: not busy", i, u)
		}
	}
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
