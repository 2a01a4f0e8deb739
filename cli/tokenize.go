package cli

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"loupe/engine"
	"loupe/engine/tokenizer"
)

func init() {
	register(Command{
		Name:    "tokenize",
		Summary: "print the token ids and pieces of text (stdin, --text, or --jsonl lines)",
		Usage: `usage: loupe tokenize [--model M] [--text TEXT | --jsonl] [--chat]

Splits text into the model's tokens and prints each token's id and piece,
as the window's token strip shows them: the text of --text, else all of
standard input; --jsonl reads and writes one JSON object per line. --chat
renders the text as the user's turn with the model's chat template first.`,
		Run: runTokenize,
	})
}

// tokenizeInput is what `loupe tokenize` reads; tests replace it.
var tokenizeInput io.Reader = os.Stdin

func runTokenize(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tokenize", flag.ContinueOnError)
	model := fs.String("model", "", "model folder, .safetensors file in it, or a tokenizer.json (default: the demo model)")
	text := fs.String("text", "", "text to tokenize (default: all of stdin)")
	jsonl := fs.Bool("jsonl", false, `read JSON lines {"text": …} on stdin, write {"ids": […], "pieces": […]} per line`+
		` (with --chat also {"messages": [{"role", "content"}…], "think": "on"|"off", "add_generation_prompt": bool}, and "text" holds the rendered prompt)`)
	var cf chatFlags
	cf.register(fs)
	if err := parseFlags(fs, args, stdout); err != nil {
		return flagExit(err, "tokenize", stderr)
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "loupe tokenize: unexpected argument %q (pass text with --text or on stdin)\n", fs.Arg(0))
		return 2
	}
	systemGiven := isSet(fs, "system")
	if err := cf.check(systemGiven); err != nil {
		fmt.Fprintf(stderr, "loupe tokenize: %v\n", err)
		return 2
	}
	tok, err := loadTokenizer(*model)
	if err != nil {
		fmt.Fprintf(stderr, "loupe tokenize: %v\n", err)
		return 1
	}
	if cf.chat {
		err = tokenizeChat(tok, *model, &cf, systemGiven, *jsonl, *text, isSet(fs, "text"), stdout)
	} else if *jsonl {
		err = tokenizeJSONL(tok, tokenizeInput, stdout)
	} else {
		textGiven := false // --text "" tokenizes the empty string, not stdin
		fs.Visit(func(f *flag.Flag) { textGiven = textGiven || f.Name == "text" })
		err = tokenizeTable(tok, tok.Encode, *text, textGiven, stdout)
	}
	if err != nil {
		fmt.Fprintf(stderr, "loupe tokenize: %v\n", err)
		return 1
	}
	return 0
}

// loadTokenizer finds tokenizer.json for --model: the folder's, the
// folder's of a .safetensors (or .index.json) file, or the file itself.
func loadTokenizer(model string) (*tokenizer.Tokenizer, error) {
	if model == "" {
		dir, err := demoModelDir() // run.go's hook: the same default model as `loupe run`
		if err != nil {
			return nil, err
		}
		if dir == "" {
			return nil, errors.New("no --model given (and this build has no demo model)")
		}
		model = dir
	}
	st, err := os.Stat(model)
	if err != nil {
		return nil, fmt.Errorf("--model: %w", err)
	}
	if strings.EqualFold(filepath.Ext(model), ".gguf") {
		return engine.LoadTokenizer(model)
	}
	path := model
	switch {
	case st.IsDir():
		path = filepath.Join(model, "tokenizer.json")
	case strings.HasSuffix(model, ".safetensors") || strings.HasSuffix(model, ".index.json"):
		path = filepath.Join(filepath.Dir(model), "tokenizer.json")
	}
	return tokenizer.Load(path)
}

// tokenizeJSONL answers each input line {"text": T} with one line
// {"ids": [...], "pieces": [...]}; blank lines are skipped.
func tokenizeJSONL(tok *tokenizer.Tokenizer, in io.Reader, out io.Writer) error {
	r := bufio.NewReader(in)
	w := bufio.NewWriter(out)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false) // keep "<|im_end|>" readable
	for n := 1; ; n++ {
		line, err := r.ReadString('\n')
		if strings.TrimSpace(line) != "" {
			var req struct {
				Text *string `json:"text"`
			}
			if jerr := json.Unmarshal([]byte(line), &req); jerr != nil || req.Text == nil {
				w.Flush()
				return fmt.Errorf("stdin line %d: want a JSON object with a \"text\" string (%v)", n, jerr)
			}
			ids := tok.Encode(*req.Text)
			pieces := make([]string, len(ids))
			for i, id := range ids {
				pieces[i] = tok.Piece(id)
			}
			if err := enc.Encode(struct {
				IDs    []int    `json:"ids"`
				Pieces []string `json:"pieces"`
			}{ids, pieces}); err != nil {
				return err
			}
		}
		if err == io.EOF {
			return w.Flush()
		}
		if err != nil {
			return fmt.Errorf("stdin: %w", err)
		}
	}
}

// tokenizeTable prints one row per token: position, id, vocab piece and
// the bytes it stands for (quoted, so that spaces, newlines and cut UTF-8
// show).
func tokenizeTable(tok *tokenizer.Tokenizer, encode func(string) []int, text string, given bool, out io.Writer) error {
	if !given {
		data, err := io.ReadAll(tokenizeInput)
		if err != nil {
			return fmt.Errorf("stdin: %w", err)
		}
		text = string(data)
	}
	ids := encode(text)
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  pos\t    id\tpiece\tbytes")
	for i, id := range ids {
		fmt.Fprintf(tw, "%5d\t%6d\t%s\t%s", i, id, tok.Piece(id), strconv.Quote(string(tok.TokenBytes(id))))
		if tok.IsAdded(id) {
			fmt.Fprint(tw, "\tcontrol")
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(out, "%d tokens, %d bytes\n", len(ids), len(text))
	return err
}
