"""Compositional synthetic stories that call for an earlier word again.

The purple-cat effect: a word (an attribute, an object, a name) appears, and
the end of a later sentence calls for it again. synth.py had 44 fixed
templates, and the model learned retrieval tied to them (95 % on training
templates, 5 % on new ones). Here every story is composed from parts, so
there are many thousands of distinct frames:

    setup sentence        "My uncle's boat was green."        (the word in a role)
    0-3 filler sentences  Shakespeare / Poe lines or plain ones, distractors
    call-back sentence    opener + subject + verb phrase + determiner, ending
                          right before the word: "Later the children ran down to see the"
    the word and a tail   " green boat."

Three roles: A (attribute, the call-back wants it before the noun or as a
predicate), N (object), P (person's name). The slot word comes half of the
time from curated lists and half of the time from the whole-word tokens of
the tokenizer's vocabulary (" reason", " candle", " Warwick"), so no prior
over a word list predicts it: only copying from the context does. Some
answers are words of two or three tokens, so that the first token is
fetched and the rest copied.

Held out (never in training): every fifth entry of each part list and of
each word list, a tenth of the vocabulary words (by a hash), the words
"purple" and "cat", and any text matching FORBIDDEN (the article's sentence
and close variants). eval_set() draws held-out parts x held-out words.

    /usr/bin/python3 tools/train/synth2.py    # samples
"""

import random
import re
import zlib

import synth

FORBIDDEN = re.compile(r"no such thing|purple cat|cat (is|was) purple|there is no such", re.I)
FORCE_HELD = {"purple", "cat"}
MODERN = False  # train2.py --modern sets it
ROLES = "AAANNP"  # train2.py --roles sets it (training stories only; held-out sets keep AAANNP)

MORE_ADJ = """bright dark narrow wide deep shallow smooth rough crooked straight sharp blunt
curly hairy furry fluffy muddy sandy rocky icy snowy sunny rainy windy cloudy foggy stormy
gloomy shiny dirty clean tidy messy cheap rich poor busy lonely friendly clumsy grumpy
jolly kind cruel honest fat slim skinny plump loud tiny secret hidden golden plain fancy
modern odd tired thirsty nervous calm curious jealous gentle polite rude mad merry noble
royal holy sacred wicked evil good bad fair foul false true sweet sour salty spicy fresh
stale rotten ripe raw burnt frozen melted boiled painted striped spotted checked dotted
marble leather cotton woollen golden brass tin crystal""".split()
MORE_NOUNS = """key keys watch wallet purse phone guitar radio camera coin ticket letter
parcel envelope map compass lantern torch candle bucket spade shovel basket blanket quilt
sofa stool bench desk shelf drawer cupboard mirror painting picture poster statue vase
pot pan jug mug glass bottle kettle oven stove fridge piano harp trumpet horn whistle
drum bell ribbon necklace bracelet brooch button belt cloak jacket dress skirt shirt sock
slipper sandal helmet mask wig crown sceptre throne carriage wagon sled canoe raft
tractor bus truck lorry rocket kite puppet robot ball marble dice card puzzle book diary
notebook newspaper magazine poem song recipe cake pie biscuit sandwich soup apple plum
cherry lemon orange banana melon grape carrot potato onion tomato honey jam milk tea
coffee wine bread cheese egg nest shell pebble acorn mushroom flower tulip daisy lily
garden field meadow pond lake island cave hill mountain forest tower castle palace
church chapel cottage barn stable mill bridge gate fence wall well fountain statue""".split()
MORE_FEMALE = """Alice Emma Anna Lucy Sarah Jane Kate Rose Grace Lily Ruth Clara Helen Julia
Laura Susan Nora Olivia Sophie Ella Amy Hannah Ivy Maria Martha Nancy Paula Rachel
Tessa Vera Wendy Zoe Beatrice Juliet Portia Miranda Helena Viola Bianca Margaret Elizabeth
Catherine Anne Isabel Emily Charlotte Ada Eva Mia Nina Lisa Sara Joan Agnes Edith Mabel
Dora Ruby Daisy Hazel Iris Flora Stella Bella Molly Polly Sally Betty Lottie Ophelia
Cordelia Desdemona Rosalind Imogen Perdita Hermione Marina Celia""".split()
MORE_MALE = """John Tom Jack James Peter Paul Sam Henry George David Frank Harry Luke Mark
Oscar Simon Victor Walter Adam Ben Carl Dan Edward Fred Hugo Ivan Leo Max Noah Oliver
Ralph Ted Will Arthur Hamlet Romeo Richard Edmund Duncan Oberon Daniel Lucas Felix Joe
Michael Robert William Thomas Charles Joseph Andrew Matthew Philip Stephen Anthony Patrick
Martin Hector Julius Angelo Claudio Lorenzo Antonio Sebastian Tybalt Benedick Orlando
Prospero Macbeth Banquo Lear Othello Iago Cassio Brutus Caesar Marcus Felix Rufus Jasper
Otto Hans Karl Pierre Louis Jacques Pablo Diego Mario Luigi Kevin Brian Colin Neil""".split()

