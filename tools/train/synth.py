"""Synthetic natural sentences that call for an earlier word again.

The purple-cat effect of the article “The two times of an answer”: a word
(an adjective, an object, a name) appears, and the end of the sentence calls
for it again. The model can only get that word from its context (it is
drawn at random from a word list), so these sentences teach in-context
retrieval on ordinary English.

Two disjoint sets, so that the eval measures retrieval the model learned
rather than sentences it saw:

- TRAIN_TEMPLATES with the training split of every word list, for training;
- EVAL_TEMPLATES (other wording) with the held-out split, for eval.py and
  the monitor in train.py. The article's sentence ("My cat is purple. But my
  friends tell me there is no such thing as a") is held out: "purple" and
  "cat" are held-out words, and no training template says "no such thing".

A template is a story with slots {A} adjective, {N} noun, {F} female name,
{M} male name ({P} either, with {he}/{his}/{him} following it); the
character | marks the end of the prompt: the word after it is the target,
always a slot word. Training rows are stories strung together (the earlier
stories are distractors: the model must fetch the word of the current
one), with "mention" sentences between them that name any word once
(training or held-out: every word of the lists is read in context, but
held-out words are never the answer in training).

    /usr/bin/python3 tools/train/synth.py    # prints samples and the split
"""

import random
import re

COLOURS = """red blue green yellow purple orange pink brown black white grey golden silver
scarlet crimson violet amber ivory copper bronze emerald blonde pale dark rosy""".split()
ADJECTIVES = """tiny huge wooden broken heavy ancient frozen striped spotted shiny dusty rusty
hollow wet tall short fat thin young old sleepy angry happy sad lazy clever wild gentle noisy
quiet strange lucky famous hungry wise proud brave shy silly magic cheerful square round
enormous little giant glass iron stone paper velvet silk woollen soft hard bright sweet
bitter empty ugly lovely fierce tame""".split()
NOUNS = """cat dog horse cow pig sheep goat mouse rat rabbit fox wolf bear lion tiger
elephant monkey frog snake bird owl duck goose hen crow eagle fish whale shark bee spider
dragon unicorn donkey camel deer squirrel parrot swan turtle
hat coat boot shoe glove scarf ring crown sword shield spoon knife fork cup bowl plate
bottle jar box basket bag chair table bed lamp candle clock key lock door window bell
drum flute violin piano book letter map pen pencil ball kite doll wheel cart boat ship
car bicycle train umbrella mirror comb brush carpet blanket pillow house tower castle
bridge tree flower rose apple pear cake bread cheese egg stone rock shell feather
leaf balloon kettle teapot ladder rope hammer barrel""".split()
FEMALE = """Alice Mary Anna Emma Lucy Sarah Jane Kate Rose Grace Lily Ruth Clara Helen Julia
Laura Susan Nora Olivia Sophie Ella Amy Hannah Ivy Maria Martha Nancy Paula Rachel Tessa
Vera Wendy Zoe Beatrice Juliet Portia Miranda Helena Viola Bianca""".split()
MALE = """John Tom Jack James Peter Paul Sam Henry George David Frank Harry Luke Mark Oscar
Simon Victor Walter Adam Ben Carl Dan Edward Fred Hugo Ivan Leo Max Noah Oliver Ralph Ted
Will Arthur Hamlet Romeo Richard Edmund Duncan Oberon""".split()

# Forced into the held-out split: the article's sentence must stay unseen.
FORCE_HELD = {"purple", "cat"}


def split_list(words, every=5, offset=0):
    """Every fifth word (by position in the sorted list) is held out, plus
    FORCE_HELD: a fixed, documented split."""
    s = sorted(set(words))
    held = {w for i, w in enumerate(s) if i % every == offset} | (FORCE_HELD & set(s))
    return [w for w in s if w not in held], [w for w in s if w in held]


def lists():
    """{"train": {...}, "held": {...}} of adjective, noun, female, male lists."""
    out = {"train": {}, "held": {}}
    for name, words in (("A", COLOURS + ADJECTIVES), ("N", NOUNS), ("F", FEMALE), ("M", MALE)):
        tr, he = split_list(words)
        out["train"][name], out["held"][name] = tr, he
    return out


