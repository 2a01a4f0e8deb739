package cli

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
)

func init() {
	register(Command{
		Name:    "busy",
		Summary: "keep one CPU busy until stdin closes (the competing process of bench --contend)",
		Usage: `usage: loupe busy

Keeps one CPU busy with arithmetic that stays in registers (a browser tab
or a video call, not a second model) until standard input closes. loupe
bench --contend starts these beside its timed runs.`,
		Run: runBusy,
	})
}

// runBusy spins one thread on arithmetic that stays in registers (CPU-bound,
// not memory-bound: a browser tab or a video call, not a second model) until
// its standard input reaches end of file. bench --contend gives each child
// a pipe it never writes, so the children end with their parent, even when
// the parent is killed.
func runBusy(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("busy", flag.ContinueOnError)
	if err := parseFlags(fs, args, stdout); err != nil {
		return flagExit(err, "busy", stderr)
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "busy: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	go spin()
	_, _ = io.Copy(io.Discard, os.Stdin)
	return 0
}

// spinSink keeps the spin loop's result observable.
var spinSink uint64

// spin runs a xorshift generator forever on a locked OS thread.
func spin() {
	runtime.LockOSThread()
	x := uint64(88172645463325252)
	for {
		for range 1 << 20 {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
		}
		spinSink = x
	}
}

// contenders are n `loupe busy` child processes of this executable.
type contenders struct {
	cmds  []*exec.Cmd
	pipes []io.Closer
}

// busyCommand is `<this executable> busy` (tests run the test binary).
var busyCommand = func() (*exec.Cmd, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	return exec.Command(exe, "busy"), nil
}

// startContenders starts n busy children; stop ends them.
func startContenders(n int) (*contenders, error) {
	c := &contenders{}
	if n == 0 {
		return c, nil
	}
	for range n {
		cmd, err := busyCommand()
		if err != nil {
			c.stop()
			return nil, fmt.Errorf("--contend: %w", err)
		}
		in, err := cmd.StdinPipe()
		if err == nil {
			err = cmd.Start()
		}
		if err != nil {
			c.stop()
			return nil, fmt.Errorf("--contend: starting %s: %w", cmd, err)
		}
		c.cmds, c.pipes = append(c.cmds, cmd), append(c.pipes, in)
	}
	return c, nil
}

// stop closes every child's stdin and waits for it to exit.
func (c *contenders) stop() {
	for _, p := range c.pipes {
		p.Close()
	}
	for _, cmd := range c.cmds {
		_ = cmd.Wait()
	}
	c.cmds, c.pipes = nil, nil
}
