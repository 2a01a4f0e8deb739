#!/usr/bin/python3
"""Two loupe binaries against each other on the same model, runs interleaved.

Each round runs `loupe bench --json` once with each binary (one warm-up, one
timed run, no probes, no bandwidth probe beside), alternating which goes
first, and prints prefill tok/s, decode passes/s and the run's CPU seconds.
The figures to read are the medians of the per-round ratios B/A: on a shared
machine the speed drifts from minute to minute, and a drift falls on both.
CPU seconds move less with contention than wall time does.

  python3 scripts/ab-bench.py build/loupe.old build/loupe --threads 2 --prompt-tokens 512
"""
import argparse
import json
import os
import statistics
import subprocess


def parse():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("a", help="binary A (before)")
    ap.add_argument("b", help="binary B (after)")
    ap.add_argument("--model", default="build/qwen2.5-1.5b-random")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", default="2")
    ap.add_argument("--kernels", default="", help="loupe bench --kernels (default: its own)")
    ap.add_argument("--prompt-tokens", default="512")
    ap.add_argument("--max-tokens", default="1", help="tokens written (1: prefill only)")
    return ap.parse_args()


def run(a, binary):
    cmd = [binary, "bench", "--model", a.model, "--prompt-tokens", a.prompt_tokens, "--max-tokens", a.max_tokens,
           "--repeat", "1", "--beside=false", "--no-probes", "--threads", a.threads, "--json"]
    if a.kernels:
        cmd += ["--kernels", a.kernels]
    j = json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)
    return j["prefill"]["tokens_per_second"], j["decode"]["passes_per_second"], j["runs"][0]["cpu_seconds"]


def main():
    a = parse()
    res = {a.a: [], a.b: []}
    for i in range(a.rounds):
        for binary in (a.a, a.b) if i % 2 == 0 else (a.b, a.a):
            pf, dc, cpu = run(a, binary)
            res[binary].append((pf, dc, cpu))
            print(f"round {i + 1} {binary}: prefill {pf:.1f} tok/s, decode {dc:.2f} passes/s, CPU {cpu:.2f} s "
                  f"(load average {os.getloadavg()[0]:.1f} after)", flush=True)
    for k, what in enumerate(("prefill tok/s", "decode passes/s", "CPU seconds")):
        r = [y[k] / x[k] for x, y in zip(res[a.a], res[a.b]) if x[k] > 0]
        if r:
            print(f"B/A {what}: median {statistics.median(r):.3f} (rounds {', '.join(f'{x:.2f}' for x in r)})")


if __name__ == "__main__":
    main()
