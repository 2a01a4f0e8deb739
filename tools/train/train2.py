"""Fine-tunes the exported demo model for in-context retrieval (the purple-cat effect).

    /usr/bin/python3 tools/train/train2.py --init-exported assets/demo --steps 900 \
        --out tools/train/out/r3

Starts from an exported model folder (BF16 weights read back as float32:
the shipped model already copies, 98 %), and trains on short rows that hold
several synth2 stories each, with the answer words weighted (--answer-weight),
mixed with plain text rows (--text-share), a few copy rows and, every
--long-every steps, one 512-token text row so the long context stays
trained. The loss is computed on the answer positions and a random
--keep share of the others (the 8,192-wide output layer is ~40 % of a
step). Every --eval-every steps: validation text loss, copy accuracy, the
held-out generator set (synth2.eval_set) and the hand-written set
(heldout.txt, greedy continuation must start with the word); ckpt.pt is the
best hand-written + generator score, last.pt the latest.
"""

import argparse
import json
import math
import os
import random
import re
import sys
import time

for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
import bpe  # noqa: E402
import corpus  # noqa: E402
import synth2  # noqa: E402
from export import load_ckpt, load_exported  # noqa: E402
from train import common_tokens, copy_row, copy_accuracy, encode_split, lr_at, make_opt, val_loss  # noqa: E402
from model import Config, Qwen2, rope_tables  # noqa: E402

HERE = os.path.dirname(__file__)


def story_row(gen, tok, T, answer_weight, mask_setup=True):
    """T+1 ids of stories joined by a space or a line break, with a weight
    per target: answer_weight on the answer's tokens, 1 elsewhere."""
    ids, w = [], []
    first = True
    while len(ids) < T + 1:
        prompt, answer, tail = gen.story()
        sep = "" if first else gen.rng.choice([" ", "\n", "\n", "\n\n"])
        first = False
        a = tok.encode(sep + prompt)
        b = tok.encode(answer)
        c = tok.encode(tail)
        # weight of predicting token j sits at target index j-1; the word's
        # first appearance in the setup is unpredictable (any word of the
        # vocabulary): weight 0 there, so no prior over slot words is learned
        wa = [1.0] * len(a)
        if mask_setup:
            for i, t in enumerate(a):
                if t == b[0]:
                    wa[i] = 0.0
                    break
        ids += a + b + c
        w += wa + [answer_weight] * len(b) + [1.0] * len(c)
    ids = torch.tensor(ids[: T + 1])
    w = torch.tensor(w[1: T + 1])
    return ids[:-1], ids[1:], w


def text_row(rng, data, T, rep=None):
    s = rng.randrange(0, len(data) - T - 1)
    x, y = data[s: s + T], data[s + 1: s + T + 1]
    return x, y, torch.ones(T) if rep is None else repeat_weights(x, y, *rep)


def content_masks(tok):
    """Over the vocabulary: word starts (" Name", " purple", " G": a space
    and two or more letters or one capital, not a stop word) and word
    continuations ("elda")."""
    n = max(tok.inv) + 1
    start, cont = torch.zeros(n, dtype=torch.bool), torch.zeros(n, dtype=torch.bool)
    for i, s in tok.inv.items():
        if re.fullmatch(r"Ġ([A-Za-z]{2,}|[A-Z])", s) and s[1:].lower() not in synth2.STOP:
            start[i] = True
        elif re.fullmatch(r"[a-z]+", s):
            cont[i] = True
    return start, cont


def repeat_weights(x, y, weight, start, cont):
    """Stage 14: weight on the targets of a plain-text row that repeat a
    content word already in the row: a word start y[j] seen in x[:j+1], or
    a continuation y[j] that followed x[j] before (the next piece of a
    repeated word of several tokens). In-context retrieval on real text,
    with its own variety of wording, instead of templates only."""
    T = len(y)
    before = torch.ones(T, T, dtype=torch.bool).tril()            # i <= j
    uni = ((x[None, :] == y[:, None]) & before).any(1)
    prev_same = (x[None, :] == x[:, None]) & before.tril(-1)      # x[i] == x[j], i < j
    nxt = torch.cat([x[1:], x.new_full((1,), -1)])                # x[i+1]
    bi = (prev_same & (nxt[None, :] == y[:, None])).any(1)
    rep = (start[y] & uni) | (cont[y] & bi)
    return 1.0 + (weight - 1.0) * rep.float()


def hidden(model, ids):
    """Final normed hidden states [B, T, h] (model.forward without the head)."""
    c = model.config
    cos, sin = rope_tables(ids.shape[1], c.head_dim, c.rope_theta, ids.device)
    x = model.model.embed_tokens(ids)
    for layer in model.model.layers:
        x, _ = layer(x, cos, sin)
    return model.model.norm(x)


def weighted_loss(model, x, y, w, keep, rng_t):
    """Weighted cross-entropy over the answer positions (weight > 1) and a
    random share keep of the others; the head runs only on those rows."""
    h = hidden(model, x)
    sel = (w > 1) | (torch.rand(w.shape, generator=rng_t) < keep)
    sel &= y >= 0
    logits = h[sel] @ model.model.embed_tokens.weight.t()
    ce = F.cross_entropy(logits, y[sel], reduction="none")
    ww = w[sel]
    return (ce * ww).sum() / ww.sum()


