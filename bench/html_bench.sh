#!/usr/bin/env bash
# Times `run --html` on a GPT-2-small shape (12 layers × 12 heads, d_model 768, random weights, causal)
# at N = 512 and N = 4,096, against the same run without it, and prints the page's size; with
# /usr/bin/python3's numpy, also the size of the same maps written as BertViz embeds them (a JSON list
# of per-layer [heads, N, N] lists, measured on one layer and multiplied by 12). Asserts nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}
out=${OUT:-/tmp/attnviz-html-bench}
cmake --build "$build" --target attnviz -j2 >/dev/null
mkdir -p "$out"
bin="$build/attnviz"
[ -f "$out/gpt2s/model.safetensors" ] ||
  "$bin" init --arch gpt2 --layers 12 --heads 12 --d-model 768 --max-positions 4096 -o "$out/gpt2s" >/dev/null
if ! /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
  echo "numpy not found for /usr/bin/python3: it writes the random inputs; skipping" >&2
  exit 0
fi
for n in 512 4096; do
  /usr/bin/python3 -c "import numpy as np; np.save('$out/x$n.npy', np.random.default_rng(0).standard_normal(($n, 768)).astype(np.float32))"
  args=(run -m "$out/gpt2s" --embeddings "$out/x$n.npy" --causal --no-heatmap --table none)
  t0=$(date +%s.%N); "$bin" "${args[@]}"; t1=$(date +%s.%N)
  "$bin" "${args[@]}" --html "$out/g$n.html"; t2=$(date +%s.%N)
  size=$(stat -c %s "$out/g$n.html")
  printf 'N=%-5s forward %.2f s, with --html %.2f s; page %.1f MB\n' "$n" \
    "$(echo "$t1 - $t0" | bc)" "$(echo "$t2 - $t1" | bc)" "$(echo "$size / 1000000" | bc -l)"
done
# BertViz's page carries the weights as JSON text: one layer's [12, 512, 512] list, as json.dumps writes it.
"$bin" run -m "$out/gpt2s" --embeddings "$out/x512.npy" --causal --no-heatmap --table none --layer 0 \
  --save "$out/l0.safetensors"
/usr/bin/python3 - "$out/l0.safetensors" <<'PY'
import json, struct, sys, numpy as np
raw = open(sys.argv[1], "rb").read()
n = struct.unpack("<Q", raw[:8])[0]
header = json.loads(raw[8:8 + n])
heads = [name for name in header if name.endswith(".probs")]
layer = [np.frombuffer(raw[8 + n + header[h]["data_offsets"][0]: 8 + n + header[h]["data_offsets"][1]],
                       dtype=np.float32).reshape(header[h]["shape"]).tolist() for h in sorted(heads)]
size = len(json.dumps(layer))
print(f"N=512   BertViz-style JSON of the weights: {12 * size / 1e6:.0f} MB (12 × one layer's {size / 1e6:.0f} MB)")
PY
