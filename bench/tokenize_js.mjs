// Throughput of the JavaScript reference tokenizers on tests/fixtures/corpus/long.txt (1 MB), to set
// attnviz's own tokenizer speed against (its C++ side is timed separately). Prints MB/s per
// reference and vocabulary (best of 3 runs, after one warm-up; loading not timed); asserts nothing.
// After scripts/fetch-vocabularies.sh:
//   npm install --prefix /tmp/attnviz-js-refs @huggingface/tokenizers@0.2.0 gpt-3-encoder@1.1.4 \
//     llama3-tokenizer-js@1.2.0 llama-tokenizer-js@1.2.2
//   ATTNVIZ_JS_REFS=/tmp/attnviz-js-refs node bench/tokenize_js.mjs [TEXT_FILE]
// gpt-3-encoder is timed on the text cut into paragraphs (tests/fixtures/js_references.mjs says
// why: it is quadratic on one long text).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  fixtures, versions, hfTokenizer, gpt3Encoder, llama3TokenizerJs, llamaTokenizerJs,
} from "../tests/fixtures/js_references.mjs";

const text = readFileSync(process.argv[2] ?? join(fixtures, "corpus", "long.txt"), "utf-8");
const megabytes = Buffer.byteLength(text, "utf-8") / 1e6;

const runs = [
  [`${versions.hf}`, "gpt2-json", () => hfTokenizer("gpt2-json")],
  [`${versions.hf}`, "llama3", () => hfTokenizer("llama3")],
  [`${versions.hf}`, "llama2 (Mistral 7B)", () => hfTokenizer("llama2")],
  [`${versions.hf}`, "qwen2_5", () => hfTokenizer("qwen2_5")],
  [`${versions.hf}`, "gemma", () => hfTokenizer("gemma")],
  [`${versions.hf}`, "bert-uncased-json", () => hfTokenizer("bert-uncased-json")],
  [versions.gpt3Encoder, "gpt2", gpt3Encoder],
  [versions.llama3, "Llama 3 (baked in)", llama3TokenizerJs],
  [versions.llama2, "Llama 2 (baked in)", llamaTokenizerJs],
];

console.log(`${megabytes.toFixed(3)} MB of text`);
console.log(`${"reference".padEnd(34)} ${"vocabulary".padEnd(20)} ${"ids".padStart(8)} ${"seconds".padStart(8)} ${"MB/s".padStart(7)}`);
for (const [reference, vocabulary, make] of runs) {
  const encode = await make();
  let ids = encode(text, false).ids;  // warm-up
  let best = Infinity;
  for (let i = 0; i < 3; ++i) {
    const start = process.hrtime.bigint();
    ids = encode(text, false).ids;
    best = Math.min(best, Number(process.hrtime.bigint() - start) / 1e9);
  }
  console.log(`${reference.padEnd(34)} ${vocabulary.padEnd(20)} ${String(ids.length).padStart(8)} `
    + `${best.toFixed(3).padStart(8)} ${(megabytes / best).toFixed(2).padStart(7)}`);
}
