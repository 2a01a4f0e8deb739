package tokenizer

// GPT-2 byte-level alphabet (docs/spec/tokenizer.md §4). BPE runs on printable
// characters, so every byte is given one: the 188 printable Latin-1 bytes
// map to themselves and the other 68, in increasing order, to U+0100….
var (
	byteToRune [256]rune
	runeToByte [0x144]int16 // code point → byte, -1 outside the alphabet
)

func init() {
	for r := range runeToByte {
		runeToByte[r] = -1
	}
	next := rune(0x100)
	for b := 0; b < 256; b++ {
		if printableByte(byte(b)) {
			byteToRune[b] = rune(b)
		} else {
			byteToRune[b] = next
			next++
		}
		runeToByte[byteToRune[b]] = int16(b)
	}
}

// printableByte reports whether b is one of the 188 bytes GPT-2 maps to
// the code point of the same value: '!'…'~', '¡'…'¬', '®'…'ÿ'.
func printableByte(b byte) bool {
	return (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE
}

// appendPieceBytes appends the bytes a vocab string stands for: each
// character through the inverse table when all of them are in it, the
// string's own UTF-8 otherwise (HF ByteLevel decoder).
func appendPieceBytes(dst []byte, piece string) []byte {
	n := len(dst)
	for _, r := range piece {
		if r >= rune(len(runeToByte)) || runeToByte[r] < 0 {
			return append(dst[:n], piece...)
		}
		dst = append(dst, byte(runeToByte[r]))
	}
	return dst
}

// byteLevel maps raw bytes to the vocab alphabet (" world" → "Ġworld").
func byteLevel(raw string) string {
	out := make([]rune, 0, len(raw))
	for i := 0; i < len(raw); i++ {
		out = append(out, byteToRune[raw[i]])
	}
	return string(out)
}
