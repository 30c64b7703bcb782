#!/usr/bin/env bash
# Writes what attnviz prints and writes for the bundled samples and for random models of every
# built-in architecture (terminal text, tables in every format, stats, check, inspect, --save
# tensors, figures) into OUT, and a SHA-256 list of it all in OUT/SHA256SUMS.
# For refactors that must not change behaviour: run it with the binary before and after and diff
# the two lists (`diff old/SHA256SUMS new/SHA256SUMS`).
#   scripts/sample-outputs.sh BINARY OUT
set -uo pipefail
if [ $# -ne 2 ]; then echo "usage: $0 BINARY OUT" >&2; exit 2; fi
bin=$(realpath "$1")
repo=$(realpath "$(dirname "$0")/..")
rm -rf "$2"
mkdir -p "$2/models"
out=$(realpath "$2")
# Everything runs inside OUT with relative paths, so messages are the same wherever OUT is.
cd "$out"
ln -s "$repo/samples" samples
ln -s "$repo/tests/fixtures" fixtures
out=.

n=0
# Runs attnviz with the given arguments; stdout, stderr and the exit code go to $out/NN.*.
run() {
  n=$((n + 1))
  local tag
  tag=$(printf '%03d' "$n")
  printf '%s\n' "$*" >"$out/$tag.args"
  "$bin" "$@" >"$out/$tag.out" 2>"$out/$tag.err"
  echo $? >"$out/$tag.rc"
}

m=models
# Random models of every architecture, with vocabularies where a table can carry one.
run init -o "$m/mha" --arch mha --d-model 16 --heads 4 --seed 1 --vocab samples/english.txt
run init -o "$m/mha_noout" --arch mha --d-model 12 --heads 3 --d-qk 6 --d-v 9 --no-out-proj --seed 2
run init -o "$m/encoder" --arch encoder --d-model 16 --heads 2 --layers 2 --seed 3
run init -o "$m/encoder_pre" --arch encoder --d-model 16 --heads 2 --layers 2 --norm-first --seed 4
run init -o "$m/decoder" --arch decoder --d-model 16 --heads 4 --layers 2 --seed 5
run init -o "$m/ed" --arch encoder-decoder --d-model 16 --heads 2 --layers 2 --seed 6
run init -o "$m/gpt2" --arch gpt2 --d-model 16 --heads 2 --layers 2 --seed 7 --vocab samples/english.txt
run init -o "$m/bert" --arch bert --d-model 16 --heads 2 --layers 2 --seed 8 --vocab samples/english.txt

en=samples/english.txt
zh=samples/chinese.txt
tgt=samples/cross/target.txt
src=samples/cross/source.txt
for model in samples/mha samples/transformer "$m"/*; do
  run inspect "$model"
done

# The bundled samples, as the README and the demo show them.
run run -m samples/mha -t $en --causal --head 0 --color=never --width 80
run run -m samples/mha -t $en --causal --head 0 --color=always --width 120
run run -m samples/mha -t $zh --color=always --width 118 --table none
run run -m samples/mha -t $zh --color=never --width 60 --table both --precision 4
run run -m samples/mha -t $tgt --source-tokens $src --head 2 --color=never --width 100
run run -m samples/transformer -t $tgt --source-tokens $src --head 0 --table none --color=never --width 100
run run -m samples/transformer -t $tgt --source-tokens $src --color=never --width 100 --table scores --layer 1 --site cross
run run -m samples/mha -t $en --causal --head 1 --format csv --table scores
run run -m samples/mha -t $en --window 3 --pad 2 --format json --table both
run run -m samples/mha -t $en --format markdown --head 3
run run -m samples/mha -t $en --causal --head 0 --png "$out/png_en" --png-raw --color=never
run run -m samples/mha -t $zh --png "$out/png_zh" --log --cmap magma --color=never --table none
run run -m samples/mha -t $en --png "$out/png_shared" --scale shared --max-pixels 16 --pool mean --color=never --table none
run run -m samples/mha -t $tgt --source-tokens $src --png "$out/png_cross" --color=never --table none
run run -m samples/transformer -t $tgt --source-tokens $src --png "$out/png_ed" --color=never --table none --no-heatmap
run run -m samples/mha -t $en --causal --save "$out/mha.safetensors" --table none --no-heatmap
run run -m samples/transformer -t $tgt --source-tokens $src --save "$out/ed.safetensors" --table none --no-heatmap
run run -m samples/mha -t $en --qk-scale none --head 2 --color=never --width 90
run run -m samples/mha -t $en --qk-scale 0.5 --block-rows 3 --head 2 --color=never --width 90 --check
printf 'a b c d\n' >"$out/abcd.txt"
run run -m samples/mha -t "$out/abcd.txt" --mask samples/mask_all_zeros.txt --head 0 --table none --check --color=never
run run -m samples/mha -t $en --mask fixtures/masks/additive_causal.npy --head 0 --color=never --width 90

# Statistics and checks.
run stats -m samples/mha -t $en --causal --color=never --width 200
run stats -m samples/mha -t $en --causal --width 60
run stats -m samples/mha -t $en --format json
run stats -m samples/mha -t $en --format csv --sort entropy --ascending
run stats -m samples/transformer -t $tgt --source-tokens $src --format markdown --top 3 --sort saturated
run stats -m samples/transformer -t $tgt --source-tokens $src --site cross --width 200
run stats -m samples/mha -t $en --causal --png "$out/stats_png" --chart entropy --width 200
run stats -m samples/mha -t $en --temperature 4 --saturation 0.5 --width 200
run check -m samples/mha -t $en --causal
run check -m samples/transformer -t $tgt --source-tokens $src --format json
run check -m samples/mha -t "$out/abcd.txt" --mask samples/mask_all_zeros.txt
run check -m samples/mha -t "$out/abcd.txt" --mask samples/mask_all_zeros.txt --format json

# Random models of every architecture.
run run -m "$m/mha" -t $en --color=never --width 120 --save "$out/m_mha.safetensors"
run run -m "$m/mha_noout" -t $en --color=never --width 120 --table both
run run -m "$m/encoder" -t $en --pad 2 --color=never --width 120 --save "$out/m_enc.safetensors"
run run -m "$m/encoder_pre" -t $zh --color=never --width 120 --png "$out/png_enc_pre"
run run -m "$m/decoder" -t $en --color=never --width 120 --save "$out/m_dec.safetensors"
run run -m "$m/ed" -t $tgt --source-tokens $src --source-pad 1 --color=never --width 120 --save "$out/m_ed.safetensors"
run run -m "$m/gpt2" -t $en --color=never --width 120 --save "$out/m_gpt2.safetensors"
run run -m "$m/gpt2" --ids "0 1 2 3 4 5" --color=never --width 120
run run -m "$m/bert" -t $en --color=never --width 120 --save "$out/m_bert.safetensors"
run run -m "$m/bert" -t $zh --color=never --width 120 --table none
run stats -m "$m/gpt2" -t $en --width 200
run stats -m "$m/bert" -t $en --format json
run stats -m "$m/ed" -t $tgt --source-tokens $src --width 200
run check -m "$m/decoder" -t $en
run check -m "$m/ed" -t $tgt --source-tokens $src --format json

# Refusals: their messages and exit codes.
run run -m samples/mha -t $en --head 9
run run -m samples/mha -t $en --layer 1
run run -m samples/mha -t $en --site cross
run stats -m samples/mha -t $en --head 9
run stats -m samples/mha -t $en --layer 3
run check -m samples/mha -t $en --site cross
run check -m samples/transformer -t $tgt --source-tokens $src --layer 5
run run -m "$m/encoder" -t $en --source-tokens $src
run run -m "$m/ed" -t $tgt
run run -m samples/mha -t $en --format csv --table scores
run inspect samples/mha --heads 0

find . -type f ! -name SHA256SUMS -print0 | sort -z | xargs -0 sha256sum >SHA256SUMS
echo "$n commands; $(wc -l <"$out/SHA256SUMS") files listed in $2/SHA256SUMS" >&2