MODERN_NAMES = """Aiden Brandon Caleb Dylan Ethan Gavin Hunter Isaac Jordan Kyle Logan Mason Nathan
Owen Parker Ryan Tyler Wyatt Zachary Austin Chase Derek Elliot Garrett Jared Liam Marcus Nolan Riley
Tristan Ahmed Omar Raj Arjun Kenji Hiroshi Mateo Santiago Luca Marco Sven Lars Tariq Yusuf Dmitri
Abigail Brooke Chloe Destiny Elena Fiona Gabriela Harper Jasmine Kayla Madison Natalie Paige Quinn
Savannah Taylor Vanessa Whitney Yasmin Zara Aisha Fatima Leila Mei Yuki Ingrid Freya Astrid Carmen
Lucia Valentina Bianca Chiara Ines Noor Sofia Camila Renata Daniela Gloria Monica Tiffany Brittany""".split()


# Function words never fill a slot (they would read as grammar, not as a thing).
STOP = set("""the and that this with for not but you his her him she they them their our
your are was were have had has from what which who whom when where there then than thee thou
thy thine will would shall should can could may might must been being into unto upon all any
some such very its itself our ours one two him how why now yet nor too also are let did does
done say said more most much many own out off over under again here hence""".split())


def split_every(words, every=5):
    s = sorted(set(words))
    held = {w for i, w in enumerate(s) if i % every == every - 1} | (FORCE_HELD & set(s))
    return [w for w in s if w not in held], [w for w in s if w in held]


def split_parts(parts, every=5):
    """Every fifth part (in list order) is held out for eval."""
    return ([p for i, p in enumerate(parts) if i % every != every - 1],
            [p for i, p in enumerate(parts) if i % every == every - 1])


def hashed_held(w):
    return zlib.crc32(w.encode()) % 10 == 0


# ---------------------------------------------------------------- parts

POSS = """my|our|his|her|their|my uncle's|my aunt's|the farmer's|the king's|the old man's|my
neighbour's|the teacher's|my brother's|my sister's|the baker's|the queen's|the captain's|my
friend's|the doctor's|grandmother's""".replace("\n", " ").split("|")
POSS = [p.strip() for p in POSS]

SUBJ = ["I", "we", "my mother", "my father", "the old man", "the children", "my brother",
        "my sister", "the boy", "the girl", "the farmer", "the king", "the teacher", "my friend",
        "the stranger", "my grandfather", "the soldiers", "the sailors", "my aunt", "the guests",
        "the cook", "the little boy", "the neighbours", "everyone", "nobody", "my cousin",
        "the whole family", "the prince", "the princess", "the priest", "the merchant",
        "the students", "my uncle", "the villagers", "the shepherd", "the painter"]

OPENERS = ["", "", "", "Later ", "The next day ", "But ", "Still, ", "So ", "Now ", "That night ",
           "After dinner ", "In the morning ", "Years later ", "Of course ", "Then ", "Soon ",
           "When spring came, ", "Every day ", "On Sunday ", "At last ", "Even so, ",
           "After a while ", "One evening ", "Sometimes ", "Before long ", "When I came home, ",
           "At the market ", "In the end ", "By noon ", "All the same, "]

TIMES = ["", "", "", " last year", " yesterday", " in the spring", " long ago", " this morning",
         " last week", " when I was young", " before the war", " every summer", " on Monday"]