TRAIN_TEMPLATES = [
    # adjective recall
    "The {N} in the garden was {A}. Everyone who walked past stopped to look at the| {A} {N}.",
    "I once owned a {A} {N}. People still ask me about my| {A} {N}.",
    "My aunt has a {N} that is {A}. When I visit her, I always play with the| {A} {N}.",
    "The {N} was painted {A}. From far away you could see the| {A} {N}.",
    "{P} found a {A} {N} by the river. {He} had never seen a| {A} {N} before.",
    "In the shop window there was a {A} {N}. The children pressed their noses to the glass to see the| {A} {N}.",
    "Our {N} turned {A} overnight. The doctor said he had never heard of a| {A} {N}.",
    "The king's {N} was {A}, and he was proud of it. No other king had a| {A} {N}.",
    "It was a {A} {N}, the strangest thing in the village. Every morning the people came to see the| {A} {N}.",
    "{P} said {his} {N} was {A}. Nobody believed that {his} {N} was| {A}.",
    "They say the {N} of the castle is {A}. I went there myself, and indeed the {N} is| {A}.",
    "I dreamed of a {A} {N} last night. In the morning I told my mother about the| {A} {N}.",
    "{P} has a {A} {N}. {He} takes the| {A} {N} everywhere.",
    "A {A} {N} sat on the wall. \"Look,\" said {P}, \"a| {A} {N}!\"",
    "The wizard turned the {N} {A} with one word. Then he laughed at the| {A} {N}.",
    "Of all the things at the fair, {P} liked the {A} {N} best. {He} could not stop thinking about the| {A} {N}.",
    "\"Is your {N} {A}?\" asked the girl. \"Yes,\" I said, \"my {N} is| {A}.\"",
    "There lived a {N} that was {A} from head to tail. The farmers called it the| {A} {N}.",
    "We bought a {A} {N} at the market. On the way home we dropped the| {A} {N}.",
    "Every {N} in that land is {A}. Even the king's own {N} is| {A}.",
    # noun recall
    "{P} put the {N} on the table. Later, {he} came back and picked up the| {N}.",
    "There was a {N} under my bed. I did not sleep, for I was afraid of the| {N}.",
    "On the way home {P} bought a {N}. At home {he} gave the| {N} to {his} brother.",
    "The thief stole a {N} from the palace. The guards searched the town for the| {N}.",
    "I lost my {N} in the forest. I looked everywhere, but I never found my| {N}.",
    "The children found a {N} on the beach. They carried the| {N} home.",
    "Grandfather kept an old {N} in the attic. When he died, he left me the| {N}.",
    "\"What is in the box?\" asked {P}. \"A {N},\" said the old man, and {P} took out the| {N}.",
    "A {A} {N} stood by the door. {P} walked up to the| {A} {N} and touched it.",
    "The prince was given a {N} for his birthday. He loved that| {N} more than his horse.",
    "In the middle of the road lay a {N}. The cart stopped, and the driver looked at the| {N}.",
    "My sister wants a {N}, and my brother wants a {N} too. Everybody in this house wants a| {N}.",
    # name recall
    "My friend {P} came to dinner. After dinner I walked home with my friend| {P}.",
    "{P} was the best singer in town. When the music started, everyone called for| {P}.",
    "A boy named {M} lived by the sea. One day a stranger knocked on the door and asked for| {M}.",
    "A girl named {F} lived by the sea. One day a stranger knocked on the door and asked for| {F}.",
    "Her name was {F}. \"Good morning,\" said the baker to| {F}.",
    "His name was {M}. \"Good evening,\" said the innkeeper to| {M}.",
    "The baby was named {P}, after an old uncle. Everyone in the family loved little| {P}.",
    "The letter was for {P}. On the envelope I wrote the name| {P}.",
    "{P} won the race. The crowd cheered and shouted the name of| {P}.",
    "The captain of the ship was called {P}. The sailors would follow Captain| {P} anywhere.",
    "{F} and her dog went for a walk. The dog ran ahead, then waited for| {F}.",
    "{M} and his horse crossed the river. On the other side, the horse waited for| {M}.",
]

EVAL_TEMPLATES = [
    # adjective recall (the article's sentence is the first, with held-out words)
    "My {N} is {A}. But my friends tell me there is no such thing as a| {A} {N}.",
    "The {N} next door is {A}. I have never met such a| {A} {N}.",
    "Yesterday I saw a {A} {N} in the park. When I got home I told my brother about the| {A} {N}.",
    "The ship was called the {A} {N}. The sailors loved the| {A} {N}.",
    "I keep a {A} {N} at home. Would you like to see my| {A} {N}?",
    "Her {N} is {A}, so the whole street knows her| {A} {N}.",
    "On the hill stands a {N} that is {A}. People come from far away to draw the| {A} {N}.",
    # noun recall
    "He lost his {N} at the fair. His mother sent him back to look for the| {N}.",
    "In the corner of the room stood a {N}. A tired boy lay down beside the| {N}.",
    "She hid a {N} in her bag. At school she showed everyone the| {N}.",
    "The storm blew a {N} into our yard. In the morning my father picked up the| {N}.",
    # name recall
    "A woman named {F} opened a bakery. Everyone in town buys bread from| {F}.",
    "A man named {M} built a boat. The whole village helped| {M}.",
    "My cousin {P} plays the harp. At the wedding the guests clapped for my cousin| {P}.",
    "The letter was signed by {P}. I wrote back at once to| {P}.",
]

