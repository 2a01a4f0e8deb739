// Regenerates the reference fixtures of this folder from Hugging Face
// tokenizers (the Rust library, through its Node binding):
//
//   npm install tokenizers@0.23.2
//   node gen-hf-cases.js ../../../assets/qwen2.5/tokenizer.json
//
// hf-edge.jsonl:   hand-picked edge cases          {text, ids}
// hf-random.jsonl: seeded random strings           {text, ids}
// hf-decode.jsonl: seeded random id sequences      {ids, text} (skip_special_tokens=false)
// hf-strip.jsonl:  added-token flags on an edited copy of the file  {text, ids}
// Never regenerate these from Loupe's own output.
const fs = require('fs');
const { Tokenizer } = require('tokenizers');
const tok = Tokenizer.fromFile(process.argv[2]);

const edge = [
  "", " ", "  ", "   ", "\t", "\n", "\r\n", "\r", "\n\n\n", " \n", "  \n", " \n ", "\n ", "\t\n\t",
  "a", "A", "1", "12", "123456789012", "3.14", "1,000,000", "-42", "+7", "1e-5", "0x1F", "v1.2.3",
  "٣٤٥", "１２３", "x² + y³", "½ cup", "Ⅻ chapters", "১২৩",
  "hello  world", "hello   world", "hello    world", "hello \tworld", "hello\t\tworld", "a\t1", "a  1", "a \n1",
  "trailing space ", "trailing spaces   ", "trailing tab\t", "trailing newline \n", "two lines \n  next",
  "  leading", "\tleading tab", "\n\nleading newlines", " \n\nx", "line\r\nline\r\n", "a\r\n\r\nb", "a\n \nb",
  "x = 12+34;  // ok", "if (a<b) { return; }\n", "print('hi')  # comment", "a==b!=c", "...", "?!", "—", "–", "…",
  "«quoted»", "“smart quotes”", "‘single’", "it’s", "it's", "It'S", "I'M", "we'Re", "they'vE", "she'LL", "he'D",
  "don't", "DON'T", "'s", "'re", "'", "''", "'''", "'quoted'", "\"double\"", "rock 'n' roll", "o'clock", "90's", "'90s",
  "a's b't c're d've e'm f'll g'd", "x 's", "x  's", "x\n's",
  "你好，世界！", "東京タワー", "한국어 텍스트", "Привет, мир!", "مرحبا بالعالم", "שלום עולם", "नमस्ते दुनिया", "สวัสดีครับ", "Γειά σου Κόσμε",
  "😀", "😀😀", "👨‍👩‍👧‍👦", "👍🏽", "🇯🇵🇫🇷", "❤️", "I ❤️ Go", "emoji😀inside", " 😀 ",
  "e\u0301", "cafe\u0301", "A\u030A", "\u0301", "a\u0301\u0301", "\u1100\u1161\u11A8", "ﬁ", "Å", "\u212B", "\u2126",
  "\u00A0", "a\u00A0b", "a\u00A0\u00A0b", "a\u2003b", "a\u3000b", "a\u200Bb", "a\uFEFFb", "a\u0085b", "a\u2028b", "\u000B\u000C",
  "<|im_start|>", "<|im_end|>", "<|endoftext|>", "<|im_start|>user\nhi<|im_end|>", "<|im_start|>system\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>\n<|im_start|>user\nWhat is the capital of France?<|im_end|>\n<|im_start|>assistant\n",
  "text<|im_end|>text", " <|im_end|> ", "<|im_end|><|im_end|>", "<|im_end", "<|im_end|", "<<|im_end|>>", "<|<|im_start|>|>",
  "<tool_call>\n{\"name\": \"f\"}\n</tool_call>", "<|fim_prefix|>def f():<|fim_suffix|>\n<|fim_middle|>", "<|file_sep|>", "<|repo_name|>x",
  "<think>", "</think>", "<tool_response>",
  "https://example.com/a?b=c&d=e#f", "user@example.com", "C:\\Program Files\\x", "~/.config/loupe", "#include <stdio.h>",
  "ÀÉÎÕÜ àéîõü", "Straße", "İstanbul", "ǅemal", "ſtate", "Ω", "µ", "K",
];