PLACES = ["", "", " in the garden", " by the river", " in the kitchen", " at the fair",
          " on the hill", " near the church", " behind the house", " in the forest",
          " at the market", " on the beach", " in the attic", " by the door", " in town"]

# A: setup sentences that give a thing an attribute {A}; {N} is the thing.
A_SETUP = [
    "{Poss} {N} is {A}.", "{Poss} {N} was {A}.", "{Subj} had a {A} {N}{time}.",
    "There was a {A} {N}{place}.", "{Subj} bought a {A} {N}{place}.",
    "{Poss} {N} turned {A}{time}.", "The {N}{place} looked {A}.", "{Name} painted the {N} {A}.",
    "{Subj} found a {A} {N}{place}.", "{Name} has a {N} that is {A}.",
    "Everyone knows that {poss} {N} is {A}.", "{Subj} once saw a {A} {N}{place}.",
    "The {N} that {Name} made was {A}.", "{Name}'s {N} is very {A}.",
    "{Subj} came home with a {A} {N}.", "In our town there is a {A} {N}.",
    "{Poss} new {N} is {A}.", "{Subj} said the {N} was {A}.", "It was a {A} {N}.",
    "{Name} gave me a {A} {N}{time}.", "The {N} was {A} all over.", "{Subj} dreamed of a {A} {N}.",
    "We have a {N}, and it is {A}.", "{Name} keeps a {A} {N}{place}.", "The {N} in the story was {A}.",
]
# A: call-back endings that want the attribute before the noun ({det} then word, then " {N}")
A_VP = ["had never seen", "wanted to see", "laughed at", "asked about", "talked about",
        "could not stop looking at", "took a picture of", "went to look at", "dreamed about",
        "wrote a song about", "did not believe in", "would love to have", "told everyone about",
        "pointed at", "walked past", "was afraid of", "stared at", "came to see",
        "asked to touch", "painted a picture of", "had heard stories about", "wanted to buy",
        "made fun of", "kept thinking about", "loved", "hated", "remembered", "looked for",
        "ran after", "sang about", "could not forget", "wanted to paint", "asked me for",
        "was proud of", "showed me", "brought home", "waited for", "drew", "searched for",
        "sat beside", "spoke of", "hid", "cleaned", "wished for"]
A_DETS = ["the", "the", "the", "a", "a", "that", "{poss}", "this", "such a", "another"]
# A: call-backs that want the attribute as a predicate: "... that the {N} was" -> A
A_PRED = ["{Subj2} could not believe that the {N} was", "{Subj2} said that the {N} was",
          "Nobody knew why the {N} was", "{Subj2} still thinks the {N} is",
          "\"Why is the {N} so", "\"Is the {N} really", "{Subj2} told me the {N} was",
          "It is true that the {N} was", "{Subj2} wondered how the {N} had become so",
          "I always forget that {poss} {N} is", "{Subj2} asked if the {N} was always"]
A_QUOTE = ["\"Look,\" said {Name2}, \"{det}", "\"Have you ever seen {det}", "\"Where did you get {det}",
           "\"Who owns {det}", "\"I want {det}", "\"Is that {det}", "\"Give me {det}",
           "\"What a lovely", "\"Do you still have {det}"]

# N: setup sentences with the object {N} (no attribute on it).
N_SETUP = [
    "{Subj} lost {poss} {N}{place}.", "{Subj} found a {N}{place}.", "{Subj} bought a {N}{time}.",
    "{Subj} hid {poss} {N}{place}.", "{Subj} left {poss} {N}{place}.", "{Subj} dropped the {N}{place}.",
    "{Name} gave me a {N}{time}.", "{Subj} made a {N} for {Name}.", "There was a {N}{place}.",
    "{Subj} forgot {poss} {N}{place}.", "{Name} brought a {N} to school.", "{Subj} borrowed a {N} from {Name}.",
    "{Subj} kept a {N} under the bed.", "The {N} belonged to {Name}.", "{Subj} broke the {N}{time}.",
    "{Name} carried a {N}{place}.", "{Subj} put the {N} on the table.", "{Subj} sold the {N}{time}.",
    "{Name} wanted a {N} for a long time.", "{Subj} buried a {N}{place}.",
    "{Subj} saw a {N}{place}.", "{Name} was given a {N}{time}.", "{Subj} won a {N} at the fair.",
    "In the box there was a {N}.", "{Subj} wrapped up the {N}{time}.",
]
N_VP = ["looked everywhere for", "could not find", "went back for", "picked up", "asked for",
        "found", "cleaned", "put away", "carried", "wanted", "took", "opened", "used", "fixed",
        "needed", "looked at", "thought about", "sold", "gave me", "missed", "lost",
        "painted", "washed", "hid", "kept", "ran home for", "asked about", "counted",
        "dropped", "wrapped up", "reached for", "came back with", "held up", "showed us",
        "threw away", "forgot", "checked", "polished", "sat on", "talked about", "returned",
        "searched for"]