@torch.no_grad()
def greedy_starts(model, tok, cases):
    """Share of (prompt, word) whose greedy continuation starts with word
    (as many tokens generated as the word has), and the misses."""
    model.eval()
    hit, miss = 0, []
    for prompt, word in cases:
        ids = tok.encode(prompt)
        n = len(tok.encode(word))
        out = []
        for _ in range(n):
            nxt = int(model(torch.tensor([ids + out]))[0, -1].argmax())
            out.append(nxt)
        got = tok.decode(out)
        if got.startswith(word):
            hit += 1
        else:
            miss.append((prompt[-40:], word, got))
    model.train()
    return hit / len(cases), miss


def grown(model, layout):
    """A deeper copy of model: layout names each new layer, a digit for the old
    layer it copies or "n" for a new one. A new layer starts as the identity
    (its o_proj and down_proj are zero, so it adds nothing to the residual
    stream) and learns from there: the grown model's first step computes
    exactly what the old one did, and its fetch heads are kept."""
    c = Config(**{**model.config.to_dict(), "num_hidden_layers": len(layout)})
    big = Qwen2(c)
    for i, k in enumerate(layout):
        if k == "n":
            torch.nn.init.zeros_(big.model.layers[i].self_attn.o_proj.weight)
            torch.nn.init.zeros_(big.model.layers[i].mlp.down_proj.weight)
        else:
            big.model.layers[i].load_state_dict(model.model.layers[int(k)].state_dict())
    big.model.embed_tokens.load_state_dict(model.model.embed_tokens.state_dict())
    big.model.norm.load_state_dict(model.model.norm.state_dict())
    return big


def parse():
    ap = argparse.ArgumentParser()
    ap.add_argument("--init-exported", default="assets/demo")
    ap.add_argument("--init", default="", help="a train2 checkpoint instead")
    ap.add_argument("--out", default=os.path.join(HERE, "out", "r3"))
    ap.add_argument("--steps", type=int, default=900)
    ap.add_argument("--rows", type=int, default=24)
    ap.add_argument("--ctx", type=int, default=96)
    ap.add_argument("--text-share", type=float, default=0.3)
    ap.add_argument("--copy-rows", type=int, default=8)
    ap.add_argument("--copy-ctx", type=int, default=64)
    ap.add_argument("--long-every", type=int, default=4)
    ap.add_argument("--answer-weight", type=float, default=5.0)
    ap.add_argument("--mask-setup", type=int, default=1, help="weight 0 on the slot word's first appearance")
    ap.add_argument("--keep", type=float, default=0.5)
    ap.add_argument("--frame-share", type=float, default=0.0, help="call-backs cut from the training text")
    ap.add_argument("--vocab-share", type=float, default=0.5)
    ap.add_argument("--multi-share", type=float, default=0.1)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--warmup", type=int, default=30)
    ap.add_argument("--wd", type=float, default=0.1)
    ap.add_argument("--eval-every", type=int, default=50)
    ap.add_argument("--max-minutes", type=float, default=0)
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--modern", type=int, default=0, help="1: add synth2's training-only modern parts")
    ap.add_argument("--roles", default="AAANNP", help="role mix of the stories (A attribute, N object, P name)")
    ap.add_argument("--synth", type=int, default=2, help="3: synth3's WordNet words, setups and call-backs")
    ap.add_argument("--natural-share", type=float, default=0.4, help="synth3: stories with a WordNet setup")
    ap.add_argument("--class-share", type=float, default=0.4, help="synth3: slot words from WordNet's classes")
    ap.add_argument("--degree-share", type=float, default=0.1, help="synth3: predicate call-backs with a degree word")
    ap.add_argument("--other-share", type=float, default=0.0,
                    help="synth3: stories whose setup subject or second name is a distractor (stage 8)")
    ap.add_argument("--other-roles", default="AAPPI", help="synth3: mix of the distractor stories (T: titles, stage 9)")
    ap.add_argument("--has-share", type=float, default=0.0, help="synth3: stories where the attribute is the subject's part (stage 10)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--contrast-share", type=float, default=0.0,
                    help="synth3: call-backs with the other role's verbs (stage 13)")
    ap.add_argument("--repeat-weight", type=float, default=0.0,
                    help="stage 14: weight on plain-text targets that repeat a content word of the row (0: off)")
    ap.add_argument("--grow", default="", help='deeper model, e.g. "0n1n2n3n": old layer or n (new, identity at first)')
    return ap.parse_args()


