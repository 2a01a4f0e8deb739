"""The hand-written held-out set (heldout.txt) through Loupe's own engine:
runs `loupe run --prompt S --json` (greedy, the default) for every line
and counts how often the generated text starts with the expected word.

    CGO_ENABLED=0 go build -o build/loupe-cli ./build/climain   # a main calling cli.Main
    /usr/bin/python3 tools/train/check_cli.py --bin build/loupe-cli [--model folder]

Without --model the binary's embedded demo model is used, as the issue's check does.
"""

import argparse
import json
import os
import subprocess

HERE = os.path.dirname(__file__)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="build/loupe-cli")
    ap.add_argument("--model", default="")
    ap.add_argument("--set", default=os.path.join(HERE, "heldout.txt"))
    ap.add_argument("--verbose", action="store_true")
    a = ap.parse_args()
    hit = n = 0
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
        if a.verbose or not ok:
            print(("ok  " if ok else "MISS"), repr(sentence[-45:]), "->", repr(out["text"]), "want", repr(word))
    print(f"{hit}/{n} = {100 * hit / n:.1f} % start with the expected word")


if __name__ == "__main__":
    main()