N_DETS = ["the", "the", "the", "{poss}", "{poss}", "that", "this"]
N_QUOTE = ["\"Where is {det}", "\"Have you seen {det}", "\"Bring me {det}", "\"Who took {det}",
           "\"I need {det}", "\"Can I borrow {det}", "\"Put down {det}", "\"Don't touch {det}"]

# P: setup sentences that name a person {P}.
P_SETUP = [
    "{P} is my neighbour.", "{P} lives next door.", "{P} came to visit us{time}.",
    "The new teacher is called {P}.", "I have a friend called {P}.", "My cousin's name is {P}.",
    "There was a girl named {P}.", "There was a man named {P}.", "{P} lent me a book{time}.",
    "{P} sat next to me on the train.", "{P} won the race{time}.", "{P} baked a cake for us.",
    "Our guide was a woman called {P}.", "{P} works at the bakery.", "A boy called {P} moved here{time}.",
    "{P} and I went fishing{time}.", "{P} wrote me a letter{time}.", "{P} is the best singer in town.",
    "The captain of the ship was {P}.", "{P} helped me carry the boxes.", "{P} found my dog{time}.",
    "I met {P} at the fair.", "{P} was the oldest person in the village.", "Everyone likes {P}.",
    "{P} gave me a present{time}.",
]
P_VP = ["said hello to", "waved at", "gave the book back to", "wrote a letter to", "smiled at",
        "sat down next to", "waited for", "ran to", "listened to", "asked", "thanked", "called",
        "visited", "helped", "told the story to", "shook hands with", "went home with",
        "danced with", "looked for", "was angry with", "laughed with", "had dinner with",
        "sent a card to", "sang a song for", "bought flowers for", "talked to", "played with",
        "wrote about", "dreamed of", "argued with", "walked home with", "cooked for",
        "made a cake for", "could not stop thinking about", "gave the money to", "asked about",
        "sat with", "went to see", "phoned", "missed"]
P_QUOTE = ["\"Good morning,\" said the baker to", "\"Thank you,\" I said to",
           "\"Where are you going?\" asked", "\"Come here,\" said the teacher to",
           "\"Wait for me!\" I shouted to", "\"Happy birthday,\" we sang to",
           "Everyone asked, \"Where is", "\"Have you seen", "\"Look, there is"]

PLAIN_FILLERS = [
    "It was a cold morning.", "The wind blew from the sea.", "Nobody said a word.",
    "The bells rang in the town.", "It rained all day.", "The road was long.",
    "Night came slowly.", "Time passed.", "The river was high that spring.",
    "The sun was already low.", "A clock struck somewhere.", "Snow fell on the roofs.",
    "The market was crowded.", "We were all very tired.", "Nothing much happened that week.",
    "The summer was hot.", "I remember it well.", "It was a long time ago.",
    "The house was quiet.", "Dinner was late.", "Everyone went to bed early.",
    "Then the rain stopped.", "The birds were singing.", "A dog barked in the street.",
]
TAILS = [".", ".", ".", ".", " again.", "!", " once more.", " that day.", ", of course.", "?"]


