#!/usr/bin/env bash
# Installs what is missing, builds attnviz with its tests and runs them; then once more under
# AddressSanitizer + UndefinedBehaviorSanitizer (any report fails the run); then every parser's fuzz
# target for a few seconds (scripts/fuzz.sh; a crash fails the run).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
scripts/fetch-vocabularies.sh  # the real tokenizer vocabularies the tests check against (checksummed)
jobs="$(nproc)"

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON >/dev/null
cmake --build build -j"$jobs"
ctest --test-dir build --no-tests=error --output-on-failure -j"$jobs"

cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DATTNVIZ_SANITIZE=ON -DBUILD_TESTING=ON >/dev/null
cmake --build build-asan -j"$jobs"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  ctest --test-dir build-asan --no-tests=error --output-on-failure -j"$jobs"

scripts/fuzz.sh "${ATTNVIZ_FUZZ_SECONDS:-5}"
