#!/usr/bin/env bash
# Times a GPT-2-small-shaped forward pass (12 layers × 12 heads, d_model 768, d_ff 3072) at growing
# lengths: attnviz run (every map emitted in row blocks) and, when /usr/bin/python3 has torch,
# PyTorch keeping every attention map (bench/torch_forward.py). Prints figures; asserts nothing.
#   bench/forward_bench.sh [N ...]        (default: 512 1024 2048)
set -euo pipefail
cd "$(dirname "$0")/.."
lengths=("$@")
[ $# -gt 0 ] || lengths=(512 1024 2048)

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)" --target attnviz >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
seq 0 999 | sed 's/^/tok/' > "$work/vocab.txt"
build/attnviz init --arch gpt2 -o "$work/gpt2s" --d-model 768 --heads 12 --layers 12 \
  --max-positions 4096 --vocab "$work/vocab.txt" --seed 1 2>/dev/null

printf '%-6s  %-40s  %8s  %10s\n' N "what (attnviz: whole run incl. loading)" seconds "max RSS"
for n in "${lengths[@]}"; do
  awk -v n="$n" 'BEGIN { srand(7); for (i = 0; i < n; i++) printf "%d ", int(rand() * 1000); print "" }' > "$work/ids.txt"
  for what in "run (maps streamed)" "stats (every row's figures)"; do
    cmd=(build/attnviz run -m "$work/gpt2s" --ids "$work/ids.txt" --no-heatmap --table none)
    [[ $what == stats* ]] && { build/attnviz stats --help >/dev/null 2>&1 || continue; cmd=(build/attnviz stats -m "$work/gpt2s" --ids "$work/ids.txt"); }
    /usr/bin/time -f '%e %M' -o "$work/time" "${cmd[@]}" >/dev/null
    read -r secs kb < "$work/time"
    printf '%-6s  %-40s  %8s  %7d MB\n' "$n" "attnviz $what" "$secs" $((kb / 1024))
  done
  if /usr/bin/python3 -c 'import torch' 2>/dev/null; then
    /usr/bin/time -f '%e %M' -o "$work/time" /usr/bin/python3 bench/torch_forward.py "$n" > "$work/torch.out"
    read -r _ kb < "$work/time"
    printf '%-6s  %-40s  %8s  %7d MB\n' "$n" "PyTorch forward only, maps kept" "$(cat "$work/torch.out")" $((kb / 1024))
  fi
done
