"""Trains Loupe's demo model (a small Qwen2) on the public-domain corpus.

    /usr/bin/python3 tools/train/train.py --minutes 35 --out tools/train/out

Writes out/ckpt.pt (the weights with the best validation loss), out/log.jsonl
(one line per evaluation) and out/tokenizer.json; export.py turns the
checkpoint into assets/demo/. Deterministic for a given seed and thread
count (torch.manual_seed, fixed batch order); the stop is by step count,
--minutes only sizes the step count from a short throughput probe when
--steps is not given.
"""

import argparse
import json
import math
import os
import random
import shutil
import sys
import time

# One thread, and OpenBLAS told so too (torch.set_num_threads does not reach
# Debian's openblas-pthread): on the shared 2-core machine (load ~12) two
# threads measured 17-18 s per step against 2-3.5 s for one, from threads
# spinning while waiting for each other.
for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
import bpe  # noqa: E402
import corpus  # noqa: E402
import synth  # noqa: E402
from model import Config, Qwen2  # noqa: E402


def tokenizer_texts():
    """What the BPE is trained on: the training text, 300,000 characters of
    synthetic stories (seed 4321) and every word of synth's lists (training
    and held-out), 40 times with its leading space, so that each is one
    token (" purple", " Alice"). Tokenizer only: the model never trains on
    the word-list line."""
    texts = [t for _, t in corpus.split()[0]]
    texts.append(synth.Stream(4321).text(300_000))
    texts.append("".join(" " + w for w in synth.all_words() for _ in range(40)))
    return texts


def encode_split(tok):
    """Token ids of the training and validation parts; sources separated by EOT."""
    tr, va = corpus.split()
    join = lambda parts: [i for _, t in parts for i in tok.encode(t) + [tok.eot]]  # noqa: E731
    return torch.tensor(join(tr)), torch.tensor(join(va))


def common_tokens(ids, tok, n=1000):
    """The n most frequent training tokens that hold no line break: the
    alphabet of the synthetic copy sequences (and of the induction test)."""
    counts = torch.bincount(ids, minlength=len(tok.vocab))
    out = []
    for i in counts.argsort(descending=True).tolist():
        s = tok.inv[i]
        if i != tok.eot and "Ċ" not in s and "č" not in s:
            out.append(i)
        if len(out) == n:
            break
    return out


