package tokenizer_test

import (
	"fmt"

	"loupe/engine/tokenizer"
)

func Example() {
	tok, err := tokenizer.Load("../../assets/qwen2.5/tokenizer.json")
	if err != nil {
		fmt.Println(err)
		return
	}
	ids := tok.Encode("<|im_start|>user\nHello, world!<|im_end|>")
	var pieces []string
	for _, id := range ids {
		pieces = append(pieces, tok.Piece(id))
	}
	fmt.Println(ids)
	fmt.Printf("%q\n", pieces)
	fmt.Printf("%q\n", tok.Decode(ids[3:]))

	// A token can end inside a character: the stream holds its bytes back.
	s := tok.NewStream()
	var shown []string
	for _, id := range tok.Encode(" 🍕!") {
		shown = append(shown, s.Next(id))
	}
	fmt.Printf("%q %q\n", shown, s.Flush())
	// Output:
	// [151644 872 198 9707 11 1879 0 151645]
	// ["<|im_start|>" "user" "Ċ" "Hello" "," "Ġworld" "!" "<|im_end|>"]
	// "Hello, world!<|im_end|>"
	// [" " "" "🍕" "!"] ""
}
