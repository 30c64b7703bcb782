#!/usr/bin/env bash
# Regenerates everything in README.md and docs/ that the binary makes: the pictures in docs/images/
# (figures from `run --png` and the other commands on the bundled models, the --html page in headless
# Chromium, and a terminal screenshot: attnviz in a tmux pane, captured with its colours, drawn by
# attnviz_ansi_to_png), then the output of every ```console example (tests/docs/check_examples.py
# --update: each block's output as the binary prints it, cut where the page cut it).
#   scripts/make-docs.sh              pictures and examples
#   scripts/make-docs.sh --examples   the examples only (no tmux or Chromium needed)
#   scripts/make-docs.sh --images     the pictures only
# Run after a build (scripts/demo.sh or cmake); ATTNVIZ_BUILD names another build folder (default build).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${ATTNVIZ_BUILD:-build}
images=1 examples=1
case "${1:-}" in
  --examples) images=0 ;;
  --images) examples=0 ;;
  "") ;;
  *) echo "usage: scripts/make-docs.sh [--examples | --images]" >&2; exit 2 ;;
esac

update_examples() {
  python3 tests/docs/check_examples.py --update "$build/attnviz" .
}
if [ "$images" -eq 0 ]; then
  update_examples
  exit
fi

out=docs/images
mkdir -p "$out"
tmp=$(mktemp -d)
session="attnviz-docs-$$"  # a tmux server of its own (-L), so no user session is touched
trap 'tmux -L "$session" kill-server 2>/dev/null || true; rm -rf "$tmp"' EXIT

"$build/attnviz" run -m samples/mha -t samples/english.txt --causal --head 0 --table none --no-heatmap --png "$tmp/en"
"$build/attnviz" run -m samples/mha -t samples/cross/target.txt --source-tokens samples/cross/source.txt \
  --head 2 --table none --no-heatmap --png "$tmp/cross"
cp "$tmp/en/layer0.self.head0.png" "$out/english-causal-head0.png"
cp "$tmp/en/layer0.self.mask.png" "$out/english-causal-mask.png"
"$build/attnviz" run -m samples/mha -t samples/chinese.txt --table none --no-heatmap --png "$tmp/zh"
cp "$tmp/zh/layer0.self.head0.png" "$out/chinese-head0.png"
cp "$tmp/zh/self.grid.png" "$out/chinese-grid.png"
cp "$tmp/cross/layer0.cross.head2.png" "$out/cross-head2.png"
"$build/attnviz" run -m samples/translation --source-text "the small white cat sees a red car" \
  --generate 12 --layer 1 --site cross --head 0 --table none --no-heatmap --png "$tmp/translation" 2>/dev/null
cp "$tmp/translation/decoder.layer1.cross.head0.png" "$out/translation-cross.png"
"$build/attnviz" run -m samples/gru-translation --source-text "je ne suis pas très fatigué ." \
  --generate 10 --table none --no-heatmap --png "$tmp/gru" 2>/dev/null
cp "$tmp/gru/decoder.layer0.cross.head0.png" "$out/gru-alignment.png"
# A GGUF file quantised by llama.cpp (Q4_K_M), its text through the file's own tokenizer.
"$build/attnviz" run -m tests/fixtures/gguf_models/llama-Q4_K_M.gguf --text "the thing is on where all the attention is" \
  --head 0 --table none --no-heatmap --png "$tmp/gguf"
cp "$tmp/gguf/layer0.self.head0.png" "$out/gguf-llama-q4km-head0.png"
"$build/attnviz" run -m samples/mha -t samples/english.txt --causal --head 0 --color=never --width 80 \
  > "$out/terminal-english.txt"
