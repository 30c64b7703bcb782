#!/usr/bin/env bash
# Peak memory and time of a Llama-3.2-1B-shaped model (BF16, 16 layers, d_model 2048, 32 q / 8 kv
# heads, d_ff 8192, vocab 128256, tied embeddings; random weights from bench/make_llama_model.py,
# ~2.5 GB in a temp folder) at N ids: `attnviz run` (every map emitted, none drawn) and, when
# /usr/bin/python3 has torch, a plain-torch Llama forward (bench/torch_llama.py). Asserts nothing.
#   bench/memory_bench.sh [N] [MODEL_DIR]    (default: 2048; the model is written once if absent)
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-2048}
model=${2:-${TMPDIR:-/tmp}/attnviz-llama1b}

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)" --target attnviz >/dev/null
[ -f "$model/model.safetensors" ] || /usr/bin/python3 bench/make_llama_model.py "$model"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
awk -v n="$n" 'BEGIN { srand(7); for (i = 0; i < n; i++) printf "%d ", int(rand() * 128256); print "" }' > "$work/ids.txt"
# The built-in llama layout when this build has one, else the layout file the tests use.
layout=(--layout-file tests/fixtures/torch/llama_layout.json)
build/attnviz inspect "$model" 2>&1 | grep -q 'not runnable' || layout=()

printf 'model %s (%s), N = %s\n' "$model" "$(du -sh "$model/model.safetensors" | cut -f1)" "$n"
printf '%-52s  %8s  %10s\n' what seconds "max RSS"
/usr/bin/time -f '%e %M' -o "$work/time" build/attnviz run -m "$model" "${layout[@]}" --ids "$work/ids.txt" \
  --no-heatmap --table none >/dev/null
read -r secs kb < "$work/time"
printf '%-52s  %8s  %7d MB\n' "attnviz run (whole run incl. loading)" "$secs" $((kb / 1024))
if /usr/bin/python3 -c 'import torch' 2>/dev/null; then
  /usr/bin/time -f '%e %M' -o "$work/time" /usr/bin/python3 bench/torch_llama.py "$model" "$work/ids.txt" > "$work/torch.out"
  read -r secs kb < "$work/time"
  printf '%-52s  %8s  %7d MB\n' "PyTorch, BF16 mmap'd, float32 per layer (forward)" "$(cat "$work/torch.out")" $((kb / 1024))
fi
