#!/usr/bin/env bash
# Tokenization throughput (MB/s of input text) and peak RSS of every tokenizer attnviz reads under
# tests/fixtures/vocab/ (scripts/fetch-vocabularies.sh), on a text file, and beside them the
# JavaScript references (bench/tokenize_js.mjs) when node is installed and ATTNVIZ_JS_REFS names the
# npm prefix holding their packages.
# Usage: bench/tokenize_bench.sh [TEXT_FILE] (default tests/fixtures/corpus/long.txt); RUNS=5.
# Prints figures; asserts nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}
runs=${RUNS:-5}
text=${1:-tests/fixtures/corpus/long.txt}
[ -f "$text" ] || { echo "tokenize_bench: no text file $text (pass one: bench/tokenize_bench.sh FILE)" >&2; exit 1; }
cmake --build "$build" --target attnviz_tokenize_bench -j1 >/dev/null
found=0
for dir in tests/fixtures/vocab/*/; do
  [ -d "$dir" ] || continue
  found=1
  # One process per tokenizer, so each peak RSS is its own.
  "$build/attnviz_tokenize_bench" "${dir%/}" "$text" "$runs" || echo "${dir%/}: failed (above)"
done
[ "$found" = 1 ] || echo "tokenize_bench: no tokenizers under tests/fixtures/vocab/ (run scripts/fetch-vocabularies.sh)"
if [ -n "${ATTNVIZ_JS_REFS:-}" ] && command -v node >/dev/null; then
  echo "JavaScript references (bench/tokenize_js.mjs):"
  node bench/tokenize_js.mjs "$text" || echo "bench/tokenize_js.mjs failed (are its packages installed?)"
else
  echo "JavaScript references skipped: needs node and ATTNVIZ_JS_REFS (the npm prefix bench/tokenize_js.mjs names)"
fi
