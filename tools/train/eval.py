"""Evaluates the exported demo model and writes the reference for the Go engine.

    /usr/bin/python3 tools/train/eval.py --model assets/demo

Everything is computed from model.safetensors as shipped (BF16 weights
widened to float32, float32 arithmetic), never from the training
checkpoint. Writes tools/train/eval.json (figures + samples),
tools/train/loss.png (from out/log.jsonl) and testdata/demo-reference.json.
"""

import argparse
import json
import math
import os
import random
import re
import sys

for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")  # see train.py: one thread is faster here

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
import bpe  # noqa: E402
import corpus  # noqa: E402
from export import load_exported  # noqa: E402
import synth  # noqa: E402
import synth2  # noqa: E402
from train import common_tokens  # noqa: E402

ARTICLE = "My cat is purple. But my friends tell me there is no such thing as a"

REFERENCE_PROMPTS = [
    ARTICLE,
    "The gold-bug",
    "KING RICHARD III:\nNow is the winter of our discontent",
    None,  # the repeated-sequence prompt, built from the tokenizer
]


@torch.no_grad()
def text_loss(model, ids, T):
    """Summed next-token loss (nats) and count over windows of T tokens."""
    tot, n = 0.0, 0
    for s in range(0, len(ids) - 1, T):
        x = ids[s : s + T][None]
        y = ids[s + 1 : s + T + 1][None]
        x = x[:, : y.shape[1]]
        tot += F.cross_entropy(model(x).flatten(0, 1), y.flatten(), reduction="sum").item()
        n += y.numel()
    return tot, n


def unigram(train_ids, val_ids, V):
    """Entropy of the validation unigram distribution, and the cross-entropy
    of the (add-one smoothed) training unigram on validation, nats/token."""
    cv = torch.bincount(val_ids, minlength=V).double()
    pv = cv / cv.sum()
    ent = -(pv[pv > 0] * pv[pv > 0].log()).sum().item()
    ct = torch.bincount(train_ids, minlength=V).double() + 1
    pt = ct / ct.sum()
    xent = -(pv * pt.log()).sum().item()
    return ent, xent


@torch.no_grad()
def generate(model, ids, n, eot, temperature=0.0, top_k=0, rng=None):
    """n tokens by full re-computation (no cache); stops after eot."""
    ids = list(ids)
    out = []
    for _ in range(n):
        z = model(torch.tensor([ids]))[0, -1].float()
        if temperature == 0:
            t = int(z.argmax())
        else:
            z = z / temperature
            if top_k:
                kth = z.topk(top_k).values[-1]
                z = z.masked_fill(z < kth, float("-inf"))
            p = F.softmax(z, -1).double().numpy()
            t = int(rng.choices(range(len(p)), weights=p)[0])
        ids.append(t)
        out.append(t)
        if t == eot:
            break
    return out


def is_word(tok, i):
    """A " word" token that encodes back to itself: a sequence of such
    tokens is a text whose encoding is exactly that sequence."""
    s = tok.inv[i]
    return s.startswith("Ġ") and len(s) >= 4 and s[1:].isalpha() and tok.encode(tok.decode([i])) == [i]


def copy_prompt(rng, alphabet, L):
    span = [rng.choice(alphabet) for _ in range(L)]
    return span + span


@torch.no_grad()
def induction(model, alphabet, trials=40, L=25, seed=7):
    """Greedy copy accuracy over the 2nd repetition, and per-head induction
    score: mean attention from position L+j (token span[j]) to j+1, the
    token after that token's first occurrence."""
    rng = random.Random(seed)
    c = model.config
    score = torch.zeros(c.num_hidden_layers, c.num_attention_heads)
    prev = torch.zeros(c.num_hidden_layers, c.num_attention_heads)
    hit = n = 0
    for _ in range(trials):
        ids = copy_prompt(rng, alphabet, L)
        logits, probs = model(torch.tensor([ids]), want_probs=True)
        pred = logits[0].argmax(-1)
        for j in range(L - 1):  # position L+j predicts span[j+1]
            hit += int(pred[L + j] == ids[j + 1])
            n += 1
        q = torch.arange(L, 2 * L - 1)
        for li, p in enumerate(probs):  # p [1, H, T, T]
            score[li] += p[0][:, q, q - L + 1].mean(-1)
            prev[li] += p[0][:, q, q - 1].mean(-1)
    return hit / n, (score / trials).tolist(), (prev / trials).tolist()


