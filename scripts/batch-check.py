#!/usr/bin/python3
"""Several conversations at once, checked from outside through the CLI.

1. Four prompts of different lengths written together with
   `loupe run --batch-prompts FILE --json` on a generated model (gen-model
   tiny, or --small), each sequence compared with its solo
   `loupe run --json`: the same prompt and written ids, the top-10
   probabilities within 1e-4. A mismatch fails (exit 1).
2. `loupe sweep --what batch --values 1,2,4,8 --json` on a model with real
   shapes (gen-model --shape qwen2.5-0.5b, or --model DIR), big enough to
   be bound by memory at one conversation: the figures of every point, and
   the two ratios that say whether the weights are shared (bytes per
   written token at 8 against 1) and whether it pays (total writing speed
   at 8 against 1). Speeds on a shared machine are printed, not asserted.

  python3 scripts/batch-check.py build/loupe --threads 2
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

PROMPTS = [
    "Once upon a time, in a land far away, there lived",
    "The",
    "A batch of four prompts",
    "My cat is purple. But my friends tell me there is no such thing as a",
]


def run(cmd):
    out = subprocess.run(cmd, check=True, capture_output=True, text=True)
    return out.stdout


def loupe_json(args, *rest):
    return json.loads(run([args.bin, *rest, "--json"]))


def check_batch(args, tmp):
    model = os.path.join(tmp, "tiny")
    run([args.bin, "gen-model", "--out", model])
    file = os.path.join(tmp, "prompts.txt")
    with open(file, "w") as f:
        f.write("\n".join(PROMPTS) + "\n")
    common = ["--model", model, "--max-tokens", "8", "--threads", str(args.threads)]
    batch = loupe_json(args, "run", *common, "--batch-prompts", file)
    bad = 0
    for i, seq in enumerate(batch["sequences"]):
        solo = loupe_json(args, "run", *common, "--prompt", PROMPTS[i])
        ids = [t["id"] for t in seq["tokens"]]
        want = [t["id"] for t in solo["tokens"]]
        worst = 0.0
        for a, b in zip(seq["tokens"], solo["tokens"]):
            for ca, cb in zip(a["top10"], b["top10"]):
                worst = max(worst, abs(ca["p"] - cb["p"]) if ca["id"] == cb["id"] else 1.0)
        ok = seq["prompt_ids"] == solo["prompt_ids"] and ids == want and worst <= 1e-4
        bad += not ok
        print(f"sequence {i + 1}: {len(seq['prompt_ids'])} prompt tokens, {len(ids)} written, "
              f"same ids {ids == want}, top-10 within {worst:.1e}: {'ok' if ok else 'DIFFERS'}")
    return bad


def check_sweep(args, tmp):
    model = args.model
    if not model:
        model = os.path.join(tmp, "q05")
        run([args.bin, "gen-model", "--shape", "qwen2.5-0.5b", "--out", model])
    r = loupe_json(args, "sweep", "--model", model, "--what", "batch", "--values", "1,2,4,8",
                   "--threads", str(args.threads), "--max-tokens", "16")
    print(f"bandwidth {r['bandwidth_gb_s']:.1f} GB/s, compute peak {r.get('peak_gflops', 0):.1f} GFLOP/s")
    print(f"{'B':>3} {'decode t/s':>11} {'per seq':>9} {'MB/token':>9} {'GFLOP/s':>8} {'of peak':>8} {'of bw':>6} "
          f"{'memory':>8} {'compute':>8} {'predicted':>9}")
    for p in r["points"]:
        print(f"{p['value']:>3} {p['decode_tok_s']:>11.2f} {p['per_sequence_tok_s']:>9.2f} {p['bytes_per_token'] / 1e6:>9.1f} "
              f"{p['gflops']:>8.1f} {p['share_of_peak']:>8.3f} {p['share_of_bandwidth']:>6.3f} "
              f"{p['memory_ceiling_tok_s']:>8.1f} {p['compute_ceiling_tok_s']:>8.1f} {p['predicted_tok_s']:>9.1f}")
    one, eight = r["points"][0], r["points"][-1]
    print(f"bytes per written token at 8 / at 1: {eight['bytes_per_token'] / one['bytes_per_token']:.3f} (want < 0.2)")
    print(f"total decode at 8 / at 1: {eight['decode_tok_s'] / one['decode_tok_s']:.2f} × (want ≥ 3 on a quiet machine)")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("bin", help="the loupe binary")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--model", help="model for the sweep (default: a generated qwen2.5-0.5b shape, 1 GB)")
    ap.add_argument("--no-sweep", action="store_true", help="only compare the batch with the solo runs")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        bad = check_batch(args, tmp)
        if not args.no_sweep:
            check_sweep(args, tmp)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
