"""synth2's stories with present-day English cut out of WordNet's examples.

Stage 7 of the demo model. The hand-written held-out sentences
showed two kinds of miss: the model fetched a word of the setup but the
wrong one ("The knight rode a black horse ... came down to see the" ->
" knight"), and after present-day call-backs it did not fetch at all
("I sat next to" -> " the"). synth2 drew most slot words from the whole
vocabulary, so the model could not use what it knows of word classes to
tell the attribute from the thing, and its natural call-backs were
Shakespeare and Poe only. This generator adds, for training only:

- slot words of the right class: WordNet adjectives for attributes, WordNet
  nouns of things, animals, food and plants for objects (single tokens of
  the demo vocabulary), beside synth2's lists and vocabulary words;
- natural setups: WordNet examples holding "a/the/his ADJ NOUN" (the
  adjective becomes the slot: "she wore a {A} dress to the party"), "the
  NOUN is ADJ", "a/the NOUN" (the noun becomes the slot), and sentences
  whose subject or object is he/she/him (a name goes there);
- natural call-backs: WordNet examples cut before a determiner's noun or
  before a person (him/her), like synth2.corpus_frames on the text;
- predicate call-backs with a degree word ("... it was far too" -> A).

synth2's held-out split, eval_set and eval_cases are unchanged (none of the
parts here is ever held out: they are training-only, like synth2's
MODERN parts), so the generator's held-out figure stays comparable.

    /usr/bin/python3 tools/train/synth3.py    # samples
"""

import random
import re

import synth2
import wordnet
from synth2 import FORBIDDEN, LOW_DET, cap1

DEGREE_PRED = ["It was far too", "{Subj2} said it was far too", "Everyone agreed that it was so",
               "{Subj2} could not believe how", "It looked very", "Nobody had ever seen anything so",
               "\"Why is it so", "\"It is really", "{Subj2} told me it was quite", "It was always so",
               "Since it was so", "In the end it was not", "{Subj2} thought it was rather"]
OBJ_PRON = r"(?:him|her)(?=$|[,.;:!?]| (?:to|in|at|for|with|on|and|about|again|back|home|away|up|down|out|off)\b)"


# Stage 8: the subject of the setup is itself a noun or a name, and the
# call-back often names it again, so the fetched word must be the other one
# (the hand-written misses: "The wizard kept his secrets in a wooden box. At
# night he opened the" -> " wizard"; "John met Mary ... John walked home
# with" -> " John").
AGENTS = """wizard baker knight farmer king queen prince princess soldier sailor captain pirate
teacher doctor nurse painter singer dancer witch giant dragon monk priest merchant hunter fisherman
shepherd miller tailor butcher cook waiter driver pilot student boy girl man woman child lady lord
duke judge thief beggar poet actor clown mayor guard servant maid widow bride groom nun farmer's
dog cat horse fox wolf bear owl crow mouse lion tiger monkey parrot goat rabbit""".split()
AGENT_VERBS = ["kept {poss} secrets in a {A} {N}", "sells {A} {N}s", "rode a {A} {N} into town",
               "carried a {A} {N}", "found a {A} {N} in the snow", "bought a {A} {N} at the market",
               "wore a {A} {N} to the feast", "painted a {A} {N}", "owns a {A} {N}", "has a {A} {N}",
               "made a {A} {N} for the king", "lost a {A} {N} in the river", "built a {A} {N}",
               "drove a {A} {N}", "always carries a {A} {N}", "once stole a {A} {N}",
               "lived in a {A} {N}", "slept under a {A} {N}", "dreamed of a {A} {N}",
               "keeps a {A} {N} by the door", "brought a {A} {N} home", "gave the children a {A} {N}"]
AGENT_CB = ["{opener}the {S} opened the", "{opener}the {S} showed us the", "{opener}the {S} looked at the",
            "{opener}the {S} could not find the", "{opener}he took out the", "{opener}she cleaned the",
            "{opener}the {S} loves {poss}", "{opener}everyone asked the {S} about the",
            "{opener}the children laughed at the {S}'s", "{opener}nobody wanted to buy the {S}'s",
            "{opener}the {S} was proud of {poss}", "{opener}the {S} sold the", "{opener}they all stared at the",
            "{opener}the {S} went to look for the"]
