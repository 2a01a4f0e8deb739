package tokenizer

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// A reflection-free reader for the two big fields of tokenizer.json,
// model.vocab (151,643 entries) and model.merges (151,387): decoding them
// with encoding/json into a map and a slice of RawMessage took ~300 ms of
// CPU, most of it reflection and map growth; this takes a fraction.
// encoding/json has already checked that the input is valid JSON, so the
// scanner only has to check the shape.
type scanner struct {
	data []byte
	pos  int
}

func (s *scanner) skipSpace() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// peek returns the next non-space byte (0 at the end) without consuming it.
func (s *scanner) peek() byte {
	s.skipSpace()
	if s.pos >= len(s.data) {
		return 0
	}
	return s.data[s.pos]
}

// eat consumes c if it is the next non-space byte.
func (s *scanner) eat(c byte) bool {
	if s.peek() == c {
		s.pos++
		return true
	}
	return false
}

func (s *scanner) errorf(format string, args ...any) error {
	return fmt.Errorf("at byte %d: %s", s.pos, fmt.Sprintf(format, args...))
}

// str reads a JSON string. Without escapes the result aliases the input.
func (s *scanner) str() ([]byte, error) {
	if !s.eat('"') {
		return nil, s.errorf("want a string")
	}
	start := s.pos
	escaped := false
	for ; s.pos < len(s.data); s.pos++ {
		switch s.data[s.pos] {
		case '\\':
			escaped = true
			s.pos++
		case '"':
			s.pos++
			if !escaped {
				return s.data[start : s.pos-1], nil
			}
			var v string
			if err := json.Unmarshal(s.data[start-1:s.pos], &v); err != nil {
				return nil, err
			}
			return []byte(v), nil
		}
	}
	return nil, s.errorf("unterminated string")
}

// integer reads a JSON number that must be an integer.
func (s *scanner) integer() (int, error) {
	s.skipSpace()
	start := s.pos
	for s.pos < len(s.data) && (s.data[s.pos] == '-' || s.data[s.pos] >= '0' && s.data[s.pos] <= '9') {
		s.pos++
	}
	n, err := strconv.Atoi(string(s.data[start:s.pos]))
	if err != nil {
		return 0, s.errorf("want an integer id")
	}
	return n, nil
}

// readVocab reads an object of string → integer id.
func readVocab(raw []byte) (map[string]int, error) {
	s := &scanner{data: raw}
	if !s.eat('{') {
		return nil, s.errorf("want an object")
	}
	m := make(map[string]int, len(raw)/16)
	for first := true; !s.eat('}'); first = false {
		if !first && !s.eat(',') {
			return nil, s.errorf("want ',' or '}'")
		}
		k, err := s.str()
		if err != nil {
			return nil, err
		}
		if !s.eat(':') {
			return nil, s.errorf("want ':'")
		}
		id, err := s.integer()
		if err != nil {
			return nil, fmt.Errorf("%q: %w", k, err)
		}
		m[string(k)] = id
	}
	return m, nil
}

// readMerges reads an array whose items are "left right" strings or
// ["left", "right"] pairs, calling fn with each (the slices alias raw).
func readMerges(raw []byte, fn func(i int, a, b []byte) error) error {
	s := &scanner{data: raw}
	if !s.eat('[') {
		return s.errorf("want an array")
	}
	for i := 0; !s.eat(']'); i++ {
		if i > 0 && !s.eat(',') {
			return s.errorf("want ',' or ']'")
		}
		a, b, err := s.mergeItem()
		if err != nil {
			return fmt.Errorf("[%d]: %w", i, err)
		}
		if err := fn(i, a, b); err != nil {
			return fmt.Errorf("[%d]: %w", i, err)
		}
	}
	return nil
}

// mergeItem reads one merge in either serialisation.
func (s *scanner) mergeItem() (a, b []byte, err error) {
	if s.peek() == '"' {
		v, err := s.str()
		if err != nil {
			return nil, nil, err
		}
		return splitMerge(v)
	}
	if !s.eat('[') {
		return nil, nil, s.errorf("want \"left right\" or [left, right]")
	}
	if a, err = s.str(); err == nil && s.eat(',') {
		if b, err = s.str(); err == nil && s.eat(']') {
			if len(a) == 0 || len(b) == 0 {
				return nil, nil, s.errorf("empty side")
			}
			return a, b, nil
		}
	}
	return nil, nil, s.errorf("want a pair of two strings")
}

// splitMerge splits the older "left right" form on its single space.
func splitMerge(v []byte) (a, b []byte, err error) {
	sp := -1
	for i, c := range v {
		if c == ' ' {
			if sp >= 0 {
				return nil, nil, fmt.Errorf("%q has more than one space", v)
			}
			sp = i
		}
	}
	if sp <= 0 || sp == len(v)-1 {
		return nil, nil, fmt.Errorf("%q is not \"left right\"", v)
	}
	return v[:sp], v[sp+1:], nil
}
