#!/usr/bin/env bash
# The performance targets' figures from one command: a GPT-2-small-shaped model (12 layers × 12 heads, d_model 768,
# vocabulary 50,257, 32,768 positions, F32) timed whole-process for load, run, stats, --png and --save
# at growing N, beside PyTorch's forward (bench/torch_forward.py) and matplotlib's figures of the same
# size when /usr/bin/python3 has them. Prints a Markdown table with each target and whether it is met;
# asserts nothing.
#   bench/scale_bench.sh [--long] [--llama] [--no-references | --no-matplotlib] [--docs]
#     --long           also PyTorch at N = 4,096, N = 16,384 (--png of every head, and stats) and N = 32,768
#     --llama          also a Llama-3.2-1B-shaped BF16 model at N = 2,048 beside PyTorch (bench/memory_bench.sh's
#                      model, kept in ATTNVIZ_LLAMA_DIR when set)
#     --no-references  attnviz only (no PyTorch, no matplotlib)
#     --no-matplotlib  no matplotlib figures (144 of them at N = 2,048 take minutes)
#     --docs           write the table into docs/performance.md between the scale-bench markers
#                      (--readme: the same, its earlier name)
set -euo pipefail
cd "$(dirname "$0")/.."
long=0 llama=0 refs=1 mpl=1 docs=0
for arg in "$@"; do
  case $arg in
    --long) long=1 ;;
    --llama) llama=1 ;;
    --no-references) refs=0 ;;
    --no-matplotlib) mpl=0 ;;
    --docs | --readme) docs=1 ;;
    *) echo "usage: bench/scale_bench.sh [--long] [--llama] [--no-references | --no-matplotlib] [--docs]" >&2; exit 2 ;;
  esac
done

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)" --target attnviz >/dev/null
work=${ATTNVIZ_BENCH_DIR:-$(mktemp -d)}
[ -n "${ATTNVIZ_BENCH_DIR:-}" ] || trap 'rm -rf "$work"' EXIT
mkdir -p "$work"
model=$work/gpt2s
if [ ! -f "$model/model.safetensors" ]; then
  seq 0 50256 | sed 's/^/tok/' > "$work/vocab.txt"
  build/attnviz init --arch gpt2 -o "$model" --d-model 768 --heads 12 --layers 12 --max-positions 32768 \
    --vocab "$work/vocab.txt" --seed 1 2>/dev/null
fi
ids() { awk -v n="$1" 'BEGIN { srand(7); for (i = 0; i < n; i++) printf "%d ", int(rand() * 50257); print "" }' > "$work/ids$1.txt"; }
have_torch=0 have_mpl=0
if [ "$refs" = 1 ]; then
  /usr/bin/python3 -c 'import torch' 2>/dev/null && have_torch=1
  [ "$mpl" = 0 ] || { /usr/bin/python3 -c 'import matplotlib' 2>/dev/null && have_mpl=1; }
fi

