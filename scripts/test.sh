#!/usr/bin/env bash
# The test command (CI runs exactly this, through .ci/run).
#   scripts/test.sh           everything CI must: installs what is missing, checks the C++ files' layout
#                             (scripts/check-format.sh), builds attnviz with its tests
#                             and runs every tier (Release); then the unit, cli and reference tiers once more
#                             under AddressSanitizer + UndefinedBehaviorSanitizer (any report fails the run);
#                             then every parser's fuzz target for a few seconds (scripts/fuzz.sh).
#   scripts/test.sh --quick   the inner loop: the format check, the Release build and the unit + cli tiers only.
# The tiers are listed in tests/tiers.cmake (one ctest entry per test file, labelled). Each stage's
# time is printed at the end. Builds go through ccache when it is installed (install-deps.sh does).
set -euo pipefail
cd "$(dirname "$0")/.."

quick=0
case "${1:-}" in
  --quick) quick=1 ;;
  "") ;;
  *) echo "usage: scripts/test.sh [--quick]" >&2; exit 2 ;;
esac

jobs="$(nproc)"
# ccache keys on paths relative to the checkout, so a fresh clone reuses what another one compiled.
export CCACHE_BASEDIR="$PWD"
stages=()
stage() {  # stage NAME COMMAND…: runs it and records its wall time
  local name="$1" start="$SECONDS"
  shift
  echo "== $name" >&2
  "$@"
  stages+=("$(printf '%-34s %5d s' "$name" $((SECONDS - start)))")
}
report() {
  echo "== stage times" >&2
  for s in "${stages[@]}"; do echo "   $s" >&2; done
  echo "   $(printf '%-34s %5d s' total "$SECONDS")" >&2
}
trap report EXIT

ctest_run() {  # ctest_run BUILD_DIR [ctest args…]
  local dir="$1"
  shift
  ctest --test-dir "$dir" --no-tests=error --output-on-failure -j"$jobs" "$@"
}

stage "install dependencies" scripts/install-deps.sh
# The C++ layout of .clang-format, checked first: it takes seconds and fails before a long build.
stage "format check" scripts/check-format.sh
# The real tokenizer vocabularies the tests check against (checksummed).
stage "fetch vocabularies" scripts/fetch-vocabularies.sh

stage "configure (Release)" cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON -Wno-dev >/dev/null
stage "build (Release)" cmake --build build -j"$jobs"
if [ "$quick" -eq 1 ]; then
  stage "tests: unit + cli (Release)" ctest_run build -L '^(unit|cli)$'
  exit 0
fi
stage "tests: all tiers (Release)" ctest_run build

stage "configure (sanitizers)" cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DATTNVIZ_SANITIZE=ON \
  -DBUILD_TESTING=ON -Wno-dev >/dev/null
stage "build (sanitizers)" cmake --build build-asan -j"$jobs"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
# docs_examples runs the binary on the documents' examples, paths the cli tier already covers.
stage "tests: unit + cli + reference (sanitizers)" ctest_run build-asan -L '^(unit|cli|reference)$' \
  -E '^docs_examples$'
unset ASAN_OPTIONS UBSAN_OPTIONS

stage "fuzz targets" scripts/fuzz.sh "${ATTNVIZ_FUZZ_SECONDS:-3}"
