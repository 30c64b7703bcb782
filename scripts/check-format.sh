#!/usr/bin/env bash
# Checks that every C++ file of the repository is laid out as .clang-format says (clang-format 14,
# Debian 12's), and names the files that are not. With --fix, rewrites them in place instead.
#   scripts/check-format.sh          exit 0 when every file is formatted, 1 otherwise
#   scripts/check-format.sh --fix    formats every file
set -euo pipefail
cd "$(dirname "$0")/.."

fix=0
case "${1:-}" in
  --fix) fix=1 ;;
  "") ;;
  *) echo "usage: scripts/check-format.sh [--fix]" >&2; exit 2 ;;
esac
format=clang-format-14
command -v "$format" >/dev/null || { echo "attnviz: $format is not installed (scripts/install-deps.sh installs it)" >&2; exit 1; }

mapfile -t files < <(git ls-files '*.cpp' '*.hpp' '*.h' | grep -v '^fuzz/corpus/')
if [ "$fix" -eq 1 ]; then
  "$format" -i "${files[@]}"
  exit 0
fi
# One process for every file; each file that would change is named in its warnings ("FILE:L:C: error: …").
mapfile -t bad < <("$format" --dry-run --Werror "${files[@]}" 2>&1 | sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: error: .*/\1/p' | sort -u)
if [ ${#bad[@]} -gt 0 ]; then
  echo "attnviz: ${#bad[@]} file(s) are not formatted as .clang-format says (scripts/check-format.sh --fix formats them):" >&2
  printf '  %s\n' "${bad[@]}" >&2
  exit 1
fi
echo "attnviz: ${#files[@]} C++ files formatted as .clang-format says" >&2