def copy_row(rng, alphabet, T):
    """A synthetic row: a random span of 8..min(64, T/3) common tokens
    repeated to fill T+1 positions (at least three copies). Targets of the
    first copy are masked (-100): they are unpredictable; every later token
    is a pure in-context copy."""
    n = rng.randint(8, min(64, T // 3))
    span = [rng.choice(alphabet) for _ in range(n)]
    row = (span * (T // n + 2))[: T + 1]
    x = torch.tensor(row[:-1])
    y = torch.tensor(row[1:])
    y[: n - 1] = -100
    return x, y


def synth_row(stream, tok, T):
    """T+1 tokens of synthetic stories (synth.Stream), from a story start."""
    ids = []
    while len(ids) < T + 1:
        ids += tok.encode(stream.text(T * 5))
    ids = torch.tensor(ids[: T + 1])
    return ids[:-1], ids[1:]


def batch(rng, data, T, B, alphabet, copy_share, stream=None, tok=None, synth_share=0.0):
    xs, ys = [], []
    for _ in range(B):
        if stream is not None and rng.random() < synth_share:
            x, y = synth_row(stream, tok, T)
        elif rng.random() < copy_share:
            x, y = copy_row(rng, alphabet, T)
        else:
            s = rng.randrange(0, len(data) - T - 1)
            x, y = data[s : s + T], data[s + 1 : s + T + 1]
        xs.append(x)
        ys.append(y)
    return torch.stack(xs), torch.stack(ys)


@torch.no_grad()
def val_loss(model, data, T, limit=0):
    """Mean next-token loss (nats) over the validation set (its first limit
    tokens when limit > 0), in non-overlapping windows of T (each window
    starts with an empty context)."""
    model.eval()
    if limit:
        data = data[: limit + 1]
    tot, n = 0.0, 0
    for s in range(0, len(data) - 1, T):
        x = data[s : s + T][None]
        y = data[s + 1 : s + T + 1][None]
        x = x[:, : y.shape[1]]
        loss = F.cross_entropy(model(x).flatten(0, 1), y.flatten(), reduction="sum")
        tot += loss.item()
        n += y.numel()
    model.train()
    return tot / n


@torch.no_grad()
def copy_accuracy(model, alphabet, L=25, trials=8):
    """Greedy accuracy over the second copy of L random common tokens (a
    fixed set of prompts, seed 7): the in-context copying eval.py reports."""
    model.eval()
    rng = random.Random(7)
    hit = n = 0
    for _ in range(trials):
        span = [rng.choice(alphabet) for _ in range(L)]
        pred = model(torch.tensor([span + span]))[0].argmax(-1)
        hit += sum(int(pred[L + j]) == span[j + 1] for j in range(L - 1))
        n += L - 1
    model.train()
    return hit / n


@torch.no_grad()
def retrieval_accuracy(model, tok, cases):
    """Greedy accuracy of the first token of the target word after each
    prompt (synth.eval_set / train_set): the purple-cat measure."""
    model.eval()
    hit = 0
    for prompt, target in cases:
        ids = tok.encode(prompt)
        want = tok.encode(target)[0]
        hit += int(model(torch.tensor([ids]))[0, -1].argmax()) == want
    model.train()
    return hit / len(cases)


def lr_at(step, steps, peak, warmup):
    """Linear warm-up, then cosine decay to 10 % of the peak."""
    if step < warmup:
        return peak * (step + 1) / warmup
    f = (step - warmup) / max(1, steps - warmup)
    return peak * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * f)))


def make_opt(model, lr, wd):
    """AdamW; no weight decay on norms and biases."""
    decay = [p for n, p in model.named_parameters() if p.dim() >= 2]
    rest = [p for n, p in model.named_parameters() if p.dim() < 2]
    groups = [{"params": decay, "weight_decay": wd}, {"params": rest, "weight_decay": 0.0}]
    return torch.optim.AdamW(groups, lr=lr, betas=(0.9, 0.95), eps=1e-8)


def step_once(model, opt, x, y, lr, copy=None):
    """One AdamW step on the text batch (x, y) plus, when given, a separate
    batch of short copy rows (the two mean losses are added)."""
    for g in opt.param_groups:
        g["lr"] = lr
    loss = F.cross_entropy(model(x).flatten(0, 1), y.flatten(), ignore_index=-100)
    if copy is not None:
        cx, cy = copy
        loss = loss + F.cross_entropy(model(cx).flatten(0, 1), cy.flatten(), ignore_index=-100)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    return loss.item()


def parse():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "out"))
    ap.add_argument("--vocab", type=int, default=8192)
    ap.add_argument("--synth-share", type=float, default=0.5, help="share of rows from synth.Stream")
    ap.add_argument("--stop-retrieval", type=float, default=0, help="stop when held-out retrieval reaches this twice (0: never)")
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--hidden", type=int, default=256)
    ap.add_argument("--intermediate", type=int, default=768)
    ap.add_argument("--heads", type=int, default=8)
    ap.add_argument("--kv-heads", type=int, default=2)
    ap.add_argument("--ctx", type=int, default=256)
    ap.add_argument("--max-pos", type=int, default=0, help="max_position_embeddings (0: --ctx); for a stage on shorter rows")
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--wd", type=float, default=0.1)
    ap.add_argument("--dropout", type=float, default=0.0)
    ap.add_argument("--copy-share", type=float, default=0.1)
    ap.add_argument("--save-last", action="store_true",
                    help="keep the final weights, not the best validation loss (copy fine-tuning)")
    ap.add_argument("--tokenizer", default="", help="use this tokenizer.json instead of training the BPE")
    ap.add_argument("--init-demo", default="", help="grow this exported model (smaller vocabulary, same layers)")
    ap.add_argument("--init", default="", help="start from this checkpoint's weights (same shape)")
    ap.add_argument("--copy-batch", type=int, default=0, help="extra copy rows per step, in their own batch")
    ap.add_argument("--copy-ctx", type=int, default=64, help="length of those rows")
    ap.add_argument("--steps", type=int, default=0, help="0: size from --minutes")
    ap.add_argument("--minutes", type=float, default=35)
    ap.add_argument("--eval-every", type=int, default=50)
    ap.add_argument("--val-tokens", type=int, default=8192, help="validation tokens per evaluation (0: all)")
    ap.add_argument("--max-minutes", type=float, default=0, help="wall-clock cap (0: none)")
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--probe", action="store_true", help="only measure throughput")
    return ap.parse_args()


