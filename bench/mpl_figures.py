#!/usr/bin/env python3
"""matplotlib's side of the figure benchmarks: 144 causal attention maps (12 layers × 12 heads) of
N × N, softmax over j <= i of 4 · sin(0.01 · i · j · (h + 1)) (bench/png_bench.cpp's formula), written
as PNGs by imsave (no text) and by imshow + colorbar + title + tick labels + savefig.
   mpl_figures.py N OUT_DIR [imsave|figure|both]   prints the seconds of each kind, one per line"""
import os
import sys
import time

import numpy as np
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

n, out = int(sys.argv[1]), sys.argv[2]
kinds = sys.argv[3] if len(sys.argv) > 3 else "figure"
i = np.arange(1, n + 1, dtype=np.float32)[:, None]
j = np.arange(1, n + 1, dtype=np.float32)[None, :]
maps = []
for h in range(12):
    s = 4 * np.sin(np.float32(0.01) * i * j * (h + 1))
    s = np.where(j <= i, s, -np.inf)
    p = np.exp(s - s.max(axis=1, keepdims=True))
    maps.append((p / p.sum(axis=1, keepdims=True)).astype(np.float32))
os.makedirs(out, exist_ok=True)
if kinds in ("imsave", "both"):
    t = time.perf_counter()
    for layer in range(12):
        for h in range(12):
            plt.imsave(f"{out}/l{layer}h{h}.png", maps[h], cmap="viridis")
    print(f"{time.perf_counter() - t:.2f}")
if kinds in ("figure", "both"):
    labels = [f"tok{k}" for k in range(n)]
    step = max(1, n // 16)
    t = time.perf_counter()
    for layer in range(12):
        for h in range(12):
            fig, ax = plt.subplots(figsize=(7, 6))
            im = ax.imshow(maps[h], cmap="viridis")
            fig.colorbar(im, ax=ax)
            ax.set_title(f"layer {layer} head {h}")
            ticks = list(range(0, n, step))
            ax.set_xticks(ticks, [labels[k] for k in ticks], rotation=90)
            ax.set_yticks(ticks, [labels[k] for k in ticks])
            fig.savefig(f"{out}/fig_l{layer}h{h}.png")
            plt.close(fig)
    print(f"{time.perf_counter() - t:.2f}")
