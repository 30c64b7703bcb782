// llama.cpp's own time for the N ids of bench/gguf_bench.sh: node-llama-cpp's CPU build (gpu: false,
// contextSize N, batches of 512, its default F16 KV cache) evaluates them once; prints
// "load_seconds eval_seconds".   node bench/llama_cpp_eval.mjs MODEL.gguf IDS.txt   (NLC_DIR: its npm prefix)
import fs from "node:fs";
import path from "node:path";
import {pathToFileURL} from "node:url";

const [modelPath, idsPath] = process.argv.slice(2);
const nlcDir = process.env.NLC_DIR;
if (!nlcDir) {
    console.error("llama_cpp_eval.mjs: set NLC_DIR to the npm prefix node-llama-cpp is installed in");
    process.exit(2);
}
const {getLlama, LlamaLogLevel} = await import(pathToFileURL(path.join(nlcDir, "node_modules/node-llama-cpp/dist/index.js")).href);
const ids = fs.readFileSync(idsPath, "utf8").trim().split(/\s+/).map(Number);
const llama = await getLlama({gpu: false, logLevel: LlamaLogLevel.error});
let t = performance.now();
const model = await llama.loadModel({modelPath, gpuLayers: 0});
const context = await model.createContext({contextSize: ids.length, batchSize: 512, sequences: 1});
const load = (performance.now() - t) / 1000;
t = performance.now();
await context.getSequence().evaluateWithoutGeneratingNewTokens(ids);
const evaluate = (performance.now() - t) / 1000;
console.log(load.toFixed(1), evaluate.toFixed(1));
await context.dispose();
await model.dispose();
await llama.dispose();
