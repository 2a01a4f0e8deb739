// Reference ids for the small tokenizer.json files of
// engine/tokenizer/testdata/small (made by make_small.py) from Hugging Face
// tokenizers, the Rust library, through its Node binding:
//
//   npm install tokenizers@0.23.2
//   node gen_cases.js ../../engine/tokenizer/testdata/small
//
// For each NAME.tokenizer.json it writes NAME.cases.jsonl: {text, ids} with
// the file's own special tokens (add_special_tokens=true: the BOS of a
// TemplateProcessing), and {text, ids, decoded} where decoded is
// decode(ids, skip_special_tokens=true). Never regenerate these from
// Loupe's own output.
const fs = require('fs');
const path = require('path');
const { Tokenizer } = require('tokenizers');
const dir = process.argv[2];

const fixed = [
  "", " ", "  ", "Hello", " Hello", "Hello world", "Hello  world", "Once upon a time, there was a little girl named Lily.",
  "She liked to play outside.\n\nOne day", "a\nb", "\n", "line\r\nline", "tabs\tand  spaces  ", "trailing ",
  "I'm fine, THEY'RE OK.", "don't", "1234567", "3.14 1,000 2024-12-01", "x = 12+34;  // ok", "price: $9.99!!",
  "café", "naïve", "über straße", "你好，世界", "привет мир", "😀 emoji", "∑ and ∫", "\u00a0nbsp", "e\u0301",
  "<s>Hello", "Hello</s>", "a<s>b", " <s> x", "<unk>", "<|begin_of_text|>Hi", "x<|end_of_text|>",
  "The quick brown fox jumps over the lazy dog.", "   leading", "ends with newline\n",
];
let seed = 20261201;
function rnd() { seed = (seed * 1664525 + 1013904223) >>> 0; return seed / 4294967296; }
const pal = ["a", "e", "the", " the", "he", "ll", "o", "Once", " upon", " time", "Lily", " ", " ", "  ", "\n", "\t",
  "'", "'s", "'RE", ",", ".", "!", "?", "-", "(", ")", "0", "1", "42", "123", "٣", "é", "ü", "ß", "你", "好", "世界",
  "п", "ривет", "😀", "→", "€", "\u00a0", "e\u0301", "<s>", "</s>", "<|begin_of_text|>", "▁", "_"];
function randomText() {
  let s = "";
  for (let j = 1 + Math.floor(rnd() * 10); j > 0; j--) s += pal[Math.floor(rnd() * pal.length)];
  return s;
}

(async () => {
  for (const f of fs.readdirSync(dir).filter(f => f.endsWith('.tokenizer.json')).sort()) {
    const tok = Tokenizer.fromFile(path.join(dir, f));
    const texts = fixed.slice();
    for (let i = 0; i < 400; i++) texts.push(randomText());
    const out = [];
    for (const text of texts) {
      const e = await tok.encode(text, null, { addSpecialTokens: true });
      const ids = e.getIds();
      out.push(JSON.stringify({ text, ids, decoded: await tok.decode(ids, true) }));
    }
    fs.writeFileSync(path.join(dir, f.replace('.tokenizer.json', '.cases.jsonl')), out.join("\n") + "\n");
  }
})();