def main():
    a = parse()
    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    rng = random.Random(a.seed)
    rng_t = torch.Generator().manual_seed(a.seed)
    os.makedirs(a.out, exist_ok=True)
    tok = bpe.Tokenizer.load(os.path.join(a.init_exported, "tokenizer.json"))
    model = load_exported(a.init_exported)
    if a.init:
        model, _ = load_ckpt(a.init)  # its own config: a grown model resumes as grown
        print(f"weights from {a.init}", flush=True)
    if a.grow:
        model = grown(model, a.grow)
        print(f"grown to {len(a.grow)} layers ({a.grow}), {model.num_params()} parameters", flush=True)
    model.train()
    train_ids, val_ids = encode_split(tok)
    alphabet = common_tokens(train_ids, tok)
    # Copy rows over the whole vocabulary: with the 1,000 most frequent tokens
    # only (train.py), the shipped model copied those at 98 % but tokens of
    # frequency rank 1,000-6,000 at 1-3 %: copying was memorised per token,
    # and a rare word (" purple") could not be fetched.
    every = [i for i in range(len(tok.vocab)) if i != tok.eot and "Ċ" not in tok.inv[i] and "č" not in tok.inv[i]]
    words_all = [i for i in every if re.fullmatch(r"Ġ[A-Za-z]+", tok.inv[i])]
    synth2.MODERN, synth2.ROLES = bool(a.modern), a.roles
    lines = synth2.sentence_lines([t for _, t in corpus.split()[0]], random.Random(5))
    texts = [t for _, t in corpus.split()[0]]
    frames = synth2.corpus_frames(texts, random.Random(3)) if a.frame_share else None
    if a.synth == 3:
        import synth3
        gen = synth3.Gen(tok, seed=a.seed + 1, natural_share=a.natural_share, class_share=a.class_share,
                         degree_share=a.degree_share, other_share=a.other_share,
                         other_roles=a.other_roles, has_share=a.has_share, contrast_share=a.contrast_share, vocab_share=a.vocab_share, multi_share=a.multi_share,
                         lines=lines, frames=frames, frame_share=a.frame_share)
    else:
        gen = synth2.Gen(tok, held=False, seed=a.seed + 1, vocab_share=a.vocab_share,
                         multi_share=a.multi_share, lines=lines, frames=frames, frame_share=a.frame_share)
    rep = (a.repeat_weight, *content_masks(tok)) if a.repeat_weight else None
    held = synth2.eval_set(tok, 200)
    probe = synth2.train_probe(tok, 60)
    hand = synth2.read_heldout(os.path.join(HERE, "heldout.txt"))
    opt = make_opt(model, a.lr, a.wd)
    log = open(os.path.join(a.out, "log.jsonl"), "w")
    best, run = -1.0, None
    t0 = time.time()
    for step in range(a.steps + 1):
        capped = a.max_minutes and time.time() - t0 > a.max_minutes * 60
        if step % a.eval_every == 0 or step == a.steps or capped:
            vl = val_loss(model, val_ids, 512, 8192)
            hh, miss = greedy_starts(model, tok, hand)
            gh, _ = greedy_starts(model, tok, held)
            gt, _ = greedy_starts(model, tok, probe)
            rec = {"step": step, "train_loss": run, "val_loss": vl, "copy_acc": copy_accuracy(model, alphabet),
                   "copy_words": copy_accuracy(model, words_all),
                   "hand": hh, "gen_held": gh, "gen_train": gt, "seconds": round(time.time() - t0, 1),
                   "lr": lr_at(step, a.steps, a.lr, a.warmup)}
            log.write(json.dumps(rec) + "\n")
            log.flush()
            print(json.dumps(rec), flush=True)
            print("  misses:", miss[:8], flush=True)
            state = {"state": model.state_dict(), "step": step, "rec": rec, "args": vars(a),
                     "config": model.config.to_dict(), "alphabet": alphabet}
            torch.save(state, os.path.join(a.out, "last.pt"))
            score = hh + 0.5 * gh
            if score > best:
                best = score
                torch.save(state, os.path.join(a.out, "ckpt.pt"))
        if step == a.steps or capped:
            break
        for g in opt.param_groups:
            g["lr"] = lr_at(step, a.steps, a.lr, a.warmup)
        xs, ys, ws = [], [], []
        for _ in range(a.rows):
            if rng.random() < a.text_share:
                x, y, w = text_row(rng, train_ids, a.ctx, rep)
            else:
                x, y, w = story_row(gen, tok, a.ctx, a.answer_weight, a.mask_setup)
            xs.append(x), ys.append(y), ws.append(w)
        loss = weighted_loss(model, torch.stack(xs), torch.stack(ys), torch.stack(ws), a.keep, rng_t)
        if a.copy_rows:
            cs = [copy_row(rng, every if rng.random() < 0.5 else words_all, a.copy_ctx) for _ in range(a.copy_rows)]
            cx, cy = torch.stack([c[0] for c in cs]), torch.stack([c[1] for c in cs])
            loss = loss + weighted_loss(model, cx, cy, torch.ones(cy.shape), 1.0, rng_t)
        if a.long_every and step % a.long_every == 0:
            x, y, w = text_row(rng, train_ids, 512, rep)
            loss = loss + 0.5 * weighted_loss(model, x[None], y[None], w[None], a.keep, rng_t)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        run = loss.item() if run is None else 0.95 * run + 0.05 * loss.item()
        if step % 10 == 0:
            print(f"step {step} loss {loss.item():.3f} run {run:.3f} {time.time() - t0:.0f} s", flush=True)


if __name__ == "__main__":
    main()
