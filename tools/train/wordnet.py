"""Extracts WordNet 3.0's example sentences and word classes for synth3.py.

WordNet's glosses hold ~47,000 short examples of present-day English in
quotes ("she wore a red dress to the party"); synth3 cuts call-backs and
setups out of them, so that the retrieval stories are not only storybook
templates and Shakespeare. The word classes (adjectives; nouns that are
things, animals, food, plants) let the slot words be real words of their
class, so the model can use what it knows of English to tell the attribute
from the thing.

    apt-get download wordnet-base && dpkg -x wordnet-base_*.deb /tmp/wn
    /usr/bin/python3 tools/train/wordnet.py /tmp/wn/usr/share/wordnet

writes tools/train/data/wordnet.txt.gz (committed; WordNet 3.0 licence in
its header). Lines: "E <example>", "A <adjective>", "N <noun> <lexfile>".
"""

import gzip
import os
import re
import sys

LICENSE = """WordNet 3.0 Copyright 2006 by Princeton University. All rights reserved.
Permission to use, copy, modify and distribute this software and database and its documentation for
any purpose and without fee or royalty is hereby granted, provided that you agree to comply with the
following copyright notice and statements, including the disclaimer, and that the same appear on ALL
copies of the software, database and documentation, including modifications that you make for
internal use or for distribution.
THIS SOFTWARE AND DATABASE IS PROVIDED "AS IS" AND PRINCETON UNIVERSITY MAKES NO REPRESENTATIONS OR
WARRANTIES, EXPRESS OR IMPLIED. BY WAY OF EXAMPLE, BUT NOT LIMITATION, PRINCETON UNIVERSITY MAKES NO
REPRESENTATIONS OR WARRANTIES OF MERCHANT- ABILITY OR FITNESS FOR ANY PARTICULAR PURPOSE OR THAT THE
USE OF THE LICENSED SOFTWARE, DATABASE OR DOCUMENTATION WILL NOT INFRINGE ANY THIRD PARTY PATENTS,
COPYRIGHTS, TRADEMARKS OR OTHER RIGHTS.
The name of Princeton University or Princeton may not be used in advertising or publicity pertaining
to distribution of the software and/or database. Title to copyright in this software, database and
any associated documentation shall at all times remain with Princeton University and LICENSEE agrees
to preserve same."""

# noun lexicographer files of things one can see, hold, eat or meet
THING_FILES = {"05": "animal", "06": "artifact", "08": "body", "13": "food", "17": "object", "20": "plant"}


def data_lines(path):
    for line in open(path, encoding="latin-1"):
        if not line.startswith("  "):
            yield line


def main():
    src = sys.argv[1]
    examples, adjs, nouns = [], {}, {}
    for pos in ("noun", "verb", "adj", "adv"):
        for line in data_lines(os.path.join(src, "data." + pos)):
            head, _, gloss = line.partition(" | ")
            f = head.split()
            lex, nw = f[1], int(f[3], 16)
            words = [f[4 + 2 * i] for i in range(nw)]
            for ex in re.findall(r'"([^"]+)"', gloss):
                ex = ex.strip()
                if len(ex.split()) >= 4 and "`" not in ex:
                    examples.append(ex)
            for w in words:
                w = re.sub(r"\(.*\)$", "", w)
                if not re.fullmatch(r"[a-z]{3,}", w):
                    continue
                if pos == "adj":
                    adjs[w] = 1
                elif pos == "noun" and lex in THING_FILES:
                    nouns.setdefault(w, THING_FILES[lex])
    examples = sorted(set(examples))
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "wordnet.txt.gz")
    with gzip.open(out, "wt", encoding="utf-8") as g:
        for l in LICENSE.splitlines():
            g.write("# " + l + "\n")
        g.write("# Extracted by tools/train/wordnet.py from Debian's wordnet-base (WordNet 3.0).\n")
        for e in examples:
            g.write("E " + e + "\n")
        for a in sorted(adjs):
            g.write("A " + a + "\n")
        for n in sorted(nouns):
            g.write("N " + n + " " + nouns[n] + "\n")
    print(len(examples), "examples,", len(adjs), "adjectives,", len(nouns), "nouns ->", out)


def load(path=None):
    """(examples, adjectives, {noun: lexfile}) from data/wordnet.txt.gz."""
    path = path or os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "wordnet.txt.gz")
    ex, adj, noun = [], [], {}
    for line in gzip.open(path, "rt", encoding="utf-8"):
        k, _, v = line.rstrip("\n").partition(" ")
        if k == "E":
            ex.append(v)
        elif k == "A":
            adj.append(v)
        elif k == "N":
            w, lex = v.split()
            noun[w] = lex
    return ex, adj, noun


if __name__ == "__main__":
    main()
