"""The demo model's corpus: public-domain texts from testdata/texts.

Each source is split into a training part and a validation part: the last
5 % of its characters, cut at a line (or word) start. The
validation chunks are contiguous, so the validation loss measures text the
model has never seen rather than shuffled neighbours of training lines.
"""

import os
import re

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
TEXTS = os.path.join(ROOT, "testdata", "texts")
VAL_FRACTION = 0.05

# assets/texts/gold-bug-passage.txt is a cut of gold-bug.txt (no duplicates).
SOURCES = [
    "tinyshakespeare.txt",
    "gold-bug.txt",
    "poe/four-beasts-in-one.txt",
    "poe/ms-found-in-a-bottle.txt",
    "poe/the-murders-in-the-rue-morgue.txt",
    "poe/the-oval-portrait.txt",
]


def unwrap(text):
    """Joins hard-wrapped lines inside paragraphs (the Poe stories are wrapped
    at ~70 columns, gold-bug.txt is not), so all prose has one line per paragraph."""
    paras = re.split(r"\n\s*\n", text.strip())
    return "\n\n".join(" ".join(l.strip() for l in p.splitlines()) for p in paras) + "\n"


def read(name):
    with open(os.path.join(TEXTS, name), encoding="utf-8") as f:
        text = f.read().replace("\r\n", "\n")
    if name.startswith("poe/"):
        text = unwrap(text)
    return text


def boundary(text, at):
    """A line start just before at, or a word start if the line is long
    (unwrapped paragraphs): the validation part stays close to 5 %."""
    line = text.rfind("\n", 0, at) + 1
    if at - line < len(text) // 50:
        return line
    return text.rfind(" ", 0, at) + 1


def split():
    """Returns ([(name, train_text)], [(name, val_text)])."""
    train, val = [], []
    for name in SOURCES:
        text = read(name)
        cut = boundary(text, int(len(text) * (1 - VAL_FRACTION)))
        train.append((name, text[:cut]))
        val.append((name, text[cut:]))
    return train, val


if __name__ == "__main__":
    tr, va = split()
    for (n, a), (_, b) in zip(tr, va):
        print(f"{n:45s} train {len(a):8d} chars  val {len(b):7d} chars")