# What heads do: the planted model's induction head on the repeat probe, the detection chart, and a diff.
planted=tests/fixtures/planted/planted-heads
"$build/attnviz" run -m "$planted" --probe repeat:12 --layer 1 --head 0 --table none --no-heatmap --png "$tmp/ind"
cp "$tmp/ind/layer1.self.head0.png" "$out/planted-induction-head.png"
"$build/attnviz" heads -m "$planted" --probe repeat:15 --png "$tmp/heads" > /dev/null
cp "$tmp/heads/heads.induction.png" "$out/heads-induction.png"
"$build/attnviz" run -m "$planted" --ids "0 1 2 3 4 5 0 1 2 3 4 5" --table none --no-heatmap --save "$tmp/a.safetensors"
"$build/attnviz" run -m "$planted" --ids "0 1 2 3 9 5 0 1 2 3 4 5" --table none --no-heatmap --save "$tmp/b.safetensors"
"$build/attnviz" diff "$tmp/a.safetensors" "$tmp/b.safetensors" --top 1 --png "$tmp/diff" > /dev/null 2>&1
cp "$tmp/diff/layer1.self.head1.diff.png" "$out/diff-duplicate-head.png"
# The trained sample's previous-token and induction heads on the repeat probe.
"$build/attnviz" run -m samples/induction --probe repeat:20 --layer 1 --head 1 --panel L0H0,L1H1 --table none \
  --no-heatmap --png "$tmp/induction"
cp "$tmp/induction/panel.png" "$out/induction-panel.png"
# The four planted heads side by side on one colour scale, as a paper shows them: a vector figure.
"$build/attnviz" run -m "$planted" --probe repeat:8 --layer 0 --head 0 --panel L0H0,L0H1,L1H0,L1H1 --table none \
  --no-heatmap --figure-format svg --png "$tmp/panel"
cp "$tmp/panel/panel.svg" "$out/planted-panel.svg"
# The --html page in headless Chromium, as its browser test leaves it (the induction head, a tooltip).
python3 tests/browser/test_html_viewer.py "$build/attnviz" . --screenshot "$out/html-viewer.png" > /dev/null
# Positional encodings: the sinusoidal table, and rotary's position × position similarity.
"$build/attnviz" positions -m samples/transformer --positions 48 --png "$tmp/pos-sin" > /dev/null
"$build/attnviz" positions -m tests/fixtures/torch/hf_llama --positions 48 --png "$tmp/pos-rot" > /dev/null
cp "$tmp/pos-sin/positions.encoding.png" "$out/positions-sinusoidal.png"
cp "$tmp/pos-rot/positions.similarity.png" "$out/positions-rotary.png"
# A causal map over 32 tokens: the log scale it gets by default, and --linear.
ids60="3 15 6 5 12 8 13 1 15 12 2 0 12 8 4 10 0 14 8 2 5 10 13 14 1 12 4 3 10 11 14 8 6 12 4 0 10 13 0 15 7 9 6 10 5 5 15 11 5 4 11 11 11 12 3 3 10 2 12 9"
"$build/attnviz" run -m "$planted" --ids "$ids60" --layer 0 --head 2 --table none --no-heatmap --png "$tmp/log"
"$build/attnviz" run -m "$planted" --ids "$ids60" --layer 0 --head 2 --table none --no-heatmap --linear --png "$tmp/linear"
cp "$tmp/log/layer0.self.head2.png" "$out/causal-default-log.png"
cp "$tmp/linear/layer0.self.head2.png" "$out/causal-linear.png"

# The terminal screenshot: each command after a prompt in a 120 × 50 pane, 24-bit colour. The
# commands are shell text, printed as shown and then run (a backslash-newline continues a line).
cmake --build "$build" --target attnviz_ansi_to_png >/dev/null
commands=(
  "attnviz run -m samples/mha -t samples/chinese.txt --layer 0 --table none --color=always --width 118"
  "attnviz run -m samples/transformer -t samples/cross/target.txt --source-tokens samples/cross/source.txt \\
    --layer 1 --site cross --table none --color=always --width 118"
)
{
  echo 'export COLORTERM=truecolor'
  for c in "${commands[@]}"; do
    printf 'printf "\\033[32m$\\033[0m %%s\\n" %q\n' "$c"
    printf '%q/%s\n' "$build" "$c"
  done
  printf 'tmux wait-for -S %q\nsleep 60\n' "$session"
} > "$tmp/shot.sh"
tmux -L "$session" new-session -d -s shot -x 120 -y 50 "bash $tmp/shot.sh"
timeout 60 tmux -L "$session" wait-for "$session"
tmux -L "$session" capture-pane -t shot -e -p > "$tmp/terminal.ansi"
"$build/attnviz_ansi_to_png" "$out/terminal.png" --columns 120 < "$tmp/terminal.ansi"

if [ "$examples" -eq 1 ]; then
  update_examples
fi
