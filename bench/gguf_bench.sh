#!/usr/bin/env bash
# Time and peak memory of a Llama-3.2-1B-shaped GGUF file (Q4_K_M: 16 layers, d_model 2048, 32 q / 8 kv
# heads, d_ff 8192, vocab 128,256 from Llama 3's tokenizer fixture, tied table; random weights written by
# `attnviz init --gguf Q4_K_M`, ~0.8 GB in a temp folder) at N ids: `attnviz run` (every map emitted, none
# drawn) and, when NLC_DIR names the npm prefix node-llama-cpp is installed in, llama.cpp's own
# evaluation of the same ids (bench/llama_cpp_eval.mjs, CPU). Asserts nothing.
#   bench/gguf_bench.sh [N] [MODEL_FILE]    (default: 2048; the file is written once if absent)
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-2048}
model=${2:-${TMPDIR:-/tmp}/attnviz-llama1b-Q4_K_M.gguf}
nlc=${NLC_DIR:-}

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)" --target attnviz >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ ! -f "$model" ]; then
  /usr/bin/time -f '%e %M' -o "$work/time" build/attnviz init --arch llama --d-model 2048 --heads 32 --kv-heads 8 \
    --layers 16 --d-ff 8192 --tokenizer tests/fixtures/vocab/llama3/tokenizer.json --gguf Q4_K_M -o "$model"
  read -r secs kb < "$work/time"
  printf 'init --gguf Q4_K_M: %s s, max RSS %d MB\n' "$secs" $((kb / 1024))
fi
awk -v n="$n" 'BEGIN { srand(7); for (i = 0; i < n; i++) printf "%d ", int(rand() * 128256); print "" }' > "$work/ids.txt"

printf 'model %s (%s), N = %s\n' "$model" "$(du -h "$model" | cut -f1)" "$n"
printf '%-52s  %8s  %10s\n' what seconds "max RSS"
/usr/bin/time -f '%e %M' -o "$work/time" build/attnviz run -m "$model" --ids "$work/ids.txt" \
  --no-heatmap --table none >/dev/null
read -r secs kb < "$work/time"
printf '%-52s  %8s  %7d MB\n' "attnviz run (whole run incl. loading)" "$secs" $((kb / 1024))
if [ -n "$nlc" ] && [ -f "$nlc/node_modules/node-llama-cpp/package.json" ] && command -v node >/dev/null; then
  /usr/bin/time -f '%e %M' -o "$work/time" env NLC_DIR="$nlc" node bench/llama_cpp_eval.mjs "$model" "$work/ids.txt" \
    > "$work/llama.out"
  read -r secs kb < "$work/time"
  read -r load eval < "$work/llama.out"
  printf '%-52s  %8s  %7d MB\n' "llama.cpp (node-llama-cpp, CPU): load $load s, eval" "$eval" $((kb / 1024))
fi
