package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"

	"loupe/engine/hub"
	"loupe/format"
)

func init() {
	register(Command{
		Name:    "pull",
		Summary: "download a model from the Hugging Face Hub into its cache (ORG/NAME [--revision R])",
		Usage: `usage: loupe pull ORG/NAME [--revision R] [--quiet]

Downloads config, tokenizer and safetensors files into the Hugging Face
cache ($HF_HUB_CACHE, $HF_HOME/hub or ~/.cache/huggingface/hub) and prints
the model folder. HF_ENDPOINT picks a mirror, HF_TOKEN opens gated models;
a partial download resumes.`,
		Run: runPull,
	})
	register(Command{
		Name:    "models",
		Summary: "list the models on disk (Hugging Face cache, LM Studio, llama.cpp) and whether they open",
		Usage: `usage: loupe models [--json]

Lists the models found on this computer (the Hugging Face cache, LM
Studio's and llama.cpp's folders) and whether Loupe can open each, as the
window's Models dialog does.`,
		Run: runModels,
	})
}

// parseInterspersed parses flags placed before or after the positional
// arguments ("pull ORG/NAME --revision R" and "pull --revision R ORG/NAME");
// --help is written on help.
func parseInterspersed(fs *flag.FlagSet, args []string, help io.Writer) ([]string, error) {
	var pos []string
	for {
		if err := parseFlags(fs, args, help); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

func runPull(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("pull", flag.ContinueOnError)
	rev := fs.String("revision", "main", "branch, tag or commit to download")
	quiet := fs.Bool("quiet", false, "no progress lines")
	pos, err := parseInterspersed(fs, args, stdout)
	if err != nil {
		return flagExit(err, "pull", stderr)
	}
	if len(pos) != 1 {
		fmt.Fprintf(stderr, "loupe pull: want one model, ORG/NAME (e.g. Qwen/Qwen2.5-0.5B), not %d (loupe pull --help)\n", len(pos))
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	c := hub.NewClient()
	show := progressPrinter(stderr, *quiet)
	start := time.Now()
	dir, err := c.Pull(ctx, pos[0], *rev, show)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			err = errors.New("cancelled; run the same command again to resume")
		}
		fmt.Fprintf(stderr, "\nloupe pull: %v\n", err)
		return 1
	}
	ok, why := hub.CheckFolder(dir)
	note := "Loupe can open it"
	if !ok {
		note = "Loupe cannot open it yet: " + why
	}
	fmt.Fprintf(stderr, "%s@%s in %s (%.1f s); %s\n", pos[0], *rev, dir, time.Since(start).Seconds(), note)
	fmt.Fprintln(stdout, dir)
	return 0
}

// progressPrinter rewrites one line on a terminal, and prints a line per
// file and every 5 s otherwise (logs, CI).
func progressPrinter(w io.Writer, quiet bool) func(hub.Progress) {
	if quiet {
		return nil
	}
	tty := isTerminal(w)
	var lastFile string
	var lastLine time.Time
	return func(p hub.Progress) {
		line := progressLine(p)
		switch {
		case tty:
			fmt.Fprintf(w, "\r%-100s", line)
			if p.Finished {
				fmt.Fprintln(w)
			}
		case p.File != lastFile || p.Finished || time.Since(lastLine) > 5*time.Second:
			fmt.Fprintln(w, line)
			lastLine = time.Now()
		}
		lastFile = p.File
	}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// progressLine is "[2/7] model.safetensors  1.2 / 3.1 GB  38 %  21.4 MB/s  1m29s left".
func progressLine(p hub.Progress) string {
	done := 1.0
	if p.Total > 0 {
		done = float64(p.Done) / float64(p.Total)
	}
	s := fmt.Sprintf("[%d/%d] %s  %s / %s  %s", p.FileIndex, p.Files, p.File,
		format.Bytes(float64(p.Done)), format.Bytes(float64(p.Total)), format.PercentWhole(done))
	if p.Finished {
		return fmt.Sprintf("done: %d files, %s", p.Files, format.Bytes(float64(p.Total)))
	}
	if p.BytesPerSec > 0 {
		s += "  " + format.Bytes(p.BytesPerSec) + "/s"
	}
	if p.Remaining >= 0 {
		s += "  " + format.Duration(p.Remaining.Seconds()) + " left"
	}
	if p.Note != "" {
		s += "  (" + p.Note + ")"
	}
	return s
}

func runModels(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("models", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "one JSON array: name, path, source, format, revision, bytes, can_open, why")
	if err := parseFlags(fs, args, stdout); err != nil {
		return flagExit(err, "models", stderr)
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "loupe models: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	found := hub.Scan(hub.Places())
	if *asJSON {
		if found == nil {
			found = []hub.Local{}
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", " ")
		if err := enc.Encode(found); err != nil {
			fmt.Fprintf(stderr, "loupe models: %v\n", err)
			return 1
		}
		return 0
	}
	if len(found) == 0 {
		fmt.Fprintf(stdout, "no models found (looked in %s and the LM Studio / llama.cpp folders); try: loupe pull Qwen/Qwen2.5-0.5B-Instruct\n", hub.CacheDir())
		return 0
	}
	for _, m := range found {
		state := "opens"
		if !m.CanOpen {
			state = "cannot open: " + m.Why
		}
		fmt.Fprintf(stdout, "%-50s %9s  %-18s %s\n    %s\n", m.Name, format.Bytes(float64(m.Bytes)), m.Source, state, m.Path)
	}
	return 0
}