TWO_NAME_SETUP = ["{Q} met {P} at the market.", "{Q} has a dog named {P}.", "{Q} gave {P} a book.",
                  "{P} sat next to {Q} on the bus.", "{Q} and {P} are old friends.", "{Q} wrote a letter to {P}.",
                  "{Q} works with a woman called {P}.", "{Q} has a brother named {P}.", "{P} lives next door to {Q}.",
                  "{Q} danced with {P} at the wedding.", "{Q} borrowed a pen from {P}.", "{Q} is in love with {P}."]
TWO_NAME_CB = ["{opener}{Q} walked home with", "{opener}{Q} said goodbye to", "{opener}{Q} went for a walk with",
               "{opener}{Q} sent a message to", "{opener}{Q} could not stop thinking about", "{opener}{Q} waited for",
               "{opener}{Q} had lunch with", "{opener}{Q} gave the book back to", "{opener}{Q} smiled at",
               "{opener}{Q} asked about", "{opener}{Q} called", "{opener}{Q} missed"]
PRON_SETUP = ["{P} gave her brother a book.", "{P} helped his father in the garden.", "{P} baked bread for her mother.",
              "{P} fixed his sister's bike.", "{P} found a kitten and gave it to her aunt.", "{P} sang a song for his grandmother."]
PRON_CB = ["{opener}he said thank you to", "{opener}she gave a kiss to", "{opener}he smiled at", "{opener}she waved at",
           "{opener}they all thanked", "{opener}everyone clapped for"]
IT_SETUP = ["The {N} on the hill was painted {A}.", "Our {N} is {A}.", "The {N} on the corner was {A}.",
            "They painted the {N} {A}.", "The garden was full of {A} {N}s.", "The shop sold only {A} {N}s."]
IT_CB = ["{opener}everyone in town called it the", "{opener}people just call it the", "{opener}the children named it the",
         "{opener}the bride carried a bunch of", "{opener}she came home with a basket of", "{opener}we could see the"]
# Stage 9: a name behind a title or a role ("Mr Brown", "The queen's name
# was Isabel ... loved Queen" -> " Isabel"), and call-backs that end in a
# preposition or a bare verb ("cheered for", "the bed of", "I always ask").
TITLES = ["Mr", "Mrs", "Miss", "Dr", "Doctor", "Queen", "King", "Uncle", "Aunt", "Grandpa", "Grandma",
          "Captain", "Professor", "Sir", "Lady", "Lord", "Prince", "Princess", "Father", "Sister", "Judge", "Nurse"]
TITLE_SETUP = ["Across the road lives {T} {P}.", "{T} {P} runs the shop by the station.", "Every child in town knows {T} {P}.",
               "{T} {P} once sailed round the world.", "They say {T} {P} is the oldest person here.",
               "In those days the {role} was a woman called {P}.", "A {role} called {P} came to our door.",
               "We all knew the {role} by the name of {P}.", "The {role}, {P}, rode out at dawn."]
TITLE_ROLE = {"Queen": "queen", "King": "king", "Doctor": "doctor", "Dr": "doctor", "Captain": "captain",
              "Professor": "professor", "Judge": "judge", "Nurse": "nurse", "Prince": "prince", "Princess": "princess"}
TITLE_CB = ["{opener}the little ones hid from {T}", "{opener}we sat and waited for {T}", "{opener}the whole town sang for {T}",
            "{opener}nobody could say no to {T}", "{opener}the guests bowed to {T}", "{opener}we took flowers to {T}",
            "{opener}a parcel arrived for {T}", "{opener}the soldiers marched behind {T}"]
BARE_SETUP = ["The pony that lives on the farm is {P}.", "Next door there is a boy called {P}.", "The oldest of us is {P}.",
              "My pen friend {P} lives far away.", "A new family moved in, and their son is {P}.", "The parrot in the shop is named {P}.",
              "At camp I shared a tent with {P}.", "Our goalkeeper is {P}."]
BARE_CB = ["{opener}if I get lost, I just phone", "{opener}all the fans shouted for", "{opener}I saved the last sweet for",
           "{opener}I hung the drawing above the chair of", "{opener}the whole class clapped for", "{opener}the medal was given to",
           "{opener}the teacher kept asking", "{opener}this parcel is addressed to", "{opener}the next turn belongs to",
           "{opener}we baked biscuits for", "{opener}the window seat was saved for", "{opener}the dog ran straight to"]
