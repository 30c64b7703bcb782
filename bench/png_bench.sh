#!/usr/bin/env bash
# Times writing 144 attention maps (12 layers × 12 heads, N = 512, causal) as PNGs, SVGs and PDFs:
# attnviz's figures (bench/png_bench.cpp), and matplotlib's imsave and imshow + colorbar + savefig for the
# same maps when /usr/bin/python3 has matplotlib. Prints times; asserts nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}
n=${N:-512}
cmake --build "$build" --target attnviz_png_bench -j2 >/dev/null
"$build/attnviz_png_bench" "$n" /tmp/attnviz-png-bench
du -sh /tmp/attnviz-png-bench | sed 's/^/attnviz output size: /'
if /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
  { read -r imsave; read -r figure; } < <(/usr/bin/python3 bench/mpl_figures.py "$n" /tmp/mpl-png-bench both)
  echo "matplotlib imsave, 144 heads at N=$n: $imsave s"
  echo "matplotlib imshow + colorbar + labels + savefig, 144 heads at N=$n: $figure s"
else
  echo "matplotlib not found for /usr/bin/python3: skipping its times"
fi
