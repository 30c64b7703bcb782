#!/usr/bin/env bash
# Regenerates the pictures in README.md from the bundled samples (run after scripts/demo.sh built attnviz).
set -euo pipefail
cd "$(dirname "$0")/.."
out=docs/images
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
build/attnviz run -m samples/mha -t samples/english.txt --causal --head 0 --table none --no-heatmap --png "$tmp/en"
build/attnviz run -m samples/mha -t samples/cross/target.txt --source-tokens samples/cross/source.txt \
  --head 2 --table none --no-heatmap --png "$tmp/cross"
cp "$tmp/en/layer0.self.head0.png" "$out/english-causal-head0.png"
cp "$tmp/en/layer0.self.mask.png" "$out/english-causal-mask.png"
build/attnviz run -m samples/mha -t samples/chinese.txt --table none --no-heatmap --png "$tmp/zh"
cp "$tmp/zh/layer0.self.head0.png" "$out/chinese-head0.png"
cp "$tmp/zh/self.grid.png" "$out/chinese-grid.png"
cp "$tmp/cross/layer0.cross.head2.png" "$out/cross-head2.png"
build/attnviz run -m samples/mha -t samples/english.txt --causal --head 0 --color=never --width 80 \
  > "$out/terminal-english.txt"