@torch.no_grad()
def reference_entry(model, tok, prompt_ids, text):
    z = model(torch.tensor([prompt_ids]))[0, -1].float()
    p = F.softmax(z, -1)
    top = p.topk(10)
    greedy, margins, ids = [], [], list(prompt_ids)
    for _ in range(20):
        zz = model(torch.tensor([ids]))[0, -1].float()
        t2 = zz.topk(2)
        margins.append(float(t2.values[0] - t2.values[1]))
        t = int(t2.indices[0])
        greedy.append(t)
        ids.append(t)
        if t == tok.eot:
            break
    return {
        "prompt": text,
        "prompt_ids": prompt_ids,
        "top10_ids": top.indices.tolist(),
        "top10_probs": [float(v) for v in top.values],
        "greedy_ids": greedy,
        "greedy_text": tok.decode(greedy),
        "greedy_min_logit_margin": min(margins),
    }


def kind_of(target):
    """adjective, noun or name: the word list the target comes from."""
    ls = synth.lists()["held"]
    w = target.strip()
    return "adjective" if w in ls["A"] else "noun" if w in ls["N"] else "name"


@torch.no_grad()
def retrieval(model, tok, cases, prefix=()):
    """Greedy retrieval accuracy (the first generated token is the target
    word) and, per head, the mean attention from the last prompt position
    (the token that must be followed by the word) to the earlier
    occurrence of the word: the heads that fetch it. prefix: token ids put
    before every prompt (a longer context)."""
    c = model.config
    fetch = torch.zeros(c.num_hidden_layers, c.num_attention_heads)
    hit, by_kind, misses, n_src = 0, {}, [], 0
    for prompt, target in cases:
        ids = list(prefix) + tok.encode(prompt)
        want = tok.encode(target)
        assert len(want) == 1, f"{target!r} is not one token"
        logits, probs = model(torch.tensor([ids]), want_probs=True)
        ok = int(logits[0, -1].argmax()) == want[0]
        hit += ok
        k = by_kind.setdefault(kind_of(target), [0, 0])
        k[0] += ok
        k[1] += 1
        if not ok and len(misses) < 12:
            misses.append({"prompt": prompt, "target": target,
                           "got": tok.decode([int(logits[0, -1].argmax())])})
        src = [i for i, t in enumerate(ids) if t == want[0] and i >= len(prefix)]
        if src:
            n_src += 1
            for li, p in enumerate(probs):  # p [1, H, T, T]
                fetch[li] += p[0][:, -1, src[-1]]
    return {
        "accuracy": hit / len(cases), "prompts": len(cases),
        "by_kind": {k: {"accuracy": v[0] / v[1], "prompts": v[1]} for k, v in sorted(by_kind.items())},
        "fetch_score": (fetch / max(1, n_src)).tolist(), "misses": misses,
    }


@torch.no_grad()
def retrieval2(model, tok, cases):
    """The purple-cat check on (prompt, word, kind): the greedy
    continuation must start with word (as many tokens generated as the
    word has, so a word of several tokens counts when all come out), and
    per head the mean attention from the last prompt position to the
    word's last earlier occurrence (its first token): the heads that
    fetch it."""
    c = model.config
    fetch = torch.zeros(c.num_hidden_layers, c.num_attention_heads)
    hit, by_kind, misses, n_src = 0, {}, [], 0
    for prompt, word, kind in cases:
        ids = tok.encode(prompt)
        want = tok.encode(word)
        logits, probs = model(torch.tensor([ids]), want_probs=True)
        out = generate(model, ids, len(want), tok.eot)
        got = tok.decode(out)
        ok = got.startswith(word)
        hit += ok
        k = by_kind.setdefault(kind, [0, 0])
        k[0] += ok
        k[1] += 1
        if not ok and len(misses) < 40:
            misses.append({"prompt": prompt, "target": word, "got": got})
        src = [i for i, t in enumerate(ids) if t == want[0]]
        if src:
            n_src += 1
            for li, p in enumerate(probs):  # p [1, H, T, T]
                fetch[li] += p[0][:, -1, src[-1]]
    return {
        "accuracy": hit / len(cases), "prompts": len(cases), "hits": hit,
        "by_kind": {k: {"accuracy": v[0] / v[1], "prompts": v[1]} for k, v in sorted(by_kind.items())},
        "fetch_score": (fetch / max(1, n_src)).tolist(), "misses": misses,
    }


