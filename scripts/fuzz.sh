#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/fuzz_<parser>.cpp, clang-14 + ASan + UBSan, in build-fuzz/)
# and runs each for SECONDS (default 5: the short run scripts/test.sh does in CI).
#   scripts/fuzz.sh                  # every target, 5 s each
#   scripts/fuzz.sh 1800 npy         # a long run of one target (by hand, e.g. overnight: 28800)
#   FUZZ_JOBS=2 scripts/fuzz.sh 600  # libFuzzer -fork workers per target for long runs
# JSON parsers get fuzz/dict/json.dict (tokens and the keys they look for).
# Each target starts from its committed seeds in fuzz/corpus/<target>/ (the fixtures, and every
# crash found so far, so each old crash is re-run); new inputs go to build-fuzz/corpus/<target>/.
# A crash stops that target (the others still run; the script fails) with its input in
# build-fuzz/crashes/: add that file to fuzz/corpus/<target>/
# and a case to the doctest suite, then fix the parser.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-5}"
shift || true
parallel=()
[ "${FUZZ_JOBS:-1}" -gt 1 ] && parallel=(-fork="$FUZZ_JOBS")
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)

CXX=clang++-14 CC=clang-14 cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DATTNVIZ_FUZZ=ON -DBUILD_TESTING=OFF "${launcher[@]}" >/dev/null
cmake --build build-fuzz --target fuzz_all -j"$(nproc)"

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for dir in fuzz/corpus/*/; do targets+=("$(basename "$dir")"); done
fi
mkdir -p build-fuzz/crashes
# The targets' scratch folders (fuzz/fuzz_input.hpp) go in one folder of this run, removed at the end
# whatever ends a target: a target removes its own at exit, but a crash, a -timeout, Ctrl-C and
# -fork's workers end in _Exit or a signal, which run no exit handler.
scratch=$(mktemp -d "$([ -w /dev/shm ] && echo /dev/shm || echo "${TMPDIR:-/tmp}")/attnviz-fuzz-run.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
export ATTNVIZ_FUZZ_DIR="$scratch"
# The targets run side by side, one per core (each is one process; with FUZZ_JOBS, one at a time).
slots="$(nproc)"
[ "${FUZZ_JOBS:-1}" -gt 1 ] && slots=1
fuzz_one() {  # fuzz_one TARGET: runs it; on a crash, prints its log's tail and returns 1
  local t="$1" dict=()
  mkdir -p "build-fuzz/corpus/$t"
  [ -e "fuzz/dict/$t.dict" ] && dict=(-dict="fuzz/dict/$t.dict")
  # -timeout: one input taking over 10 s is a finding (a parser must be fast on any input).
  if UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ASAN_OPTIONS=detect_leaks=1 \
    "build-fuzz/fuzz/fuzz_$t" "build-fuzz/corpus/$t" "fuzz/corpus/$t" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
    "${parallel[@]}" "${dict[@]}" -print_final_stats=0 \
    -artifact_prefix="build-fuzz/crashes/$t-" 2>"build-fuzz/fuzz_$t.log"; then
    echo "fuzz_$t (${seconds}s): $(grep -E "Done [0-9]+ runs" "build-fuzz/fuzz_$t.log" | tail -n 1)" >&2
  else
    { tail -n 40 "build-fuzz/fuzz_$t.log"; echo "fuzz_$t: FAILED (log: build-fuzz/fuzz_$t.log)"; } >&2
    return 1
  fi
}
failed=()
declare -A running=()  # pid -> target
reap() {  # waits for one running target to end and records it if it failed
  local pid status=0
  wait -n -p pid "${!running[@]}" || status=$?
  [ "$status" -ne 0 ] && failed+=("${running[$pid]}")
  unset "running[$pid]"
}
for t in "${targets[@]}"; do
  while [ ${#running[@]} -ge "$slots" ]; do reap; done
  fuzz_one "$t" &
  running[$!]="$t"
done
while [ ${#running[@]} -gt 0 ]; do reap; done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: crashes in ${failed[*]}; inputs in build-fuzz/crashes/" >&2
  exit 1
fi
