#!/usr/bin/env python3
"""Writes engine/tokenizer/testdata/gpt2-pretok.jsonl: strings split by
Python's `regex` module the way llama.cpp's unicode_regex_split applies a
pre-tokenizer's list of regexes (llama-vocab.cpp, llm_tokenizer_bpe): each
regex splits every piece of the one before, and the text between matches
is kept as a piece of its own. Three lists: "gpt-2", "smollm" and
llama.cpp's "default". The Go hand-written splitters are checked against
this independent regex engine.

Run: python3 tools/pretok/gpt2_cases.py > engine/tokenizer/testdata/gpt2-pretok.jsonl
"""
import json
import random

import regex

# llama-vocab.cpp, LLAMA_VOCAB_PRE_TYPE_GPT2 (the HF ByteLevel regex with
# the final \s+, which only changes where text between matches goes).
GPT2 = r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"
LISTS = {
    "gpt2": [GPT2],
    "smollm": [r"\p{N}", GPT2],
    "default": [r"[\p{P}\$\+<=>\^~\|]+", GPT2, r"\p{N}+", r"[0-9][0-9][0-9]"],
}


def split_isolated(pattern, text):
    out, last = [], 0
    for m in regex.finditer(pattern, text):
        if m.start() > last:
            out.append(text[last:m.start()])
        if m.end() > m.start():
            out.append(m.group())
        last = m.end()
    if last < len(text):
        out.append(text[last:])
    return out


def split_all(patterns, text):
    pieces = [text] if text else []
    for p in patterns:
        pieces = [q for piece in pieces for q in split_isolated(p, piece)]
    return pieces


FIXED = [
    "Hello world", " Hello world", "Hello   world", "I'm fine, THEY'RE OK.", "'re 're", "don't DON'T",
    "price: $1234.50!!", "line1\n\nline2\r\n  indented", "tabs\t\tand  spaces  ", "Hi.\n\nBye",
    "  \n  x", "a  1", "x = 12+34;  // ok", "你好，世界", "¿Qué?", "a\u00a0b", "😀 emoji", "   ",
    "1234567 12 123", "٣٤٥ １２３", "x² + y³", "a'sb", "!'s", " 's", "<|im_start|>user", "a\n\tb",
    "e\u0301 cafe\u0301", "$+<=>^~|", "((x))", "2024-12-01", "3.14159", "Once upon a time, there was 1 cat.",
]
ALPHABET = ["a", "Z", "s", "t", "d", " ", " ", " ", "\n", "\r", "\t", "'", "1", "2", "9", "٣", "!", ".",
            ",", "$", "+", "<", "=", "|", "~", "^", "\u0301", "é", "你", "😀", "\u00a0", "，", "-", "_", "²"]


def main():
    rnd = random.Random(20261201)
    texts = list(FIXED)
    for _ in range(500):
        texts.append("".join(rnd.choice(ALPHABET) for _ in range(rnd.randint(1, 16))))
    for t in texts:
        row = {"text": t}
        for name, patterns in LISTS.items():
            row[name] = split_all(patterns, t)
        print(json.dumps(row, ensure_ascii=False))


if __name__ == "__main__":
    main()