def hand_cases(tok, name="heldout.txt"):
    """heldout.txt (or heldout2.txt) as (sentence, word, kind): capitalised
    words are names, words of the adjective lists adjectives, the rest objects."""
    adj = set(synth.COLOURS + synth.ADJECTIVES + synth2.MORE_ADJ)
    out = []
    for s, w in synth2.read_heldout(os.path.join(HERE, name)):
        kind = "name" if w[1].isupper() else "adjective" if w.strip() in adj else "noun"
        out.append((s, w, kind))
    return out


def top_heads(score, n=5):
    """[(score, layer, head)] best first, 0-based."""
    return sorted(((s, l, h) for l, row in enumerate(score) for h, s in enumerate(row)), reverse=True)[:n]


def head_names(score, n=5):
    return [{"layer": l, "head": h, "layer_1based": l + 1, "head_1based": h + 1, "score": round(s, 3)}
            for s, l, h in top_heads(score, n)]


@torch.no_grad()
def article(model, tok):
    """The article's prompt: top-5 next tokens and 12 greedy tokens."""
    ids = tok.encode(ARTICLE)
    p = F.softmax(model(torch.tensor([ids]))[0, -1].float(), -1)
    top = p.topk(5)
    g = generate(model, ids, 12, tok.eot)
    return {"prompt": ARTICLE, "top5": [[tok.decode([int(i)]), round(float(v), 4)]
                                        for v, i in zip(top.values, top.indices)],
            "greedy": tok.decode(g)}


def compact_json(v):
    """Indented JSON with every list of numbers on one line."""
    s = json.dumps(v, indent=1)
    return re.sub(r"\[\s*([-0-9.e,\s]*?)\s*\]", lambda m: "[" + re.sub(r"\s+", " ", m.group(1)) + "]", s) + "\n"