# Training-only modern parts (stage 6): everyday present-day
# phrasings, so that call-backs are not only storybook or Shakespeare. They are
# never in the held-out split, so eval_cases() is unchanged.
MODERN_SUBJ = ["my roommate", "my boss", "the delivery guy", "my best friend", "the new guy at work",
               "my flatmate", "our manager", "the kids next door", "my girlfriend", "my boyfriend",
               "my classmates", "the whole team", "my followers", "the barista", "my landlord",
               "the group chat", "my coworker", "the nurse", "the taxi driver", "everyone online"]
MODERN_OPENERS = ["Honestly, ", "Anyway, ", "Last weekend ", "On Monday ", "After lunch ", "This week ",
                  "Right after the meeting ", "Before the game ", "During the call ", "Two days later "]
MODERN_A_VP = ["keeps posting photos of", "made fun of", "totally fell in love with", "left a review of",
               "sent me a picture of", "could not stop staring at", "took a selfie with", "kept asking about",
               "ordered another", "complained about"]
MODERN_N_VP = ["forgot to charge", "left behind", "could not unlock", "accidentally broke",
               "ordered a new", "spent an hour looking for", "finally found", "tried to sell",
               "posted a photo of", "dropped", "returned", "borrowed", "plugged in", "lost track of"]
MODERN_P_VP = ["texted", "sent an email to", "video-called", "shared the link with", "forwarded the file to",
               "gave a lift to", "sat next to", "voted for", "waited for", "asked for help from",
               "split the bill with", "got a message from", "bumped into", "ran into", "followed"]
MODERN_P_SETUP = ["My new coworker is called {P}.", "{P} just joined our team.", "{P} messaged me{time}.",
                  "I matched with someone called {P}.", "Our landlord is a guy named {P}.",
                  "The new manager, {P}, starts on Monday.", "{P} runs the coffee shop downstairs.",
                  "My phone keeps showing a missed call from {P}.", "{P} posted a video{time}.",
                  "There is a student named {P} in my class."]
MODERN_N_SETUP = ["{Subj} ordered a {N} online{time}.", "{Subj} left {poss} {N} on the bus.",
                  "{Subj} got a {N} for {poss} birthday.", "{Subj} is selling {poss} old {N}.",
                  "There is a {N} on my desk at work.", "{Subj} charged {poss} {N} overnight."]
MODERN_A_SETUP = ["{Poss} new {N} is {A}.", "{Subj} bought a {A} {N} online{time}.",
                  "The {N} in the ad was {A}.", "{Subj} just got a {A} {N}.",
                  "Everyone at work has a {A} {N} now."]


def _an(text):
    """a -> an before a vowel letter (also across | markers)."""
    return re.sub(r"\b([Aa]) ([aeiouAEIOU])", r"\1n \2", text)


class Words:
    """Slot words of one split: curated lists, vocabulary words, multi-token words."""

    def __init__(self, tok, held):
        k = 1 if held else 0
        ls = synth.lists()
        A = split_every(synth.COLOURS + synth.ADJECTIVES + MORE_ADJ)[k]
        N = split_every(synth.NOUNS + MORE_NOUNS)[k]
        P = split_every(synth.FEMALE + synth.MALE + MORE_FEMALE + MORE_MALE)[k]
        del ls
        one = lambda w: len(tok.encode(" " + w)) == 1  # noqa: E731
        self.A = [w for w in A if one(w)]
        self.N = [w for w in N if one(w)]
        self.P = [w for w in P if one(w)]
        self.multi = {"A": [w for w in A if not one(w)], "N": [w for w in N if not one(w)],
                      "P": [w for w in P if not one(w)]}
        if not held and MODERN:  # training-only extra names, most of several tokens
            import os as _os
            here = _os.path.dirname(_os.path.abspath(__file__))
            avoid = {w.strip() for f in ("heldout.txt", "heldout2.txt") if _os.path.exists(_os.path.join(here, f))
                     for _, w in read_heldout(_os.path.join(here, f))}
            extra = [w for w in MODERN_NAMES if w not in avoid and w not in P]
            self.P = self.P + [w for w in extra if one(w)]
            self.multi["P"] = self.multi["P"] + [w for w in extra if not one(w)]
        listed = set(A) | set(N) | set(P) | FORCE_HELD
        other = set(split_every(synth.COLOURS + synth.ADJECTIVES + MORE_ADJ)[1 - k]) | set(
            split_every(synth.NOUNS + MORE_NOUNS)[1 - k]) | set(
            split_every(synth.FEMALE + synth.MALE + MORE_FEMALE + MORE_MALE)[1 - k])
        low, cap = [], []
        lower_tokens = {s[1:] for s in tok.vocab if re.fullmatch(r"Ġ[a-z]+", s)}
        for s in tok.vocab:
            w = s[1:]
            if w in listed or w in other or w in FORCE_HELD or hashed_held(w) != held:
                continue
            if re.fullmatch(r"Ġ[a-z]{3,}", s) and w not in STOP:
                low.append(w)
            elif re.fullmatch(r"Ġ[A-Z][a-z]{2,}", s) and w.lower() not in lower_tokens:
                cap.append(w)
        self.low, self.cap = sorted(low), sorted(cap)
        self.noun_all = self.N

    def pick(self, rng, role, vocab_share, multi_share):
        r = rng.random()
        if r < multi_share and self.multi[role]:
            return rng.choice(self.multi[role])
        if rng.random() < vocab_share:
            return rng.choice(self.cap if role == "P" else self.low)
        return rng.choice({"A": self.A, "N": self.N, "P": self.P}[role])