MENTIONS = [
    "Somewhere far away there was a {A} {N}.",
    "{P} lived in the next town.",
    "That year the {N}s were cheap.",
    "Nobody thought much about {A} things then.",
    "A man once wrote a song about a {N}.",
    "{P} never liked winter.",
    "The {A} light of morning came in.",
]

FILLERS_TRAIN = [
    "It was a cold morning.", "The wind blew from the sea.", "Nobody said a word.",
    "The bells rang in the town.", "It rained all day.", "The road was long.",
    "Night came slowly.", "The fire was warm.", "Time passed.", "The river was high that spring.",
]
FILLERS_EVAL = [
    "The sun was already low.", "A clock struck somewhere.", "Snow fell on the roofs.",
    "The market was crowded.",
]

FORBIDDEN = re.compile(r"no such thing", re.I)
SLOT = re.compile(r"\{(\w+)\}")


def fill(rng, template, words, fillers=None, n_fill=0):
    """(text, prompt, target): the story, its text up to |, and the word
    after | (a slot word, with its leading space: " purple")."""
    male = rng.random() < 0.5
    v = {
        "A": rng.choice(words["A"]), "N": rng.choice(words["N"]),
        "F": rng.choice(words["F"]), "M": rng.choice(words["M"]),
    }
    v["P"] = v["M"] if male else v["F"]
    pron = ("he", "his", "him") if male else ("she", "her", "her")
    v.update(he=pron[0], his=pron[1], him=pron[2], He=pron[0].capitalize())
    # "a" before a vowel sound would read "an": use the slot word that follows.
    text = SLOT.sub(lambda m: v[m.group(1)], template)
    text = re.sub(r"\b([Aa])(\|?) ([aeiouAEIOU])", r"\1n\2 \3", text)
    if fillers and n_fill and ". " in text:
        # filler sentences between the first sentence and the rest: longer reach
        first, rest = text.split(". ", 1)
        text = first + ". " + " ".join(rng.choice(fillers) for _ in range(n_fill)) + " " + rest
    prompt, after = text.split("|", 1)
    target = re.match(r" ?[A-Za-z]+", after).group(0)
    return text.replace("|", ""), prompt, target


def mention(rng, words):
    t = rng.choice(MENTIONS)
    p = rng.choice(words["F"] + words["M"])
    v = {"A": rng.choice(words["A"]), "N": rng.choice(words["N"]), "P": p}
    return re.sub(r"\b([Aa]) ([aeiouAEIOU])", r"\1n \2", SLOT.sub(lambda m: v[m.group(1)], t))


class Stream:
    """Training text: stories from TRAIN_TEMPLATES with training words, with
    0-3 fillers inside a story (30 %), and mention sentences (all words)
    between stories (30 %), separated by a space or a line break."""

    def __init__(self, seed):
        self.rng = random.Random(seed)
        ls = lists()
        self.words = ls["train"]
        self.all = {k: ls["train"][k] + ls["held"][k] for k in ls["train"]}

    def text(self, n_chars):
        r = self.rng
        parts = []
        size = 0
        while size < n_chars:
            if r.random() < 0.3:
                s = mention(r, self.all)
            else:
                nf = r.choice([1, 2, 3]) if r.random() < 0.3 else 0
                s = fill(r, r.choice(TRAIN_TEMPLATES), self.words, FILLERS_TRAIN, nf)[0]
            assert not FORBIDDEN.search(s)
            parts.append(s)
            parts.append("\n" if r.random() < 0.5 else " ")
            size += len(s) + 1
        return "".join(parts)


def eval_set(n=200, seed=2024, fill_share=0.25):
    """Held-out prompts: EVAL_TEMPLATES x held-out words (seeded), some with
    eval fillers. Returns [(prompt, target)], prompts without a trailing space."""
    rng = random.Random(seed)
    words = lists()["held"]
    out = []
    for i in range(n):
        t = EVAL_TEMPLATES[i % len(EVAL_TEMPLATES)]
        nf = rng.choice([1, 2]) if rng.random() < fill_share else 0
        _, prompt, target = fill(rng, t, words, FILLERS_EVAL, nf)
        out.append((prompt.rstrip(" "), target))
    return out


def train_set(n=100, seed=77):
    """The same measure on training templates and words (to compare)."""
    rng = random.Random(seed)
    words = lists()["train"]
    out = []
    for i in range(n):
        _, prompt, target = fill(rng, TRAIN_TEMPLATES[i % len(TRAIN_TEMPLATES)], words)
        out.append((prompt.rstrip(" "), target))
    return out


def all_words():
    ls = lists()
    return sorted({w for part in ls.values() for v in part.values() for w in v})


if __name__ == "__main__":
    ls = lists()
    for k in ls["held"]:
        print(k, "held-out:", " ".join(ls["held"][k]))
    print(Stream(1).text(1500))
    for p, t in eval_set(20):
        print(repr(p), "->", repr(t))