# measure LABEL REPEATS CMD…: the median wall time of REPEATS runs, with that run's user, sys and max RSS.
# Sets wall, cpu (user+sys over wall), sys_pct, rss_mb.
measure() {
  local repeats=$1; shift
  local runs=()
  for ((i = 0; i < repeats; i++)); do
    rm -rf "$work/out"
    /usr/bin/time -f '%e %U %S %M' -o "$work/time" "$@" >/dev/null 2>"$work/stderr" ||
      { echo "failed: $* ($(tail -1 "$work/stderr"))" >&2; exit 1; }
    runs+=("$(cat "$work/time")")
  done
  read -r wall user sys kb < <(printf '%s\n' "${runs[@]}" | sort -n | sed -n "$(((repeats + 1) / 2))p")
  cpu=$(awk -v u="$user" -v s="$sys" -v w="$wall" 'BEGIN { printf "%.2f", (u + s) / (w > 0 ? w : 1) }')
  sys_pct=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.0f", 100 * s / (u + s > 0 ? u + s : 1) }')
  rss_mb=$((kb / 1024))
}
rows=()
# row WORK TARGET MET REFERENCE: one line of the table from the last measure.
row() { rows+=("| $1 | ${wall} s | ${cpu} | ${sys_pct} % | ${rss_mb} MB | $4 | $2 | $3 |"); }
le() { awk -v a="$1" -v b="$2" 'BEGIN { print (a <= b ? "yes" : "no") }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

run=(build/attnviz run -m "$model" --no-heatmap --table none)
ids 16
measure 3 "${run[@]}" --ids "$work/ids16.txt"
row "load (run at N = 16)" "≤ 0.3 s" "$(le "$wall" 0.3)" "–"

declare -A run_wall
for n in 1024 2048 4096; do
  ids "$n"
  measure 3 "${run[@]}" --ids "$work/ids$n.txt"
  run_wall[$n]=$wall
  w=$wall c=$cpu s=$sys_pct r=$rss_mb
  ref="–"
  if [ "$have_torch" = 1 ] && { [ "$n" -le 2048 ] || [ "$long" = 1 ]; }; then
    /usr/bin/time -f '%e %M' -o "$work/time" /usr/bin/python3 bench/torch_forward.py "$n" > "$work/torch.out"
    read -r twhole tkb < "$work/time"
    ref="PyTorch forward $(cat "$work/torch.out") s warm, $twhole s whole process, $((tkb / 1024)) MB"
  fi
  case $n in 1024) limit=1.5 ;; 2048) limit=3.5 ;; 4096) limit=10 ;; esac
  wall=$w cpu=$c sys_pct=$s rss_mb=$r
  met=$(le "$wall" "$limit")
  [ "$(le 1.8 "$cpu")" = yes ] || met+=", cpu no"
  [ "$s" -lt 10 ] || met+=", sys no"
  row "run, every map emitted, N = $n" "≤ $limit s, cpu ≈ 2 × wall, sys < 10 %" "$met" "$ref"
done

for n in 1024 2048; do
  measure 3 build/attnviz stats -m "$model" --ids "$work/ids$n.txt"
  r=$(ratio "$wall" "${run_wall[$n]}")
  row "stats, N = $n" "≤ 1.3 × run" "$(le "$r" 1.3) ($r ×)" "–"
done

measure 1 "${run[@]}" --ids "$work/ids2048.txt" --png "$work/out"
r=$(ratio "$wall" "${run_wall[2048]}")
mpl="–"
if [ "$have_mpl" = 1 ]; then
  mpl="matplotlib imshow + colorbar + savefig of 144 maps: $(/usr/bin/python3 bench/mpl_figures.py 2048 "$work/mpl") s"
fi
row "run --png, every head (144 figures, default --max-pixels 1024: 2 × 2 tokens per cell), N = 2048" "≤ 1.5 × run" "$(le "$r" 1.5) ($r ×)" "$mpl"
measure 1 "${run[@]}" --ids "$work/ids2048.txt" --png "$work/out" --max-pixels 2048
r=$(ratio "$wall" "${run_wall[2048]}")
row "run --png --max-pixels 2048 (one pixel per token pair), N = 2048" "–" "$r × run" "–"

run_rss=$(/usr/bin/time -f '%M' "${run[@]}" --ids "$work/ids2048.txt" 2>&1 >/dev/null | tail -1)
for dtype in f32 f16; do
  if build/attnviz run --help | grep -q -- --save-dtype; then
    measure 1 "${run[@]}" --ids "$work/ids2048.txt" --save "$work/out.safetensors" --save-dtype "$dtype"
  else
    [ "$dtype" = f32 ] || continue
    measure 1 "${run[@]}" --ids "$work/ids2048.txt" --save "$work/out.safetensors"
  fi
  rm -f "$work/out.safetensors"
  row "run --save ($dtype), N = 2048" "memory ≤ run's ($((run_rss / 1024)) MB)" "$(le "$rss_mb" $((run_rss / 1024 + 16)))" "–"