# Stage 10: the attribute is the subject's part ("The wolf had grey fur.")
# and the call-back names the subject only by its determiner: the answer is
# the attribute, then the subject ("... saw the" -> " grey wolf").
HAS_SETUP = ["The {S} had {A} {N}.", "The {S} has {A} {N}.", "The {S} had {A} {N}s.", "The {S} with the {A} {N} lived here.",
             "Once there was a {S} with {A} {N}.", "The {S} had a {A} {N}."]
HAS_CB = ["{opener}everyone saw the", "{opener}we could see the", "{opener}the children ran after the",
          "{opener}the hunters followed the", "{opener}nobody could forget the", "{opener}people came to look at the",
          "{opener}the story is about the", "{opener}I still dream about the"]
OPENERS8 = ["", "", "", "At night ", "Later ", "The next day ", "After a long talk, ", "In the end ", "Every morning ",
            "When the rain came, ", "On Sunday ", "Years later ", "After dinner "]


def _sentence(ex):
    ex = ex.strip()
    return cap1(ex) + ("" if ex[-1:] in ".!?" else ".")


class Natural:
    """Setups and call-backs cut out of WordNet's examples."""

    def __init__(self, tok, adjs, nouns):
        ex, _, _ = wordnet.load()
        ex = [e for e in ex if not FORBIDDEN.search(e) and 4 <= len(e.split()) <= 22]
        A, N = set(adjs), set(nouns)
        self.a_setup, self.a_pred, self.n_setup, self.p_setup = [], [], [], []
        for e in ex:
            s = _sentence(e)
            m = re.search(r"\b(a|an|the|his|her|my|our|their|your|A|An|The|His|Her|My|Our|Their) ([a-z]+) ([a-z]+)\b", s)
            if m and m.group(2) in A and m.group(3) in N:
                det = "a" if m.group(1) == "an" else "A" if m.group(1) == "An" else m.group(1)
                self.a_setup.append((s[:m.start()] + det + " {A} " + s[m.start(3):], m.group(3)))
            m = re.search(r"\b(?:the|my|his|her|our|their|The|My|His|Her|Our|Their) ([a-z]+) (?:is|was|looked|seemed|became|turned|grew) ([a-z]+)\b", s)
            if m and m.group(1) in N and m.group(2) in A:
                self.a_pred.append((s[:m.start(2)] + "{A}" + s[m.end(2):], m.group(1)))
            m = re.search(r"\b(?:a|the|his|her|my|our|their|your|A|The|His|Her|My|Our|Their) ([a-z]+)\b", s)
            if m and m.group(1) in N:
                self.n_setup.append(s[:m.start(1)] + "{N}" + s[m.end(1):])
            if re.match(r"(He|She) [a-z]", s):
                self.p_setup.append("{P}" + s[s.index(" "):])
            elif re.search(r"\b(?:to|with|for|at|saw|told|asked|met|thanked|called|helped|visited|loved|married) him\b", s):
                self.p_setup.append(re.sub(r"\bhim\b", "{P}", s, count=1))
        # call-backs: synth2's cutter on the examples, and cuts before a person
        self.frames = synth2.corpus_frames([" ".join(_sentence(e) for e in ex)], random.Random(11), n=40000)
        for e in ex:
            s = _sentence(e)
            m = re.search(r"\b(?:to|with|for|at|saw|told|asked|met|thanked|called|helped|visited|loved|married|about|from|by|like) (" + OBJ_PRON + ")", s)
            if m and m.start(1) >= 12:
                self.frames.append((s[:m.start(1) - 1], "cap", s[m.end(1):]))
        for lst in (self.a_setup, self.a_pred, self.n_setup, self.p_setup):
            lst[:] = [x for x in lst if "{" in (x[0] if isinstance(x, tuple) else x)]


