#!/usr/bin/env bash
# Installs what is missing, builds attnviz, installs it (bin/attnviz and its man page under
# /usr/local, so `attnviz` is on PATH) and runs it on the bundled samples: terminal heatmaps, a
# table of weights, PNGs and an HTML page in out/demo/.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
# ccache keys on paths relative to the checkout (as in scripts/test.sh), so a fresh clone reuses what
# another one compiled.
export CCACHE_BASEDIR="$PWD"
scripts/fetch-vocabularies.sh  # the real tokenizer vocabularies (GPT-2, BERT, Llama 3, …; checksummed)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF >/dev/null
cmake --build build -j"$(nproc)" >/dev/null

prefix=/usr/local
attnviz=attnviz
if [ "$(id -u)" -eq 0 ]; then
  cmake --install build --prefix "$prefix" >/dev/null
  echo "installed $prefix/bin/attnviz (man attnviz)" >&2
else
  echo "not root: attnviz is not installed; to put it on PATH run" >&2
  echo "  sudo cmake --install build --prefix $prefix" >&2
  attnviz=build/attnviz  # the demo runs the build's binary meanwhile
fi
command -v attnviz >/dev/null || attnviz=build/attnviz  # $prefix/bin not on this PATH

run() { echo "\$ attnviz $*" >&2; "$attnviz" "$@"; echo; }

# Causal self-attention over an English sentence: head 0 as a heatmap and a weight table, PNG figures.
run run --model samples/mha --tokens samples/english.txt --causal --head 0 --png out/demo/english
# Chinese tokens label the axes (display width, not bytes).
run run --model samples/mha --tokens samples/chinese.txt --head 1 --table none
# Cross-attention: queries from the Chinese target, keys and values from the English source.
run run --model samples/mha --tokens samples/cross/target.txt --source-tokens samples/cross/source.txt \
  --head 2 --png out/demo/cross
# An encoder-decoder (nn.Transformer layout, 2 + 2 layers): every layer and site, encoder self-attention,
# decoder causal self-attention and decoder cross-attention.
run run --model samples/transformer --tokens samples/cross/target.txt --source-tokens samples/cross/source.txt \
  --head 0 --table none
# A trained model: samples/induction learned a previous-token head (layer 0) and an induction head
# (layer 1) on repeated random words; heads names them, the panel shows both on the repeat probe.
run heads --model samples/induction --probe repeat:20
run run --model samples/induction --probe repeat:20 --layer 1 --head 1 --table none --no-heatmap \
  --panel L0H0,L1H1 --png out/demo/induction
# The same model in one offline page: open out/demo/induction.html in a browser (model view, heatmap with
# tooltips, head view, stats table); no server, nothing is loaded from the network.
run run --model samples/induction --text "dog pen milk nut box bus leaf frog rain fan ship horn dog pen milk nut box bus leaf frog rain fan ship horn" \
  --table none --no-heatmap --html out/demo/induction.html
# Text in: what GPT-2's own tokenizer (its real vocab.json + merges.txt) and Llama 3's (tokenizer.json)
# make of a sentence, and a sentence through BERT's vocab.txt into a model: [CLS] … [SEP] label the axes.
run tokenize --tokenizer tests/fixtures/vocab/gpt2 --text "The cat sat on the mat because it was tired"
run tokenize --tokenizer tests/fixtures/vocab/llama3 --text "The cat sat on the mat, 我们学习注意力 😊"
run run --model samples/mha --tokenizer tests/fixtures/vocab/bert-uncased --text "The cat sat on the mat" \
  --head 0 --table none
# Chinese through a real tokenizer: a sentence from one of the tutorials attnviz grew from (every French
# word attends differently to each English word) through Qwen2.5's tokenizer.json into a Qwen2-shaped
# model with random weights and its own embedding table: the axes show Qwen's pieces (每一个, 单词, 注意力, …).
run init --arch qwen2 --d-model 64 --heads 4 --kv-heads 2 --layers 2 \
  --tokenizer tests/fixtures/vocab/qwen2_5/tokenizer.json -o out/demo/qwen2-zh
run run --model out/demo/qwen2-zh --text "每一个法语单词对英语的每个单词的注意力都不一样" --layer 1 --head 0 \
  --table none --png out/demo/qwen2-zh-figures
# Why divide by sqrt(d_k)? Saturation statistics per head, beside the unscaled counterfactual.
run stats --model samples/mha --tokens samples/english.txt --causal --png out/demo/stats
# One head step by step: X, Q/K/V and the head split, QKᵀ, the scale, the mask, the softmax, P·V, the merge.
run explain --model samples/mha --tokens samples/english.txt --causal --head 0 --cell 3,1 --rows 4 --cols 4
# Positional encoding: the sinusoidal table of the encoder-decoder sample, as figures.
run positions --model samples/transformer --positions 32 --png out/demo/positions
# A mask of zeros (the Annotated Transformer demo's): every key is masked; attnviz says so instead of
# drawing uniform rows.
printf 'a b c d\n' | "$attnviz" run --model samples/mha --tokens - --mask samples/mask_all_zeros.txt \
  --head 0 --table none --check || echo "(exit $?: the check found the fully masked rows)" >&2
echo "PNGs and the HTML page written to out/demo/:" >&2
find out/demo -name '*.png' -o -name '*.html' | sort >&2
