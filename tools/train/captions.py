"""The figures behind the demo prompts' captions (assets/demo.go): for each
prompt, the greedy next token and its probability, and per head of every
layer the attention from the last position to the word the caption names
(layers and heads 1-based, as the attention panel shows them).

    /usr/bin/python3 tools/train/captions.py [--model assets/demo]
"""

import argparse
import os
import sys

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bpe  # noqa: E402
from eval import load_exported  # noqa: E402

LIST = (" could Lord hence head could fear nothing know let till about doth could Lord hence head could fear"
        " nothing know let till about doth could Lord hence head")
PROMPTS = [  # (prompt, word the caption says is looked at; None: the token after the earlier copy)
    ("My cat is purple. But my friends tell me there is no such thing as a", " purple"),
    ("The dragon was golden. Everyone in the village came to see the", " golden"),
    ("My neighbour is called Martha. Every morning I say hello to", " Martha"),
    ("I lost my keys this morning. I looked in every pocket but I could not find my", " keys"),
    (LIST, None),
]


@torch.no_grad()
def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default=os.path.join(HERE, "..", "..", "assets", "demo"))
    a = ap.parse_args()
    torch.set_num_threads(1)
    model = load_exported(a.model)
    tok = bpe.Tokenizer.load(os.path.join(a.model, "tokenizer.json"))
    for prompt, word in PROMPTS:
        ids = tok.encode(prompt)
        logits, probs = model(torch.tensor([ids]), want_probs=True)
        p = F.softmax(logits[0, -1].float(), -1)
        top = p.topk(3)
        if word is None:  # induction: the position after the last earlier copy of the last token
            src = max(i for i in range(len(ids) - 1) if ids[i] == ids[-1]) + 1
        else:
            src = max(i for i, t in enumerate(ids) if t == tok.encode(word)[0])
        print(repr(prompt[-50:]), "->", [(tok.decode([int(i)]), round(float(v), 3)) for v, i in zip(top.values, top.indices)])
        print("   source", repr(tok.decode([ids[src]])))
        for li, pr in enumerate(probs):
            att = pr[0][:, -1, src].tolist()
            print(f"   layer {li + 1}:", " ".join(f"h{h + 1} {x:.2f}" for h, x in enumerate(att)))


if __name__ == "__main__":
    main()