class Parts:
    def __init__(self, held):
        k = 1 if held else 0
        sp = lambda xs: split_parts(xs)[k]  # noqa: E731
        self.A_SETUP, self.A_VP, self.A_PRED, self.A_QUOTE = sp(A_SETUP), sp(A_VP), sp(A_PRED), sp(A_QUOTE)
        self.N_SETUP, self.N_VP, self.N_QUOTE = sp(N_SETUP), sp(N_VP), sp(N_QUOTE)
        self.P_SETUP, self.P_VP, self.P_QUOTE = sp(P_SETUP), sp(P_VP), sp(P_QUOTE)
        self.SUBJ, self.OPENERS, self.POSS = sp(SUBJ), sp(OPENERS) + [""], sp(POSS)
        self.FILLERS = sp(PLAIN_FILLERS)
        if not held and MODERN:
            self.A_SETUP, self.N_SETUP = self.A_SETUP + MODERN_A_SETUP, self.N_SETUP + MODERN_N_SETUP
            self.P_SETUP = self.P_SETUP + MODERN_P_SETUP
            self.A_VP, self.N_VP, self.P_VP = self.A_VP + MODERN_A_VP, self.N_VP + MODERN_N_VP, self.P_VP + MODERN_P_VP
            self.SUBJ, self.OPENERS = self.SUBJ + MODERN_SUBJ, self.OPENERS + MODERN_OPENERS


def cap1(s):
    return s[:1].upper() + s[1:]


