"""The hand-written held-out set (heldout.txt) through Loupe's own engine:
runs `loupe run --prompt S --json` (greedy, the default) for every line
and counts how often the generated text starts with the expected word.

    CGO_ENABLED=0 go build -o build/loupe-cli ./build/climain   # a main calling cli.Main
    /usr/bin/python3 tools/train/check_cli.py --bin build/loupe-cli [--model folder]

Without --model the binary's embedded demo model is used, as Loupe's first launch does.
"""

import argparse
import collections
import json
import os
import re
import subprocess

HERE = os.path.dirname(__file__)


FUNCTION_WORDS = {"the", "a", "an", "his", "her", "my", "our", "their", "its", "for", "with", "to", "of", "in",
                  "on", "at", "and", "but", "it", "he", "she", "they", "we", "i", "you", "ed", "s"}


def miss_kind(sentence, word, text):
    """What a miss did instead: began the word and broke off (a word of
    several tokens), said another word of the prompt (often the noun whose
    attribute was asked for), or fetched nothing from the prompt."""
    m = re.match(r" ?([A-Za-z']+)", text)
    got = m.group(1) if m else ""
    if got and word.startswith(got[:2]) and got != word:
        return "began the word, then another piece"
    if got.lower() in FUNCTION_WORDS:
        return "a function word"
    if got and got.lower() in re.findall(r"[a-z']+", sentence.lower()):
        return "another word of the prompt"
    return "a word not in the prompt"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="build/loupe-cli")
    ap.add_argument("--model", default="")
    ap.add_argument("--set", default=os.path.join(HERE, "heldout.txt"))
    ap.add_argument("--verbose", action="store_true")
    a = ap.parse_args()
    hit = n = 0
    kinds = collections.Counter()
    for line in open(a.set, encoding="utf-8"):
        if line.startswith("#") or not line.strip():
            continue
        sentence, word = line.rstrip("\n").split("\t")
        cmd = [a.bin, "run", "--prompt", sentence, "--max-tokens", "6", "--threads", "1", "--json"]
        if a.model:
            cmd += ["--model", a.model]
        out = json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)
        ok = out["text"].startswith(" " + word)
        hit += ok
        n += 1
        if not ok:
            kinds[miss_kind(sentence, word, out["text"])] += 1
        if a.verbose or not ok:
            print(("ok  " if ok else "MISS"), repr(sentence[-45:]), "->", repr(out["text"]), "want", repr(word))
    print("misses:", ", ".join(f"{k} {v}" for k, v in kinds.most_common()))
    print(f"{hit}/{n} = {100 * hit / n:.1f} % start with the expected word")


if __name__ == "__main__":
    main()