def write_reference(path, model, tok, alphabet, va):
    """testdata/demo-reference.json: 3 generation cases and, for the
    tokenizer, the ids of 300 validation lines (rank-based BPE in bpe.py)."""
    rng = random.Random(11)
    ref = []
    for text in REFERENCE_PROMPTS:
        if text is None:
            words = [i for i in alphabet[:400] if is_word(tok, i)]
            ids = copy_prompt(rng, words, 12)
            ids = ids + ids[:4]  # two full copies, then the start of a third
            text = tok.decode(ids)
            assert tok.encode(text) == ids, "the copy prompt must round-trip"
        else:
            ids = tok.encode(text)
        ref.append(reference_entry(model, tok, ids, text))
    lines = [l for _, t in va for l in t.splitlines(keepends=True) if l.strip()]
    lines = lines[:: max(1, len(lines) // 300)][:300]
    with open(path, "w") as f:
        f.write(compact_json({
            "model": "assets/demo",
            "how": "tools/train/eval.py: PyTorch float32 forward from the BF16 weights of "
                   "model.safetensors; probabilities = softmax over all logits of the last "
                   "prompt position; greedy = argmax with full recomputation, stopping after eos",
            "cases": ref,
            "tokenize": [{"text": l, "ids": tok.encode(l)} for l in lines],
        }))


def loss_plot(log_paths, png):
    """Train and validation loss over the text tokens seen, stages end to
    end (each stage's log starts at 0 tokens), stage starts marked."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    recs, offset, starts = [], 0, []
    for p in log_paths:
        stage = [json.loads(l) for l in open(p)]
        if recs:
            stage = stage[1:]  # its step 0 repeats the previous stage's end
        starts.append(offset / 1e6)
        for r in stage:
            r["tokens"] += offset
        recs += stage
        offset = recs[-1]["tokens"]
    fig, ax = plt.subplots(figsize=(7, 4), dpi=100)
    for x in starts[1:]:
        ax.axvline(x, color="grey", lw=0.8, ls=":")
    tr = [(r["tokens"] / 1e6, r["train_loss"]) for r in recs if r["train_loss"] is not None]
    ax.plot(*zip(*tr), label="train (EMA of batch loss: text/story rows + copy batch)")
    ax.plot([r["tokens"] / 1e6 for r in recs], [r["val_loss"] for r in recs], "o-", ms=3,
            label="validation (first 8,192 tokens)")
    ax.set_xlabel("training tokens (millions)")
    ax.set_ylabel("loss (nats / token)")
    ax.set_ylim(3, 11)
    ax.set_title("Loupe demo model (Qwen2, 4 layers, text + retrieval stories + copy rows)")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(png)


def loss_plot2(log_paths, png):
    """train2.py logs (stages end to end by step): losses on the left axis,
    the two held-out retrieval figures (hand-written, synth2) on the right."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    recs, offset, starts = [], 0, []
    for p in log_paths:
        stage = [json.loads(l) for l in open(p)]
        if recs:
            stage = stage[1:]
        starts.append(offset)
        for r in stage:
            r["step"] += offset
        recs += stage
        offset = recs[-1]["step"]
    fig, ax = plt.subplots(figsize=(7.5, 4), dpi=100)
    for x in starts[1:]:
        ax.axvline(x, color="grey", lw=0.8, ls=":")
    tr = [(r["step"], r["train_loss"]) for r in recs if r["train_loss"] is not None]
    ax.plot(*zip(*tr), color="C0", label="train (EMA; answers weighted)")
    ax.plot([r["step"] for r in recs], [r["val_loss"] for r in recs], "o-", ms=3, color="C1",
            label="validation text (first 8,192 tokens)")
    ax.set_xlabel("step (stages end to end, dotted: a new stage; each step 24 rows of 96 tokens + copy rows)")
    ax.set_ylabel("loss (nats / token)")
    ax.set_ylim(2, 10)
    ax2 = ax.twinx()
    ax2.plot([r["step"] for r in recs], [100 * r["hand"] for r in recs], "s-", ms=3, color="C2",
             label="hand-written held-out (%)")
    ax2.plot([r["step"] for r in recs], [100 * r["gen_held"] for r in recs], "^-", ms=3, color="C3",
             label="generator held-out (%)")
    ax2.set_ylabel("retrieval accuracy (%)")
    ax2.set_ylim(0, 100)
    h1, l1 = ax.get_legend_handles_labels()
    h2, l2 = ax2.get_legend_handles_labels()
    ax.legend(h1 + h2, l1 + l2, loc="upper left", fontsize=8)
    ax.set_title("Loupe demo model: retrieval fine-tuning (train2.py)")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(png)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default=os.path.join(ROOT, "assets", "demo"))
    ap.add_argument("--log", action="append", help="training log(s), one per stage, in order")
    ap.add_argument("--reference", default=os.path.join(ROOT, "testdata", "demo-reference.json"))
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--reference-only", action="store_true")
    ap.add_argument("--log2", action="append", help="train2.py log(s), one per stage, in order")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    model = load_exported(a.model)
    tok = bpe.Tokenizer.load(os.path.join(a.model, "tokenizer.json"))
    T = model.config.max_position_embeddings
    tr, va = corpus.split()
    train_ids = torch.tensor([i for _, t in tr for i in tok.encode(t) + [tok.eot]])
    val_ids = torch.tensor([i for _, t in va for i in tok.encode(t) + [tok.eot]])
    alphabet = common_tokens(train_ids, tok)
    write_reference(a.reference, model, tok, alphabet, va)
    if a.reference_only:
        return
    val_bytes = sum(len(t.encode("utf-8")) for _, t in va)
    nats, n = text_loss(model, val_ids, T)
    ent, xent = unigram(train_ids, val_ids, model.config.vocab_size)
    bpb = lambda nats_per_tok: nats_per_tok * n / val_bytes / math.log(2)  # noqa: E731
    acc, ind, prev = induction(model, alphabet)
    # the same over every whole-word token of the vocabulary (rare ones too)
    words_all = [i for i in range(len(tok.vocab)) if re.fullmatch(r"Ġ[A-Za-z]+", tok.inv[i])]
    acc_all = induction(model, words_all)[0]
    hand = retrieval2(model, tok, hand_cases(tok))
    # the later hand-written sets (heldout2..9.txt; what each was used for: README.md)
    later = {k: retrieval2(model, tok, hand_cases(tok, f"heldout{k}.txt")) for k in (2, 3, 4, 5, 6, 7, 8, 9)}
    gen_held = retrieval2(model, tok, synth2.eval_cases(tok, 300))
    held = retrieval(model, tok, synth.eval_set(300))  # the earlier models' measure
    seen = retrieval(model, tok, synth.train_set(132))
    prefix = val_ids[:300].tolist()  # 300 tokens of unseen Shakespeare before each prompt
    longer = retrieval(model, tok, synth.eval_set(60, seed=99), prefix)
    res = {
        "parameters": model.num_params(),
        "val_tokens": n, "val_bytes": val_bytes,
        "val_loss_nats": nats / n, "val_bits_per_byte": bpb(nats / n),
        "unigram_entropy_nats": ent, "unigram_entropy_bits_per_byte": bpb(ent),
        "train_unigram_xent_nats": xent, "train_unigram_xent_bits_per_byte": bpb(xent),
        "induction_accuracy": acc, "induction_accuracy_all_words": acc_all, "induction_score": ind, "previous_token_score": prev,
        "induction_heads": head_names(ind), "previous_token_heads": head_names(prev),
        "retrieval_handwritten_accuracy": hand["accuracy"],
        "retrieval_handwritten": hand,
        "retrieval_heads": head_names(hand["fetch_score"]),
        **{key: v for k, h in later.items() for key, v in (
            (f"retrieval_handwritten{k}_accuracy", h["accuracy"]), (f"retrieval_handwritten{k}", h),
            (f"retrieval_heads_handwritten{k}", head_names(h["fetch_score"])))},
        "retrieval_synth2_heldout_accuracy": gen_held["accuracy"],
        "retrieval_synth2_heldout": gen_held,
        "retrieval_synth2_heads": head_names(gen_held["fetch_score"]),
        "retrieval_heldout_accuracy": held["accuracy"],
        "retrieval_heldout": held,
        "retrieval_train_templates_accuracy": seen["accuracy"],
        "retrieval_after_300_tokens_accuracy": longer["accuracy"],
        "retrieval_after_300_tokens": longer,
        "article": article(model, tok),
        "heldout_words": synth.lists()["held"],
    }
    res["samples"] = samples(model, tok)
    with open(os.path.join(HERE, "eval.json"), "w") as f:
        json.dump(res, f, indent=1)
        f.write("\n")
    if a.log:
        loss_plot(a.log, os.path.join(HERE, "loss.png"))
    if a.log2:
        loss_plot2(a.log2, os.path.join(HERE, "loss.png"))
    summary = {k: v for k, v in res.items() if not isinstance(v, (list, dict))}
    print(json.dumps(summary, indent=1))
    for name, sc in (("induction", ind), ("previous-token", prev), ("retrieval (hand-written)", hand["fetch_score"]),
                     ("retrieval (synth2 held-out)", gen_held["fetch_score"])):
        print(f"top {name} heads (score, layer, head; 0-based):",
              [(round(s, 3), l, h) for s, l, h in top_heads(sc)])
    print("hand-written retrieval by kind:", hand["by_kind"])
    for k, h in later.items():
        print(f"hand-written set {k} retrieval by kind:", h["by_kind"])
    print("synth2 held-out retrieval by kind:", gen_held["by_kind"])
    for m in hand["misses"]:
        print("  miss:", m)
    print("article:", res["article"])


SAMPLE_PROMPTS = [
    ARTICLE,
    "The gold-bug",
    "Words: moon sword night horse ship crown dog silver queen skull beetle key paper gold. Words: moon sword night horse",
    "KING RICHARD III:\nNow is the winter of our discontent",
    "ROMEO:\nBut soft, what light",
    "I had been walking for some time along the beach, when",
]


def samples(model, tok):
    rng = random.Random(5)
    out = []
    for p in SAMPLE_PROMPTS:
        ids = tok.encode(p)
        g = generate(model, ids, 60, tok.eot)
        s = generate(model, ids, 60, tok.eot, temperature=0.8, top_k=40, rng=rng)
        out.append({"prompt": p, "greedy": tok.decode(g), "sampled_t0.8_k40": tok.decode(s)})
        print(f"--- {p!r}\ngreedy : {tok.decode(g)!r}\nsampled: {tok.decode(s)!r}", flush=True)
    return out


if __name__ == "__main__":
    main()