class Gen:
    """Stories as (prompt, answer, tail): prompt ends right before the answer
    word (no trailing space), answer has its leading space."""

    def __init__(self, tok, held=False, seed=0, vocab_share=0.5, multi_share=0.1, lines=None,
                 frames=None, frame_share=0.5):
        self.rng = random.Random(seed)
        self.roles = "AAANNP" if held else ROLES
        self.w = Words(tok, held)
        self.p = Parts(held)
        self.vocab_share, self.multi_share = vocab_share, multi_share
        self.lines = lines or []
        frames = frames or []
        self.low_frames = [f for f in frames if f[1] == "low"]
        self.cap_frames = [f for f in frames if f[1] == "cap"]
        self.frame_share = frame_share

    def frame(self, kind):
        """A corpus frame of kind, or None (no frames, or not this time)."""
        fs = self.low_frames if kind == "low" else self.cap_frames
        if not fs or self.rng.random() >= self.frame_share:
            return None
        prefix, _, rest = self.rng.choice(fs)
        return prefix, rest

    def word(self, role):
        return self.w.pick(self.rng, role, self.vocab_share, self.multi_share)

    def name(self):
        return self.rng.choice(self.w.P)

    def fillers(self):
        r = self.rng
        n = r.choice([0, 0, 0, 1, 1, 2, 3])
        out = []
        for _ in range(n):
            if self.lines and r.random() < 0.5:
                out.append(r.choice(self.lines))
            else:
                out.append(r.choice(self.p.FILLERS))
        return out

    def slots(self, s, **v):
        r, p = self.rng, self.p
        fill = {"Poss": cap1(r.choice(p.POSS)), "poss": r.choice(p.POSS), "Subj": cap1(r.choice(p.SUBJ)),
                "time": r.choice(TIMES), "place": r.choice(PLACES), "Name": self.name()}
        fill.update(v)
        return s.format(**fill)

    def story(self):
        role = self.rng.choice(self.roles)
        self.role = role
        return {"A": self.story_a, "N": self.story_n, "P": self.story_p}[role]()

    def callback(self, vps, dets):
        r, p = self.rng, self.p
        subj = r.choice(p.SUBJ + [self.name()] * 4)
        det = r.choice(dets).replace("{poss}", r.choice(p.POSS))
        head = r.choice(p.OPENERS) + subj + " " + r.choice(vps) + " " + det
        return cap1(head)

    def story_a(self):
        r, p = self.rng, self.p
        A, N = self.word("A"), r.choice(self.w.N)
        setup = self.slots(r.choice(p.A_SETUP), A=A, N=N)
        mid = self.fillers()
        if r.random() < 0.3:  # a distractor of another role: a name or an object
            mid.insert(r.randrange(len(mid) + 1), self.slots(r.choice(p.N_SETUP), N=r.choice(self.w.N)))
        k = r.random()
        fr = self.frame("low")
        if fr:
            cb, tail = fr[0], " " + N + fr[1]
        elif k < 0.6:
            cb, tail = self.callback(p.A_VP, A_DETS), " " + N + r.choice(TAILS)
        elif k < 0.8:
            cb = self.slots(r.choice(p.A_PRED), N=N, Subj2=cap1(r.choice(p.SUBJ)))
            tail = "?\"" if cb.startswith("\"") else "."
        else:
            det = r.choice(["a", "the", "that", "this"])
            cb = self.slots(r.choice(p.A_QUOTE), det=det, Name2=self.name())
            tail = " " + N + r.choice(["!\"", "?\"", ".\""])
        return self.join(setup, mid, cb, " " + A, tail)

    def story_n(self):
        r, p = self.rng, self.p
        N = self.word("N")
        setup = self.slots(r.choice(p.N_SETUP), N=N)
        mid = self.fillers()
        if r.random() < 0.3:  # an attribute of something else, or a person
            mid.insert(r.randrange(len(mid) + 1),
                       self.slots(r.choice(p.P_SETUP), P=self.name()) if r.random() < 0.5 else
                       self.slots(r.choice(p.A_SETUP[:6]), A=r.choice(self.w.A), N=r.choice(self.w.N)))
        fr = self.frame("low")
        if fr:
            cb, tail = fr
        elif r.random() < 0.8:
            cb, tail = self.callback(p.N_VP, N_DETS), r.choice(TAILS)
        else:
            det = r.choice(["the", "my", "your", "that"])
            cb, tail = self.slots(r.choice(p.N_QUOTE), det=det), "?\""
        return self.join(setup, mid, cb, " " + N, tail)

    def story_p(self):
        r, p = self.rng, self.p
        P = self.word("P")
        setup = self.slots(r.choice(p.P_SETUP), P=P)
        mid = self.fillers()
        if r.random() < 0.3:
            mid.insert(r.randrange(len(mid) + 1), self.slots(r.choice(p.N_SETUP), N=r.choice(self.w.N)))
        fr = self.frame("cap")
        if fr:
            cb, tail = fr
        elif r.random() < 0.8:
            cb, tail = self.callback(p.P_VP, [""]).rstrip(" "), r.choice(TAILS)
        else:
            cb = r.choice(p.P_QUOTE)
            tail = "?\"" if cb.endswith(("Where is", "seen", "there is")) else "."
        return self.join(setup, mid, cb, " " + P, tail)

    def join(self, setup, mid, cb, answer, tail):
        prompt = _an(" ".join([cap1(setup)] + mid + [cb]))
        if re.search(r"\ban?$", prompt) and answer[1:2] in "aeiouAEIOU":
            prompt = prompt + "n" if prompt.endswith(" a") else prompt
        if prompt.endswith(" an") and answer[1:2] not in "aeiouAEIOU":
            prompt = prompt[:-1]
        if FORBIDDEN.search(prompt + answer + tail):
            return self.story()
        return prompt, answer, tail