let seed = 20261129;
function rnd() { seed = (seed * 1664525 + 1013904223) >>> 0; return seed / 4294967296; }
const pal = [
  "a", "e", "s", "t", "x", "S", "T", "D", "M", "L", "hello", " the", "world", "it", "I",
  "0", "1", "7", "42", "٣", "１", "²", "½", "Ⅻ",
  " ", " ", "  ", "\t", "\n", "\r", "\r\n", "\n\n", "\u000b", "\u0085", "\u00a0", "\u2028", "\u3000", "\u2003", "\u200b",
  "'", "'s", "'S", "'t", "'re", "'RE", "'ve", "'m", "'ll", "'d", "’", "\"",
  ".", ",", "!", "?", "-", "_", "(", ")", "{", "}", "<", ">", "/", "\\", "|", "#", "$", "%", "&", "*", "+", "=", "@",
  "é", "e\u0301", "\u0301", "A\u030a", "ñ", "ß", "İ", "ﬁ",
  "你好", "，", "。", "東京", "ひらがな", "한국어", "\u1100\u1161", "мир", "مرحبا", "हिन्दी", "ไทย",
  "😀", "🍕", "👍🏽", "👨‍👩‍👧", "🇫🇷", "❤️", "→", "€",
  "<|im_start|>", "<|im_end|>", "<|endoftext|>", "<think>", "<tool_call>", "<|im_start", "|>",
];
function randomText() {
  let s = "";
  for (let j = 1 + Math.floor(rnd() * 10); j > 0; j--) s += pal[Math.floor(rnd() * pal.length)];
  return s;
}
function randomIDs() {
  const ids = [];
  for (let j = 1 + Math.floor(rnd() * 8); j > 0; j--) {
    const r = rnd(); // mostly single bytes, so that UTF-8 breaks often
    ids.push(r < 0.6 ? Math.floor(rnd() * 256) : r < 0.97 ? Math.floor(rnd() * 151643) : 151643 + Math.floor(rnd() * 22));
  }
  return ids;
}

const stripCases = ["a  <|im_end|>  b", "<|im_start|>  \n x", "x<|im_start|> y", "a<tool_call>b", "a <tool_call> b",
  "<tool_call>", "é<tool_call>", "_<tool_call>", " <tool_call>1", "1<tool_call>", "a \n<|file_sep|>\n b",
  "<|im_end|> <|im_end|>", "x <|im_start|> <|im_end|> y", "\u00a0<|im_end|>", "<|im_start|>\u3000x"];

// stripTokenizer is the file with lstrip/rstrip/single_word set on four
// added tokens (Qwen uses none of them; TestHFAddedTokenFlags edits the
// same way).
function stripTokenizer() {
  const f = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
  const flags = { "<|im_end|>": ["lstrip"], "<|im_start|>": ["rstrip"], "<tool_call>": ["single_word"], "<|file_sep|>": ["lstrip", "rstrip"] };
  for (const t of f.added_tokens) for (const k of flags[t.content] || []) t[k] = true;
  return Tokenizer.fromString(JSON.stringify(f));
}

(async () => {
  const enc = async (texts, tk = tok) => {
    const out = [];
    for (const text of texts) {
      const e = await tk.encode(text, null, { addSpecialTokens: false });
      out.push(JSON.stringify({ text, ids: e.getIds() }));
    }
    return out.join("\n") + "\n";
  };
  fs.writeFileSync("hf-edge.jsonl", await enc(edge));
  const rand = [];
  for (let i = 0; i < 800; i++) rand.push(randomText());
  fs.writeFileSync("hf-random.jsonl", await enc(rand));
  const dec = [];
  for (let i = 0; i < 400; i++) {
    const ids = randomIDs();
    dec.push(JSON.stringify({ ids, text: await tok.decode(ids, false) }));
  }
  fs.writeFileSync("hf-decode.jsonl", dec.join("\n") + "\n");
  fs.writeFileSync("hf-strip.jsonl", await enc(stripCases, stripTokenizer()));
})();