def grow_from(model, folder, tok):
    """Starts from an exported model with a smaller vocabulary whose
    tokenizer's merges begin this one's (bpe.train's start): every layer
    is copied; embedding rows 0..V_old-2 are the same tokens, the old
    <|endoftext|> row moves to the new last id, and a new token's row is
    the mean of the rows of the two tokens its merge joins (in merge order,
    so both parts already have rows)."""
    from export import load_exported

    old = load_exported(folder)
    E_old = old.model.embed_tokens.weight.data  # [V_old, h]
    V_old = E_old.shape[0]
    state = {k: v for k, v in old.state_dict().items() if k != "model.embed_tokens.weight"}
    missing = model.load_state_dict(state, strict=False)
    assert missing.missing_keys == ["model.embed_tokens.weight"], missing
    E = model.model.embed_tokens.weight.data  # [V, h]
    E[: V_old - 1] = E_old[: V_old - 1]
    E[tok.eot] = E_old[V_old - 1]
    for s, i in sorted(tok.vocab.items(), key=lambda kv: kv[1]):
        if V_old - 1 <= i < tok.eot:
            a, b = tok.merge_of[s]
            E[i] = 0.5 * (E[tok.vocab[a]] + E[tok.vocab[b]])


def main():
    a = parse()
    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    rng = random.Random(a.seed)
    os.makedirs(a.out, exist_ok=True)

    tok_path = os.path.join(a.out, "tokenizer.json")
    if a.tokenizer:
        shutil.copyfile(a.tokenizer, tok_path)
    else:
        t0 = time.time()
        start = ()
        if a.init_demo:  # keep the old model's ids: its merges come first
            with open(os.path.join(a.init_demo, "tokenizer.json"), encoding="utf-8") as f:
                start = json.load(f)["model"]["merges"]
        vocab, merges = bpe.train(tokenizer_texts(), a.vocab, start)
        bpe.save(tok_path, vocab, merges)
        print(f"BPE: {time.time() - t0:.0f} s", flush=True)
    tok = bpe.Tokenizer.load(tok_path)
    split = [w for w in synth.all_words() if len(tok.encode(" " + w)) != 1]
    print(f"word-list words not one token: {split}", flush=True)
    train_ids, val_ids = encode_split(tok)
    alphabet = common_tokens(train_ids, tok)
    print(f"tokens: train {len(train_ids)}, val {len(val_ids)}", flush=True)

    c = Config(
        vocab_size=a.vocab, hidden_size=a.hidden, intermediate_size=a.intermediate,
        num_hidden_layers=a.layers, num_attention_heads=a.heads, num_key_value_heads=a.kv_heads,
        max_position_embeddings=a.max_pos or a.ctx, dropout=a.dropout,
    )
    model = Qwen2(c)
    if a.init:
        model.load_state_dict(torch.load(a.init, map_location="cpu")["state"])
        print(f"weights from {a.init}", flush=True)
    if a.init_demo:
        grow_from(model, a.init_demo, tok)
        print(f"weights from {a.init_demo}, vocabulary grown to {a.vocab}", flush=True)
    print(f"parameters: {model.num_params():,}", flush=True)
    opt = make_opt(model, a.lr, a.wd)

    steps = a.steps
    if not steps or a.probe:
        # The probe trains at lr 0 on a throw-away generator, so that the run
        # itself is the same whether or not it was sized by a probe.
        prng = random.Random(0)
        x, y = batch(prng, train_ids, a.ctx, a.batch, alphabet, a.copy_share)
        step_once(model, opt, x, y, 0.0)  # the first step is slower (allocation)
        t0 = time.time()
        for i in range(3):
            x, y = batch(prng, train_ids, a.ctx, a.batch, alphabet, a.copy_share)
            step_once(model, opt, x, y, 0.0)
        per = (time.time() - t0) / 3
        print(f"probe: {per:.2f} s/step, {a.batch * a.ctx / per:.0f} tokens/s", flush=True)
        if a.probe:
            return
        steps = int(a.minutes * 60 * 0.92 / per)
        opt = make_opt(model, a.lr, a.wd)  # fresh moments: the probe leaves no trace
    train(a, c, model, opt, rng, train_ids, val_ids, alphabet, steps, tok)