class Gen(synth2.Gen):
    """synth2.Gen for training, with WordNet slot words, setups and call-backs."""

    def __init__(self, tok, seed=0, natural_share=0.4, class_share=0.4, degree_share=0.1, other_share=0.0,
                 other_roles="AAPPI", has_share=0.0, contrast_share=0.0, **kw):
        super().__init__(tok, held=False, seed=seed, **kw)
        _, adjs, nouns = wordnet.load()
        one = lambda w: len(tok.encode(" " + w)) == 1  # noqa: E731
        hw = synth2.Words(tok, True)
        held = set(hw.A) | set(hw.N) | synth2.FORCE_HELD
        ok = lambda w: one(w) and w not in held and w not in synth2.STOP and not synth2.hashed_held(w)  # noqa: E731
        self.wn_A = sorted(w for w in adjs if ok(w))
        self.wn_N = sorted(w for w in nouns if ok(w))
        self.nat = Natural(tok, self.wn_A, self.wn_N)
        self.low_frames += [f for f in self.nat.frames if f[1] == "low"]
        self.cap_frames += [f for f in self.nat.frames if f[1] == "cap"]
        self.natural_share, self.class_share, self.degree_share = natural_share, class_share, degree_share
        self.other_share, self.other_roles, self.has_share = other_share, other_roles, has_share
        self.contrast_share = contrast_share

    def story_has(self):
        r = self.rng
        self.role = "A"
        A, N, S = self.word("A"), r.choice(self.w.N + self.wn_N), r.choice(AGENTS)
        setup = r.choice(HAS_SETUP).format(S=S, A=A, N=N)
        cb = cap1(r.choice(HAS_CB).format(opener=self.opener()))
        return self.join(setup, self.fillers()[:1], cb, " " + A, " " + S + r.choice(synth2.TAILS))

    def story_title(self):
        r = self.rng
        self.role = "P"
        P = self.word("P")
        if r.random() < 0.5:
            T = r.choice(TITLES)
            t = r.choice(TITLE_SETUP)
            if "{role}" in t:
                T = r.choice(sorted(TITLE_ROLE))
            setup = t.format(T=T, P=P, role=TITLE_ROLE.get(T, ""))
            cb = r.choice(TITLE_CB).format(opener=self.opener(), T=T)
        else:
            setup = r.choice(BARE_SETUP).format(P=P)
            cb = r.choice(BARE_CB).format(opener=self.opener())
        return self.join(setup, self.fillers()[:1], cap1(cb), " " + P, r.choice(synth2.TAILS))

    def story(self):
        """With other_share, a story whose setup subject or second name is a
        distractor the call-back names again (stage 8)."""
        r = self.rng
        if r.random() < self.has_share:
            return self.story_has()
        if r.random() < self.other_share:
            kind = r.choice(self.other_roles)  # each story sets self.role
            return {"A": self.story_agent, "P": self.story_two_names, "I": self.story_it,
                    "T": self.story_title}[kind]()
        return super().story()

    def opener(self):
        return self.rng.choice(OPENERS8)

    def story_agent(self):
        r = self.rng
        self.role = "A"
        A, N, S = self.word("A"), r.choice(self.w.N + self.wn_N), r.choice(AGENTS)
        poss = r.choice(["his", "her", "their"])
        setup = "The " + S + " " + r.choice(AGENT_VERBS).format(poss=poss, A=A, N=N) + "."
        cb = cap1(r.choice(AGENT_CB).format(opener=self.opener(), S=S, poss=poss))
        return self.join(setup, self.fillers()[:1], cb, " " + A, " " + N + r.choice(synth2.TAILS))

    def story_two_names(self):
        r = self.rng
        self.role = "P"
        P, Q = self.word("P"), self.name()
        if P == Q:
            return self.story_two_names()
        if r.random() < 0.3:
            setup, cb = r.choice(PRON_SETUP).format(P=P), r.choice(PRON_CB)
        else:
            setup, cb = r.choice(TWO_NAME_SETUP).format(P=P, Q=Q), r.choice(TWO_NAME_CB)
        cb = cap1(cb.format(opener=self.opener(), Q=Q))
        return self.join(setup, self.fillers()[:1], cb, " " + P, r.choice(synth2.TAILS))

    def story_it(self):
        r = self.rng
        self.role = "A"
        A, N = self.word("A"), r.choice(self.w.N + self.wn_N)
        setup = r.choice(IT_SETUP).format(A=A, N=N)
        cb = cap1(r.choice(IT_CB).format(opener=self.opener()))
        tail = " " + N + ("s" if "of" in cb.split()[-1:] else "") + r.choice(synth2.TAILS)
        return self.join(setup, self.fillers()[:1], cb, " " + A, tail)

    def word(self, role):
        r = self.rng
        if role in "AN" and r.random() < self.class_share:
            return r.choice(self.wn_A if role == "A" else self.wn_N)
        return super().word(role)

    def story_a(self):
        r, p = self.rng, self.p
        if r.random() >= self.natural_share:
            if r.random() < self.degree_share:
                return self.story_degree()
            return super().story_a()
        A = self.word("A")
        if r.random() < 0.3 and self.nat.a_pred:
            t, N = r.choice(self.nat.a_pred)
        else:
            t, N = r.choice(self.nat.a_setup)
        setup = t.replace("{A}", A)
        mid = self.distract(self.fillers())
        fr = self.frame("low")
        if fr:
            cb, tail = fr[0], " " + N + fr[1]
        else:
            cb, tail = self.callback(self.vps("A"), synth2.A_DETS), " " + N + r.choice(synth2.TAILS)
        return self.join(setup, mid, cb, " " + A, tail)

    def vps(self, role):
        """The call-back verbs of role, or with contrast_share those of the
        other role (stage 13): the call-back's wording then cannot tell an
        attribute story from an object story, only the setup can. Without
        contrast_share no random number is drawn, so stages 7-12 get the
        stories they were trained on."""
        if self.contrast_share and self.rng.random() < self.contrast_share:
            role = "N" if role == "A" else "A"
        return self.p.A_VP if role == "A" else self.p.N_VP

    def story_degree(self):
        r, p = self.rng, self.p
        A, N = self.word("A"), r.choice(self.w.N + self.wn_N)
        t = r.choice(self.nat.a_pred)[0] if self.nat.a_pred and r.random() < 0.5 else r.choice(p.A_SETUP)
        setup = self.slots(t, A=A, N=N) if "{N}" in t else t.replace("{A}", A)
        cb = self.slots(r.choice(DEGREE_PRED), Subj2=cap1(r.choice(p.SUBJ)))
        return self.join(setup, self.fillers(), cb, " " + A, r.choice([".", "!", ", and we all knew it."]))

    def story_n(self):
        r, p = self.rng, self.p
        if r.random() >= self.natural_share or not self.nat.n_setup:
            return super().story_n()
        N = self.word("N")
        setup = r.choice(self.nat.n_setup).replace("{N}", N)
        mid = self.distract(self.fillers())
        fr = self.frame("low")
        if fr:
            cb, tail = fr
        else:
            cb, tail = self.callback(self.vps("N"), synth2.N_DETS), r.choice(synth2.TAILS)
        return self.join(setup, mid, cb, " " + N, tail)

    def story_p(self):
        r, p = self.rng, self.p
        if r.random() >= self.natural_share or not self.nat.p_setup:
            return super().story_p()
        P = self.word("P")
        setup = r.choice(self.nat.p_setup).replace("{P}", P)
        mid = self.distract(self.fillers())
        fr = self.frame("cap")
        if fr:
            cb, tail = fr
        else:
            cb, tail = self.callback(p.P_VP, [""]).rstrip(" "), r.choice(synth2.TAILS)
        return self.join(setup, mid, cb, " " + P, tail)

    def distract(self, mid):
        """In 30 % of stories a sentence with another thing or person."""
        r = self.rng
        if r.random() < 0.3:
            d = self.slots(r.choice(self.p.N_SETUP), N=r.choice(self.w.N + self.wn_N)) if r.random() < 0.6 else \
                self.slots(r.choice(self.p.P_SETUP), P=self.name())
            mid.insert(r.randrange(len(mid) + 1), d)
        return mid


if __name__ == "__main__":
    import bpe
    import corpus
    tok = bpe.Tokenizer.load("assets/demo/tokenizer.json")
    texts = [t for _, t in corpus.split()[0]]
    g = Gen(tok, seed=1, lines=synth2.sentence_lines(texts, random.Random(5)),
            frames=synth2.corpus_frames(texts, random.Random(3)), frame_share=0.6, vocab_share=0.5, multi_share=0.1,
            other_share=0.5, other_roles="AAPPITT")
    n = g.nat
    print("wordnet A", len(g.wn_A), "N", len(g.wn_N), "| setups a", len(n.a_setup), "pred", len(n.a_pred),
          "n", len(n.n_setup), "p", len(n.p_setup), "| frames low", len(g.low_frames), "cap", len(g.cap_frames))
    for _ in range(40):
        p, a, t = g.story()
        print(g.role, p + " [" + a + "]" + t)