def sentence_lines(texts, rng, n=4000):
    """Short whole sentences of the training text, for fillers."""
    out = []
    for t in texts:
        for s in re.split(r"(?<=[.!?])\s+", t.replace("\n", " ")):
            s = s.strip()
            if 20 <= len(s) <= 90 and s[0].isupper() and not FORBIDDEN.search(s):
                out.append(s)
    rng.shuffle(out)
    return out[:n]


LOW_DET = r"(?:the|a|an|my|his|her|our|their|your|this|that|thy|no)"
CAP_BEFORE = r"(?:to|for|with|of|at|by|from|and|said|asked|told|loved|saw|thank|call|called|is|was|me|you)"


def corpus_frames(texts, rng, n=30000):
    """Call-back frames cut out of the training text: a sentence up to a
    determiner before a lower-case word ("... and give it to the"), or up
    to a word before a capitalised name ("... I will speak with"); the
    rest of the sentence after that word is the tail. Thousands of natural
    frames, so that the fetch is not tied to a few wordings.
    [(prefix, kind, rest)], kind "low" or "cap"."""
    out = []
    for t in texts:
        for sent in re.split(r"(?<=[.!?;])\s+", t.replace("\n", " ")):
            sent = sent.strip()
            if not 25 <= len(sent) <= 160 or FORBIDDEN.search(sent):
                continue
            cands = [(m.start(1) - 1, "low", m.end(1)) for m in
                     re.finditer(r"\b" + LOW_DET + r" ([a-z]{3,})\b", sent)]
            cands += [(m.start(1) - 1, "cap", m.end(1)) for m in
                      re.finditer(r"\b" + CAP_BEFORE + r" ([A-Z][a-z]{2,})\b", sent)]
            cands = [c for c in cands if c[0] >= 12]
            if cands:
                cut, kind, end = rng.choice(cands)
                out.append((cap1(sent[:cut]), kind, sent[end:]))
                # the same frame without its determiner after a preposition
                # wants a name: "... give it back to the" -> "... give it back to"
                m = re.search(r" (?:to|for|with|of|at|by|from|is|was|and|saw|love|call) " + LOW_DET + "$", sent[:cut])
                if kind == "low" and m:
                    out.append((cap1(sent[:cut].rsplit(" ", 1)[0]), "cap", sent[end:]))
    rng.shuffle(out)
    return out[:n]


def eval_set(tok, n=300, seed=2024):
    """Held-out parts x held-out words: [(prompt, answer)]."""
    g = Gen(tok, held=True, seed=seed, vocab_share=0.3, multi_share=0.0)
    return [g.story()[:2] for _ in range(n)]


def eval_cases(tok, n=300, seed=2024):
    """eval_set with the role of each answer: [(prompt, answer, role)],
    role "adjective", "noun" or "name"."""
    g = Gen(tok, held=True, seed=seed, vocab_share=0.3, multi_share=0.0)
    names = {"A": "adjective", "N": "noun", "P": "name"}
    out = []
    for _ in range(n):
        p, a, _ = g.story()
        out.append((p, a, names[g.role]))
    return out


def train_probe(tok, n=100, seed=77):
    g = Gen(tok, held=False, seed=seed, vocab_share=0.3, multi_share=0.0)
    return [g.story()[:2] for _ in range(n)]


def read_heldout(path):
    out = []
    for line in open(path, encoding="utf-8"):
        if line.startswith("#") or not line.strip():
            continue
        s, w = line.rstrip("\n").split("\t")
        out.append((s, " " + w))
    return out


if __name__ == "__main__":
    import bpe
    tok = bpe.Tokenizer.load("assets/demo/tokenizer.json")
    g = Gen(tok, seed=1)
    print(len(g.w.A), len(g.w.N), len(g.w.P), len(g.w.low), len(g.w.cap), {k: len(v) for k, v in g.w.multi.items()})
    for _ in range(25):
        p, a, t = g.story()
        print(p + " [" + a + "]" + t)
    print("--- held")
    for p, a in eval_set(tok, 12):
        print(p + " [" + a + "]")
