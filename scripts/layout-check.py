#!/usr/bin/env python3
"""layout-check.py REPORT... — reads the window's --layout-report files and
fails (status 1) on what a class would not see: a visible text, token or
button that is clipped, two visible texts that overlap, a window off the
screen, or an answer visible while the class guesses. One line per fault."""
import json
import sys

KINDS = ("text", "token", "button")


def overlap(a, b):
    """Area two boxes share, in pixels (2 px of slack: antialiasing)."""
    w = min(a["x"] + a["w"], b["x"] + b["w"]) - max(a["x"], b["x"]) - 2
    h = min(a["y"] + a["h"], b["y"] + b["h"]) - max(a["y"], b["y"]) - 2
    return w > 0 and h > 0


def faults(r):
    s, w = r["screen"], r["window"]
    if w["x"] < 0 or w["y"] < 0 or w["x"] + w["w"] > s["w"] or w["y"] + w["h"] > s["h"]:
        yield "window %s off the screen %s" % (w, s)
    shown = [o for o in r["objects"] if o["visible"]]
    for o in shown:
        if o["clipped"] and o["kind"] in KINDS + ("card",):
            yield "clipped %s in %s: %r at %d,%d %dx%d" % (o["kind"], o["panel"], o["text"][:60], o["x"], o["y"], o["w"], o["h"])
        if r["guessing"] and o["answer"]:
            yield "answer visible while guessing: %s in %s %r" % (o["kind"], o["panel"], o["text"][:60])
    # A clipped text is named above; its whole box would overlap what
    # covers its hidden part.
    texts = [o for o in shown if o["kind"] in KINDS and not o["clipped"]]
    for i, a in enumerate(texts):
        for b in texts[i + 1:]:
            if overlap(a, b):
                yield "overlap in %s/%s: %r and %r" % (a["panel"], b["panel"], a["text"][:40], b["text"][:40])


def main(paths):
    bad = 0
    for p in paths:
        with open(p) as f:
            r = json.load(f)
        for line in faults(r):
            print("%s: %s" % (p, line))
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1:]))
