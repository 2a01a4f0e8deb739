#!/usr/bin/python3
"""Loupe against llama.cpp on the same weights, runs interleaved one by one.

Loupe: `loupe bench` on the safetensors model (one warm-up, one timed run,
no probes, no bandwidth probe beside). llama.cpp, on the same tensors written
as a BF16 GGUF: with --llama-bench, llama.cpp's own llama-bench built from
source for this CPU (make compare-llamacpp LLAMACPP_SRC=DIR builds it);
otherwise scripts/llamacpp/bench.mjs on node-llama-cpp's prebuilt libraries,
which may not use this CPU's best instructions (AVX-512, AVX512-BF16) and
then understate llama.cpp. Decode is compared as forward
passes per second (llama-bench's tg counts so); prefill as prompt tokens per
second. The order alternates every round, so a drift of the machine's speed
falls on both; the figures to read are the medians of the per-round ratios.

make compare-llamacpp runs it (it writes the GGUF and builds llama-bench or
installs node-llama-cpp under build/ first).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys


def parse():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--loupe", default="build/loupe", help="the loupe binary")
    ap.add_argument("--model", default="build/qwen2.5-1.5b-random", help="Loupe's model folder")
    ap.add_argument("--gguf", default="build/qwen2.5-1.5b-random-BF16.gguf", help="the same weights as a GGUF")
    ap.add_argument("--node-dir", default="build/llamacpp", help="where bench.mjs and node_modules are")
    ap.add_argument("--llama-bench", default="", help="a llama-bench binary built for this CPU (instead of --node-dir)")
    ap.add_argument("--threads", default="1,2", help="thread counts, comma-separated")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--prompt-tokens", type=int, default=17)
    ap.add_argument("--prompt-file", default="", help="prompt text instead of --prompt-tokens")
    ap.add_argument("--decode", type=int, default=30, help="tokens written per run")
    ap.add_argument("--contend", type=int, default=0, help="CPU-bound busy processes beside each run")
    ap.add_argument("--kernels", default="", help="loupe bench --kernels (default: its own, auto)")
    ap.add_argument("--json", action="store_true", help="print the medians as one JSON object at the end")
    return ap.parse_args()


def run_loupe(a, threads):
    cmd = [a.loupe, "bench", "--model", a.model, "--max-tokens", str(a.decode), "--repeat", "1",
           "--beside=false", "--threads", str(threads), "--json", "--no-probes"]
    cmd += ["--prompt-file", a.prompt_file] if a.prompt_file else ["--prompt-tokens", str(a.prompt_tokens)]
    if a.contend:
        cmd += ["--contend", str(a.contend)]
    if a.kernels:
        cmd += ["--kernels", a.kernels]
    j = json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)
    return j["prefill"]["tokens"], j["prefill"]["tokens_per_second"], j["decode"]["passes_per_second"]


def run_llama_bench(a, threads):
    # llama-bench times a prompt of random tokens (pp) and decode passes (tg)
    # as two tests, after its own warm-up run; -r 1 is one timed run each,
    # as Loupe's.
    cmd = [a.llama_bench, "-m", a.gguf, "-t", str(threads), "-p", str(a.prompt_tokens), "-n", str(a.decode),
           "-r", "1", "-o", "json"]
    busy = [subprocess.Popen([a.loupe, "busy"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL) for _ in range(a.contend)]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True)
    finally:
        for b in busy:
            b.stdin.close()
            b.wait()
    if p.returncode != 0:
        sys.exit(f"compare-llamacpp: {' '.join(cmd)} failed:\n{p.stderr}")
    tests = json.loads(p.stdout)
    pp = next(t for t in tests if t["n_prompt"] > 0 and t["n_gen"] == 0)
    tg = next(t for t in tests if t["n_gen"] > 0 and t["n_prompt"] == 0)
    return pp["n_prompt"], pp["avg_ts"], tg["avg_ts"]


def run_llamacpp(a, threads):
    if a.llama_bench:
        return run_llama_bench(a, threads)
    # The same busy processes loupe bench --contend starts: loupe busy spins
    # until its standard input closes, so each gets a pipe never written.
    busy = [subprocess.Popen([a.loupe, "busy"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL) for _ in range(a.contend)]
    try:
        cmd = ["node", "bench.mjs", a.gguf, str(threads), str(a.prompt_tokens), str(a.decode)]
        if a.prompt_file:
            cmd.append(a.prompt_file)
        p = subprocess.run(cmd, capture_output=True, text=True, cwd=a.node_dir)
        if p.returncode != 0:
            sys.exit(f"compare-llamacpp: {' '.join(cmd)} failed:\n{p.stderr}")
        out = p.stdout
    finally:
        for b in busy:
            b.stdin.close()
            b.wait()
    j = json.loads(out.strip().splitlines()[-1])
    return j["prompt_tokens"], j["prefill_tok_s"], j["decode_passes_per_s"]


def main():
    a = parse()
    # bench.mjs runs in node-dir: give it absolute paths.
    a.gguf = os.path.abspath(a.gguf)
    if a.prompt_file:
        a.prompt_file = os.path.abspath(a.prompt_file)
    if a.llama_bench and a.prompt_file:
        sys.exit("compare-llamacpp: llama-bench times a prompt of N random tokens: give --prompt-tokens, not --prompt-file")
    if a.llama_bench:
        which = f"llama.cpp's llama-bench {a.llama_bench}, built for this CPU"
    else:
        which = "llama.cpp from npm (node-llama-cpp's prebuilt libraries)"
        print("compare-llamacpp: llama.cpp from npm's prebuilt libraries, which may not use this CPU's best "
              "instructions (AVX-512, AVX512-BF16): its figures can understate llama.cpp. "
              "make compare-llamacpp LLAMACPP_SRC=DIR builds it from source for this CPU.", flush=True)
    engines = (("loupe", run_loupe), ("llama.cpp", run_llamacpp))
    threads = [int(t) for t in a.threads.split(",")]
    res = {}
    print(f"Loupe ({a.model}) against {which} ({a.gguf}); decode {a.decode} tokens, "
          f"{'prompt ' + a.prompt_file if a.prompt_file else str(a.prompt_tokens) + '-token prompt'}, "
          f"{a.contend} busy processes beside", flush=True)
    for rnd in range(a.rounds):
        for t in threads:
            for name, f in engines if rnd % 2 == 0 else engines[::-1]:
                n, pf, dc = f(a, t)
                res.setdefault((t, name), []).append((pf, dc))
                print(f"round {rnd + 1}, {t} thread(s), {name:9s}: prefill {n} tokens {pf:7.2f} tok/s, "
                      f"decode {dc:6.3f} passes/s (load average {os.getloadavg()[0]:.1f} after)", flush=True)
    summary = {}
    for t in threads:
        L, C = res[(t, "loupe")], res[(t, "llama.cpp")]
        for i, what in enumerate(("prefill", "decode")):
            ratios = [l[i] / c[i] for l, c in zip(L, C)]
            lm, cm, rm = (statistics.median(x[i] for x in L), statistics.median(x[i] for x in C),
                          statistics.median(ratios))
            summary[f"{what}_{t}t"] = {"loupe": lm, "llamacpp": cm, "ratio": rm, "ratios": ratios}
            print(f"{t} thread(s) {what:7s}: Loupe {lm:7.3f}, llama.cpp {cm:7.3f}; Loupe/llama.cpp median "
                  f"{rm:.2f} (rounds {', '.join(f'{x:.2f}' for x in ratios)})")
    if a.json:
        print(json.dumps(summary))


if __name__ == "__main__":
    sys.exit(main())
