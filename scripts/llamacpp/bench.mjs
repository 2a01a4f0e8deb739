// Times llama.cpp on one GGUF file the way `loupe bench` times Loupe:
// one untimed warm-up, then a prefill of the prompt as one batch and a
// greedy decode, one forward pass a token. llama.cpp comes as the prebuilt
// CPU libraries of node-llama-cpp (npm), which pick the build for this
// CPU's features at load time (AVX2, AVX-512, AVX512-BF16 ...).
//
// usage: [LLAMA_FA=1] node bench.mjs MODEL.gguf THREADS PROMPT_TOKENS DECODE_TOKENS [PROMPT_FILE]
// LLAMA_FA=1 turns on llama.cpp's flash attention (off by default here, as
// in node-llama-cpp; on the 2-core Zen 3 VM a 512-token prefill ran 20.1
// and 20.7 tok/s without it, 21.1 and 20.5 with it).
// prints one JSON line: prefill tok/s, decode forward passes/s (the mean
// step after the first, which re-feeds the prompt's last token), and the
// median step.
import {getLlama} from "node-llama-cpp";
import fs from "node:fs";

const [modelPath, threads, nPrompt, nDecode, promptFile] = process.argv.slice(2);
const llama = await getLlama({gpu: false, build: "never", logLevel: "error"});
const model = await llama.loadModel({modelPath, useMmap: true});
const context = await model.createContext({contextSize: 4096, threads: Number(threads), batchSize: 512, flashAttention: process.env.LLAMA_FA === "1"});
const seq = context.getSequence();

// The prompt: a file's tokens, or PROMPT_TOKENS ids spread over the
// vocabulary (speed does not depend on which ids).
let toks = [];
if (promptFile) {
  toks = model.tokenize(fs.readFileSync(promptFile, "utf8"));
} else {
  for (let i = 0; i < Number(nPrompt); i++) toks.push(1000 + (i * 7919) % 50000);
}

await seq.evaluateWithoutGeneratingNewTokens(toks.slice(0, 8)); // warm-up
await seq.clearHistory();

const t0 = performance.now();
await seq.evaluateWithoutGeneratingNewTokens(toks);
const prefillSeconds = (performance.now() - t0) / 1000;

const steps = [];
let last = performance.now();
for await (const tok of seq.evaluate([toks[toks.length - 1]], {temperature: 0})) {
  const now = performance.now();
  steps.push(now - last);
  last = now;
  if (steps.length >= Number(nDecode)) break;
}
steps.shift(); // the re-fed token's pass and the generator's start
const mean = steps.reduce((a, b) => a + b, 0) / steps.length;
const sorted = [...steps].sort((a, b) => a - b);
console.log(JSON.stringify({
  engine: "llama.cpp (node-llama-cpp 3.22.1)", threads: Number(threads),
  prompt_tokens: toks.length, prefill_seconds: prefillSeconds, prefill_tok_s: toks.length / prefillSeconds,
  decode_passes: steps.length, decode_passes_per_s: 1000 / mean, decode_median_step_ms: sorted[Math.floor(sorted.length / 2)],
}));
process.exit(0);
