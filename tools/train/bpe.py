"""Byte-level BPE for Loupe's demo model, in the exact format of Qwen2.5.

Pre-tokenizer: NFC, then Qwen's split regex (Isolated), then GPT-2's
bytes->unicode map. Encoding merges by rank (lowest rank first, leftmost
occurrence first), which is what Hugging Face `tokenizers` and our Go
tokenizer compute (docs/spec/tokenizer.md §5).

    /usr/bin/python3 tools/train/bpe.py --vocab 4096 --out tools/train/out/tokenizer.json

Training is the classic greedy algorithm on word counts: repeatedly merge
the most frequent adjacent pair (ties: the lexicographically largest
pair, so the result is deterministic), keeping pair counts incremental.
"""

import argparse
import collections
import json
import unicodedata

import regex

# Qwen2 / Qwen2.5 pre-tokenizer pattern, byte for byte (docs/spec/tokenizer.md §3.2).
QWEN_PATTERN = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}"
    r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)
SPLIT = regex.compile(QWEN_PATTERN)
EOT = "<|endoftext|>"


def bytes_to_unicode():
    """GPT-2's table: 256 bytes -> 256 printable code points (docs/spec/tokenizer.md §4).

    Returned as an ordered dict; its order (printable bytes first) is also
    the order of the 256 base token ids, as in GPT-2 and Qwen.
    """
    bs = (
        list(range(ord("!"), ord("~") + 1))
        + list(range(ord("¡"), ord("¬") + 1))
        + list(range(ord("®"), ord("ÿ") + 1))
    )
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return collections.OrderedDict((b, chr(c)) for b, c in zip(bs, cs))


BYTE_TO_CHAR = bytes_to_unicode()
CHAR_TO_BYTE = {c: b for b, c in BYTE_TO_CHAR.items()}


def pieces(text):
    """NFC + regex split + byte mapping: the pre-tokens BPE works on."""
    text = unicodedata.normalize("NFC", text)
    out = []
    for m in SPLIT.finditer(text):
        out.append("".join(BYTE_TO_CHAR[b] for b in m.group(0).encode("utf-8")))
    return out


def train(texts, vocab_size, start=()):
    """Learns vocab_size-1-256 merges (the last id is <|endoftext|>).
    start: merges taken first, in order (an earlier tokenizer's), so that
    its ids 0..len(start)+255 keep their meaning; the rest are learned.

    Returns (vocab: str->id, merges: list of (a, b)).
    """
    counts = collections.Counter()
    for t in texts:
        counts.update(pieces(t))
    words = [list(w) for w in counts]
    freq = [counts[w] for w in counts]
    pair_count = collections.Counter()
    where = collections.defaultdict(set)  # pair -> indices of words holding it
    for i, w in enumerate(words):
        for a, b in zip(w, w[1:]):
            pair_count[(a, b)] += freq[i]
            where[(a, b)].add(i)

    vocab = collections.OrderedDict((c, i) for i, c in enumerate(BYTE_TO_CHAR.values()))
    merges = []
    while len(vocab) < vocab_size - 1 and (pair_count or len(merges) < len(start)):
        if len(merges) < len(start):
            best = tuple(start[len(merges)])
        else:
            best = max(pair_count.items(), key=_by_count)[0]
            if pair_count[best] < 2:
                break
        merges.append(best)
        if best[0] + best[1] not in vocab:  # two merges can spell one string
            vocab[best[0] + best[1]] = len(vocab)
        for i in list(where[best]):
            _merge_word(i, best, words, freq, pair_count, where)
    vocab[EOT] = len(vocab)
    return vocab, merges


def _by_count(kv):
    """Sort key: the count, then the pair itself, so ties are deterministic."""
    return kv[1], kv[0]


def _merge_word(i, pair, words, freq, pair_count, where):
    """Replaces every occurrence of pair in word i, updating pair counts."""
    w = words[i]
    f = freq[i]
    for a, b in zip(w, w[1:]):
        pair_count[(a, b)] -= f
        if pair_count[(a, b)] <= 0:
            del pair_count[(a, b)]
        where[(a, b)].discard(i)
    new = []
    j = 0
    while j < len(w):
        if j + 1 < len(w) and w[j] == pair[0] and w[j + 1] == pair[1]:
            new.append(pair[0] + pair[1])
            j += 2
        else:
            new.append(w[j])
            j += 1
    words[i] = new
    for a, b in zip(new, new[1:]):
        pair_count[(a, b)] += f
        where[(a, b)].add(i)


