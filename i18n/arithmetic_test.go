package i18n

import (
	"strings"
	"testing"

	"loupe/format"
)

// The arithmetic's sentence in English is format.Arithmetic's, word for
// word (format cannot read the files, so it keeps its own copy); in
// French it is translated and keeps the parts it names.
func TestArithmetic(t *testing.T) {
	for _, a := range []string{"", "fp32", "bf16", "selective", "int8", "int8+prefill", "bf16+int8", "bf16:experts", "bf16:experts,attention+int8", "q9"} {
		if got, want := English.Arithmetic(a), format.Arithmetic(a); got != want {
			t.Errorf("English.Arithmetic(%q) = %q, format.Arithmetic %q", a, got, want)
		}
		fr := French.Arithmetic(a)
		if fr == English.Arithmetic(a) || strings.HasPrefix(fr, "arith.") {
			t.Errorf("French.Arithmetic(%q) = %q: not translated", a, fr)
		}
	}
	if got := French.Arithmetic("bf16:experts,attention"); !strings.Contains(got, "experts, attention") {
		t.Errorf("French.Arithmetic names no parts: %q", got)
	}
}
