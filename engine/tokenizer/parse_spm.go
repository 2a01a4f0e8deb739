package tokenizer

import (
	"encoding/json"
	"fmt"
)

// SentencePiece-style tokenizer.json files (Llama 2, TinyLlama, Mistral):
// model BPE with byte_fallback over ▁-escaped text, either the legacy
// normalizer Sequence[Prepend "▁", Replace " " → "▁"] with no
// pre-tokenizer, or a Metaspace pre-tokenizer (transformers' legacy=False
// conversion); decoder Replace/ByteFallback/Fuse/Strip or Metaspace. The
// merging is spmModel's with merge ranks, as Hugging Face's BPE model does.

// spmSetup recognises a SentencePiece-style file and reads where the ▁
// prefix goes; ok is false for a byte-level file.
func spmSetup(f *file) (sp *spmModel, ok bool, err error) {
	type replace struct {
		Type    string
		Prepend string
		Pattern struct{ String *string }
		Content string
		Start   int
		Stop    int
	}
	var norm struct {
		replace
		Normalizers []replace
	}
	var pre struct {
		Type           string
		Replacement    string
		PrependScheme  string `json:"prepend_scheme"`
		AddPrefixSpace *bool  `json:"add_prefix_space"`
		Split          bool
	}
	if len(f.Normalizer) > 0 && json.Unmarshal(f.Normalizer, &norm) != nil ||
		len(f.PreTokenizer) > 0 && json.Unmarshal(f.PreTokenizer, &pre) != nil {
		return nil, false, nil // the byte-level checks give the error
	}
	steps := norm.Normalizers
	if norm.Type != "" && norm.Type != "Sequence" {
		steps = []replace{norm.replace}
	}
	escapes := func(r replace) bool {
		return r.Type == "Replace" && r.Pattern.String != nil && *r.Pattern.String == " " && r.Content == metaspace
	}
	legacy := len(steps) > 0 && escapes(steps[len(steps)-1])
	if !legacy && pre.Type != "Metaspace" && !f.Model.ByteFallback {
		return nil, false, nil
	}
	sp = &spmModel{unk: -1}
	switch {
	case legacy:
		if pre.Type != "" {
			return nil, false, fmt.Errorf("%w: pre_tokenizer %q after the ▁ normalizer (want none)", ErrUnsupported, pre.Type)
		}
		for _, r := range steps[:len(steps)-1] {
			if r.Type != "Prepend" || r.Prepend != metaspace {
				return nil, false, fmt.Errorf("%w: normalizer step %q (want Prepend \"▁\" and Replace \" \" → \"▁\")", ErrUnsupported, r.Type)
			}
			sp.prefix = prefixEvery
		}
	case pre.Type == "Metaspace":
		if len(steps) > 0 || norm.Type != "" {
			return nil, false, fmt.Errorf("%w: normalizer %q with a Metaspace pre-tokenizer", ErrUnsupported, norm.Type)
		}
		if pre.Replacement != metaspace {
			return nil, false, fmt.Errorf("%w: Metaspace replacement %q (want \"▁\")", ErrUnsupported, pre.Replacement)
		}
		switch pre.PrependScheme {
		case "always":
			sp.prefix = prefixMetaAlways
		case "first":
			sp.prefix = prefixMetaFirst
		case "never":
		case "": // files before prepend_scheme
			if pre.AddPrefixSpace == nil || *pre.AddPrefixSpace {
				sp.prefix = prefixMetaAlways
			}
		default:
			return nil, false, fmt.Errorf("%w: Metaspace prepend_scheme %q", ErrUnsupported, pre.PrependScheme)
		}
		sp.splitWords = pre.Split
	default:
		return nil, false, fmt.Errorf("%w: model.byte_fallback without the ▁ normalizer or a Metaspace pre-tokenizer", ErrUnsupported)
	}
	if sp.stripFirst, err = spmDecoder(f.Decoder); err != nil {
		return nil, false, err
	}
	return sp, true, nil
}

// spmDecoder accepts the SentencePiece decoders (a Sequence of Replace
// "▁" → " ", ByteFallback, Fuse, Strip, or Metaspace) and reports whether
// they drop the first space of a text.
func spmDecoder(raw json.RawMessage) (strip bool, err error) {
	type dec struct {
		Type          string
		Content       string
		Start, Stop   int
		PrependScheme string `json:"prepend_scheme"`
	}
	var d struct {
		dec
		Decoders []dec
	}
	if len(raw) == 0 || string(raw) == "null" {
		return false, fmt.Errorf("%w: no decoder (want the SentencePiece Replace/ByteFallback/Fuse/Strip)", ErrUnsupported)
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		return false, fmt.Errorf("%w: decoder: %v", ErrFormat, err)
	}
	steps := d.Decoders
	if d.Type != "Sequence" {
		steps = []dec{d.dec}
	}
	for _, s := range steps {
		switch s.Type {
		case "Replace", "ByteFallback", "Fuse":
		case "Strip":
			if s.Content != " " || s.Start > 1 || s.Stop != 0 {
				return false, fmt.Errorf("%w: decoder Strip %q start %d stop %d (want \" \", 1, 0)", ErrUnsupported, s.Content, s.Start, s.Stop)
			}
			strip = strip || s.Start == 1
		case "Metaspace":
			strip = strip || s.PrependScheme != "never"
		default:
			return false, fmt.Errorf("%w: decoder %q in a SentencePiece tokenizer", ErrUnsupported, s.Type)
		}
	}
	return strip, nil
}