def train(a, c, model, opt, rng, train_ids, val_ids, alphabet, steps, tok):
    stream = synth.Stream(a.seed + 1)
    held, seen = synth.eval_set(100), synth.train_set(50)
    good = 0
    warmup = min(100, steps // 10)
    log = open(os.path.join(a.out, "log.jsonl"), "w")
    best = float("inf")
    t0 = time.time()
    run_loss = None
    for step in range(steps + 1):
        if step % a.eval_every == 0 or step == steps:
            vl = val_loss(model, val_ids, a.ctx, a.val_tokens)
            rec = {"step": step, "train_loss": run_loss, "val_loss": vl,
                   "copy_acc": copy_accuracy(model, alphabet),
                   "retrieval_held": retrieval_accuracy(model, tok, held),
                   "retrieval_train": retrieval_accuracy(model, tok, seen),
                   "tokens": step * a.batch * a.ctx, "seconds": round(time.time() - t0, 1)}
            log.write(json.dumps(rec) + "\n")
            log.flush()
            print(json.dumps(rec), flush=True)
            if vl < best or (a.save_last and step == steps):
                best = min(best, vl)
                save(a, c, model, step, vl, steps, time.time() - t0, train_ids, alphabet)
            if a.save_last:  # every evaluation: the run can be stopped at any time
                save(a, c, model, step, vl, steps, time.time() - t0, train_ids, alphabet, "last.pt")
            good = good + 1 if a.stop_retrieval and rec["retrieval_held"] >= a.stop_retrieval else 0
            if good >= 2:
                print(f"held-out retrieval {rec['retrieval_held']:.2f} twice: stop at step {step}", flush=True)
                break
        if step == steps:
            break
        if a.max_minutes and time.time() - t0 > a.max_minutes * 60:
            print(f"wall-clock cap reached at step {step} of {steps}", flush=True)
            vl = val_loss(model, val_ids, a.ctx, a.val_tokens)
            log.write(json.dumps({"step": step, "train_loss": run_loss, "val_loss": vl,
                                  "tokens": step * a.batch * a.ctx,
                                  "seconds": round(time.time() - t0, 1), "capped": True}) + "\n")
            if vl < best or a.save_last:
                save(a, c, model, step, vl, steps, time.time() - t0, train_ids, alphabet)
            break
        x, y = batch(rng, train_ids, a.ctx, a.batch, alphabet, a.copy_share, stream, tok, a.synth_share)
        copy = None
        if a.copy_batch:
            # Short rows, in their own batch: a toy 2-layer model learned to
            # copy within ~300 steps in 64-token rows but barely moved in
            # 256-token rows, and with 25 % copy rows among 256-token text
            # rows the copy accuracy was still 0 after 900 steps.
            copy = batch(rng, train_ids, a.copy_ctx, a.copy_batch, alphabet, 1.0)
        loss = step_once(model, opt, x, y, lr_at(step, steps, a.lr, warmup), copy)
        run_loss = loss if run_loss is None else 0.9 * run_loss + 0.1 * loss
        if step % 10 == 0:
            print(f"step {step} loss {loss:.3f} {time.time() - t0:.0f} s", flush=True)


def save(a, c, model, step, vl, steps, secs, train_ids, alphabet, name="ckpt.pt"):
    torch.save({
        "config": c.to_dict(), "state": model.state_dict(), "step": step, "val_loss": vl,
        "planned_steps": steps, "seconds": secs, "args": vars(a),
        "train_tokens": len(train_ids), "alphabet": alphabet,
        "torch": torch.__version__,
    }, os.path.join(a.out, name))


if __name__ == "__main__":
    main()
