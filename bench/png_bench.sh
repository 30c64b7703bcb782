#!/usr/bin/env bash
# Times writing 144 attention maps (12 layers × 12 heads, N = 512, causal) as PNGs: attnviz's
# figures (bench/png_bench.cpp), and matplotlib's imsave and imshow + colorbar + savefig for the
# same maps when /usr/bin/python3 has matplotlib. Prints times; asserts nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}
n=${N:-512}
cmake --build "$build" --target attnviz_png_bench -j2 >/dev/null
"$build/attnviz_png_bench" "$n" /tmp/attnviz-png-bench
du -sh /tmp/attnviz-png-bench | sed 's/^/attnviz output size: /'
if /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
  /usr/bin/python3 - "$n" <<'PY'
import os, sys, time
import numpy as np
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
n = int(sys.argv[1])
i = np.arange(1, n + 1, dtype=np.float32)[:, None]
j = np.arange(1, n + 1, dtype=np.float32)[None, :]
maps = []
for h in range(12):  # the formula of bench/png_bench.cpp
    s = 4 * np.sin(np.float32(0.01) * i * j * (h + 1))
    s = np.where(j <= i, s, -np.inf)
    p = np.exp(s - s.max(axis=1, keepdims=True))
    maps.append((p / p.sum(axis=1, keepdims=True)).astype(np.float32))
os.makedirs("/tmp/mpl-png-bench", exist_ok=True)
t = time.perf_counter()
for layer in range(12):
    for h in range(12):
        plt.imsave(f"/tmp/mpl-png-bench/l{layer}h{h}.png", maps[h], cmap="viridis")
print(f"matplotlib imsave, 144 heads at N={n}: {time.perf_counter() - t:.2f} s")
labels = [f"tok{k}" for k in range(n)]
t = time.perf_counter()
for layer in range(12):
    for h in range(12):
        fig, ax = plt.subplots(figsize=(7, 6))
        im = ax.imshow(maps[h], cmap="viridis")
        fig.colorbar(im, ax=ax)
        ax.set_title(f"layer {layer} head {h}")
        ticks = list(range(0, n, 32))
        ax.set_xticks(ticks, [labels[k] for k in ticks], rotation=90)
        ax.set_yticks(ticks, [labels[k] for k in ticks])
        fig.savefig(f"/tmp/mpl-png-bench/fig_l{layer}h{h}.png")
        plt.close(fig)
print(f"matplotlib imshow + colorbar + labels + savefig, 144 heads at N={n}: {time.perf_counter() - t:.2f} s")
PY
else
  echo "matplotlib not found for /usr/bin/python3: skipping its times"
fi