done

if [ "$long" = 1 ]; then
  for n in 16384 32768; do
    ids "$n"
    measure 1 "${run[@]}" --ids "$work/ids$n.txt" --png "$work/out"
    if [ "$n" = 16384 ]; then
      row "run --png, every head, N = $n" "≤ 120 s, ≤ 1.5 GB" \
        "$(le "$wall" 120)$( [ "$rss_mb" -le 1536 ] || echo ", memory no")" "–"
      measure 1 build/attnviz stats -m "$model" --ids "$work/ids$n.txt"
      row "stats, N = $n" "≤ 120 s, ≤ 1.5 GB" "$(le "$wall" 120)$( [ "$rss_mb" -le 1536 ] || echo ", memory no")" "–"
    else
      row "run --png, every head, N = $n" "completes" "yes" "–"
    fi
  done
fi

if [ "$llama" = 1 ]; then
  # The Llama-3.2-1B shape of bench/memory_bench.sh (BF16 safetensors, 16 layers, 32 q / 8 kv
  # heads, d_model 2048, vocabulary 128,256), written once (~2.5 GB) where ATTNVIZ_LLAMA_DIR says.
  lmodel=${ATTNVIZ_LLAMA_DIR:-$work/llama1b}
  [ -f "$lmodel/model.safetensors" ] || /usr/bin/python3 bench/make_llama_model.py "$lmodel"
  awk 'BEGIN { srand(7); for (i = 0; i < 2048; i++) printf "%d ", int(rand() * 128256); print "" }' > "$work/lids.txt"
  layout=(--layout-file tests/fixtures/torch/llama_layout.json)
  build/attnviz inspect "$lmodel" 2>&1 | grep -q 'not runnable' || layout=()
  ref="–"
  if [ "$have_torch" = 1 ]; then
    /usr/bin/time -f '%e %M' -o "$work/time" /usr/bin/python3 bench/torch_llama.py "$lmodel" "$work/lids.txt" > "$work/torch.out"
    read -r twhole tkb < "$work/time"
    ref="PyTorch forward $(cat "$work/torch.out") s (BF16 mapped, float32 per layer), $twhole s whole process, $((tkb / 1024)) MB"
  fi
  measure 1 build/attnviz run -m "$lmodel" "${layout[@]}" --ids "$work/lids.txt" --no-heatmap --table none
  row "Llama-3.2-1B shape (BF16, 16 layers × 32 heads, 8 kv heads), run, every map emitted, N = 2048" \
    "time and memory beside PyTorch" "–" "$ref"
fi

cpu_name=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')
blas_core=$(OPENBLAS_VERBOSE=2 "${run[@]}" --ids "$work/ids16.txt" 2>&1 >/dev/null | sed -n 's/^Core: //p' | tail -1)
table=$(
  echo "Machine: $cpu_name, $(nproc) cores, $(free -g | awk '/^Mem/ { print $2 }') GiB, OpenBLAS core ${blas_core:-?};" \
    "load average $(cut -d' ' -f1 /proc/loadavg) at the end; $(date -u +%Y-%m-%d). Whole process, median of 3 below 10 s."
  echo
  echo "| work | wall | cpu / wall | sys | max RSS | reference | target | met |"
  echo "|---|---|---|---|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
)
echo "$table"
if [ "$docs" = 1 ]; then
  python3 - "$table" <<'PY'
import re, sys
text = open("docs/performance.md").read()
begin, end = "<!-- scale-bench: begin -->", "<!-- scale-bench: end -->"
if begin not in text:
    sys.exit("docs/performance.md has no scale-bench markers")
text = re.sub(re.escape(begin) + ".*?" + re.escape(end), begin + "\n" + sys.argv[1] + "\n" + end, text, flags=re.S)
open("docs/performance.md", "w").write(text)
PY
fi
