#!/usr/bin/env python3
"""Loupe against llama.cpp, an independent implementation, on the same files.

For each architecture Loupe runs, gen-model writes a small random-weight
GGUF file (F32, and Q8_0 for the quantised rows); Loupe (`run --json`,
greedy) and llama.cpp's `llama-completion` (--temp 0) continue the same
prompt, and the two texts are compared token for token. F32 files in
`exact` arithmetic must agree: both programs then compute the same
function in fp32, so a disagreement is a bug in one of them. Quantised
files are printed for information: llama.cpp rounds activations to 8 bits
in every product and Loupe (auto) only in the quantised matrices' decode,
so on these sensitive random models a near tie may go either way.

Exit status 1 when an F32 file disagrees.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

PROMPT = "My cat is purple. But my friends tell me there is no such thing as a"
SHAPES = ["tiny", "tiny-qwen3", "tiny-llama", "tiny-qwen35", "tiny-olmoe", "tiny-qwen3moe", "tiny-qwen35moe"]


def loupe_text(loupe, path, n, kernels):
    out = subprocess.run([loupe, "run", "--model", path, "--prompt", PROMPT, "--max-tokens", str(n),
                          "--json", "--kernels", kernels], capture_output=True, check=True).stdout
    return json.loads(out)["text"]


def llama_text(completion, path, n):
    out = subprocess.run([completion, "-m", path, "-p", PROMPT, "-n", str(n), "--temp", "0", "--no-warmup",
                          "-no-cnv", "-t", "2", "-c", "256", "--no-display-prompt"],
                         capture_output=True, check=True).stdout
    return out.decode("utf-8", "replace")


def common_prefix(a, b):
    i = 0
    while i < min(len(a), len(b)) and a[i] == b[i]:
        i += 1
    return i


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--loupe", required=True)
    ap.add_argument("--llama-completion", required=True)
    ap.add_argument("--tokens", type=int, default=12)
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--dir", help="where the generated files go (default: a temporary folder)")
    args = ap.parse_args()
    d = args.dir or tempfile.mkdtemp(prefix="loupe-crosscheck-")
    os.makedirs(d, exist_ok=True)
    failed = 0
    print(f"{'file':<24} {'Loupe':>6}  result")
    for shape in SHAPES:
        for quant, kernels in [("f32", "exact"), ("q8_0", "auto")]:
            if quant == "q8_0" and shape in ("tiny", "tiny-qwen3", "tiny-llama"):
                continue  # their quantised decode is covered by the bench model's files
            path = os.path.join(d, f"{shape}-{quant}.gguf")
            if not os.path.exists(path):
                subprocess.run([args.loupe, "gen-model", "--format", "gguf", "--quant", quant, "--shape", shape,
                                "--seed", str(args.seed), "--out", path], capture_output=True, check=True)
            a = loupe_text(args.loupe, path, args.tokens, kernels).rstrip("\n")
            b = llama_text(args.llama_completion, path, args.tokens).rstrip("\n")
            if a == b:
                verdict = f"the same {args.tokens} tokens"
            else:
                verdict = f"differ after {common_prefix(a, b)} characters: {json.dumps(a)} against {json.dumps(b)}"
                if quant == "f32":
                    failed += 1
            print(f"{os.path.basename(path):<24} {kernels:>6}  {verdict}")
    if failed:
        print(f"{failed} F32 file(s) disagree", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
