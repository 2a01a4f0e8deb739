#!/usr/bin/env python3
"""Writes engine/tokenizer/testdata/qwen35-pretok.jsonl: strings split by
Python's `regex` module (an independent regex engine with \\p{M} and
look-ahead) with the Qwen2 and the Qwen3.5 pre-tokenizer patterns, so the
Go hand-written splitter is checked against a real regex engine.

Run: python3 tools/pretok/qwen35_cases.py > engine/tokenizer/testdata/qwen35-pretok.jsonl
"""
import json
import random

import regex

QWEN2 = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
QWEN35 = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"

FIXED = [
    "नमस्ते दुनिया",            # Devanagari: virama and vowel signs are marks
    "cafe\u0301 au lait",       # e + combining acute (no NFC here: the splitter's input)
    "\u0301start",              # a mark first
    "!\u0301?",                 # a mark between symbols
    "สวัสดีครับ",                # Thai vowel and tone marks
    "שָׁלוֹם",                    # Hebrew points
    "❤\ufe0f ok",               # variation selector (Mn) after a symbol
    "x 1\u0301 y",              # a mark after a digit
    "I'm\u0301 here",
    "a\n\u0301b",
]
ALPHABET = ["a", "Z", "s", " ", " ", "\n", "\r", "\t", "'", "1", "!", ".", "\u0301", "\u093f",
            "न", "\u0e31", "ก", "\ufe0f", "😀", "\u00a0", "，", "é", "\u05b8", "ש", "-", "\u0300"]


def main():
    rng = random.Random(35)
    texts = FIXED + ["".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 14))) for _ in range(400)]
    for t in texts:
        print(json.dumps({"text": t, "qwen2": regex.findall(QWEN2, t), "qwen35": regex.findall(QWEN35, t)},
                         ensure_ascii=False))


if __name__ == "__main__":
    main()