class Tokenizer:
    """Rank-based BPE encoder/decoder over a tokenizer.json written by save()."""

    def __init__(self, vocab, merges):
        self.vocab = dict(vocab)
        self.inv = {i: s for s, i in self.vocab.items()}
        self.rank = {tuple(m): r for r, m in enumerate(merges)}
        self.merge_of = {}  # token string -> the first merge that spells it
        for m in merges:
            self.merge_of.setdefault(m[0] + m[1], tuple(m))
        self.eot = self.vocab[EOT]
        self.cache = {}

    @classmethod
    def load(cls, path):
        with open(path, encoding="utf-8") as f:
            t = json.load(f)
        vocab = dict(t["model"]["vocab"])
        for a in t["added_tokens"]:
            vocab[a["content"]] = a["id"]
        return cls(vocab, t["model"]["merges"])

    def bpe(self, piece):
        """Merges the lowest-rank adjacent pair, leftmost first, until none."""
        if piece in self.cache:
            return self.cache[piece]
        syms = list(piece)
        while len(syms) > 1:
            best, at = None, -1
            for j in range(len(syms) - 1):
                r = self.rank.get((syms[j], syms[j + 1]))
                if r is not None and (best is None or r < best):
                    best, at = r, j
            if best is None:
                break
            syms[at : at + 2] = [syms[at] + syms[at + 1]]
        ids = [self.vocab[s] for s in syms]
        self.cache[piece] = ids
        return ids

    def encode(self, text):
        """Ids of text; <|endoftext|> in the text becomes the special id."""
        ids = []
        for k, part in enumerate(text.split(EOT)):
            if k:
                ids.append(self.eot)
            for p in pieces(part):
                ids.extend(self.bpe(p))
        return ids

    def decode(self, ids):
        out = bytearray()
        for i in ids:
            s = self.inv[i]
            if all(c in CHAR_TO_BYTE for c in s):
                out.extend(CHAR_TO_BYTE[c] for c in s)
            else:
                out.extend(s.encode("utf-8"))
        return out.decode("utf-8", "replace")


def tokenizer_json(vocab, merges):
    """The tokenizer.json document, structured like Qwen2.5's."""
    bl = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False}
    bpe_vocab = {s: i for s, i in vocab.items() if s != EOT}
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [
            {
                "id": vocab[EOT],
                "content": EOT,
                "single_word": False,
                "lstrip": False,
                "rstrip": False,
                "normalized": False,
                "special": True,
            }
        ],
        "normalizer": {"type": "NFC"},
        "pre_tokenizer": {
            "type": "Sequence",
            "pretokenizers": [
                {
                    "type": "Split",
                    "pattern": {"Regex": QWEN_PATTERN},
                    "behavior": "Isolated",
                    "invert": False,
                },
                dict(bl),
            ],
        },
        "post_processor": dict(bl),
        "decoder": dict(bl),
        "model": {
            "type": "BPE",
            "dropout": None,
            "unk_token": None,
            "continuing_subword_prefix": "",
            "end_of_word_suffix": "",
            "fuse_unk": False,
            "byte_fallback": False,
            "ignore_merges": False,
            "vocab": bpe_vocab,
            "merges": [[a, b] for a, b in merges],
        },
    }


def save(path, vocab, merges):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(tokenizer_json(vocab, merges), f, ensure_ascii=False, indent=None)


def main():
    import corpus

    ap = argparse.ArgumentParser()
    ap.add_argument("--vocab", type=int, default=4096)
    ap.add_argument("--out", default="tools/train/out/tokenizer.json")
    args = ap.parse_args()
    train_texts, _ = corpus.split()
    vocab, merges = train([t for _, t in train_texts], args.vocab)
    save(args.out, vocab, merges)
    print(f"{len(vocab)} tokens, {len(merges)} merges -> {args.out}")


if __name__ == "__main__":
    main()