// parseSPM reads a SentencePiece-style file: vocab, merges (by rank),
// byte tokens <0x00>…<0xFF> for the fallback, <unk>, added tokens matched
// in raw text, BOS from the post-processor's template.
func (t *Tokenizer) parseSPM(f *file, sp *spmModel) error {
	m := f.Model
	if m.Type != "" && m.Type != "BPE" {
		return fmt.Errorf("%w: model type %q (only BPE)", ErrUnsupported, m.Type)
	}
	if m.Dropout != nil && *m.Dropout != 0 {
		return fmt.Errorf("%w: model.dropout %v (only null)", ErrUnsupported, *m.Dropout)
	}
	if len(m.Vocab) == 0 || len(m.Merges) == 0 {
		return fmt.Errorf("%w: model.vocab or model.merges missing", ErrFormat)
	}
	vocab, err := readVocab(m.Vocab)
	if err != nil {
		return fmt.Errorf("%w: model.vocab: %v", ErrFormat, err)
	}
	if err := t.setTables(vocab, f.AddedTokens); err != nil {
		return err
	}
	if err := t.setMerges(m.Merges); err != nil {
		return err
	}
	for b := range sp.byteTok {
		sp.byteTok[b] = -1
		if id, ok := vocab[fmt.Sprintf("<0x%02X>", b)]; ok && m.ByteFallback {
			sp.byteTok[b] = id
		}
	}
	if m.UnkToken != nil {
		id, ok := vocab[*m.UnkToken]
		if !ok {
			return fmt.Errorf("%w: model.unk_token %q is not in the vocab", ErrFormat, *m.UnkToken)
		}
		sp.unk = id
	}
	t.spm = sp
	t.setAdded(f.AddedTokens)
	t.matcher, t.hasNorm = newAddedMatcher(f.AddedTokens), false // all matched in raw text, before the ▁ normalizer
	if t.bos, t.addBOS, err = templateBOS(f.PostProcessor, f.AddedTokens); err != nil {
		return err
	}
	t.setBytesSPM(func(id int) bool {
		b, ok := byteTokenValue(t.pieces[id])
		return ok && sp.byteTok[b] == id
	})
	return t.checkBOS()
}

// templateBOS reads a TemplateProcessing post-processor (alone or in a
// Sequence): a special token before the text ($A) is the BOS that Encode
// adds, as Hugging Face does with add_special_tokens. Tokens after the
// text (an EOS) are not added; a template that puts one there is refused.
func templateBOS(raw json.RawMessage, added []addedToken) (bos int, add bool, err error) {
	type item struct {
		SpecialToken *struct{ ID string }
		Sequence     *struct{ ID string }
	}
	type proc struct {
		Type          string
		Processors    []json.RawMessage
		Single        []item
		SpecialTokens map[string]struct{ IDs []int } `json:"special_tokens"`
	}
	var p proc
	if len(raw) == 0 || string(raw) == "null" {
		return -1, false, nil
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return -1, false, fmt.Errorf("%w: post_processor: %v", ErrFormat, err)
	}
	if p.Type == "Sequence" {
		for _, r := range p.Processors {
			if bos, add, err = templateBOS(r, added); err != nil || add {
				return bos, add, err
			}
		}
		return -1, false, nil
	}
	if p.Type != "TemplateProcessing" {
		return -1, false, nil
	}
	bos = -1
	for i, it := range p.Single {
		switch {
		case it.Sequence != nil:
			if i != len(p.Single)-1 {
				return -1, false, fmt.Errorf("%w: post_processor: template %v adds tokens after the text", ErrUnsupported, p.Single)
			}
		case it.SpecialToken != nil && i == 0:
			ids := p.SpecialTokens[it.SpecialToken.ID].IDs
			if len(ids) != 1 || ids[0] < 0 || ids[0] >= maxID {
				return -1, false, fmt.Errorf("%w: post_processor: special token %q has ids %v", ErrFormat, it.SpecialToken.ID, ids)
			}
			bos = ids[0]
		default:
			return -1, false, fmt.Errorf("%w: post_processor: template item %d is not BOS then the text", ErrUnsupported, i)
		}
	}
	return bos, bos >= 0, nil
}
