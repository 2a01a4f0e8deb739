package tokenizer

import "strings"

// streamAll decodes ids through a Stream, one at a time.
func streamAll(tok *Tokenizer, ids []int) string {
	var sb strings.Builder
	s := tok.NewStream()
	for _, id := range ids {
		sb.WriteString(s.Next(id))
	}
	sb.WriteString(s.Flush())
	return sb.String()
}
