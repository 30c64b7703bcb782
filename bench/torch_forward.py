#!/usr/bin/env python3
"""PyTorch reference for bench/scale_bench.sh: a GPT-2-small-shaped forward (12 layers, 12 heads,
d_model 768, d_ff 3072, causal) that keeps every attention map, as output_attentions=True does.
Prints the seconds of the forward pass alone (best of 2), with 2 threads."""
import math
import sys
import time

import torch

torch.set_num_threads(2)
N = int(sys.argv[1])
D, H, L, F = 768, 12, 12, 3072
g = torch.Generator().manual_seed(0)
layers = [dict(ln1=torch.nn.LayerNorm(D), qkv=torch.nn.Linear(D, 3 * D), proj=torch.nn.Linear(D, D),
               ln2=torch.nn.LayerNorm(D), fc=torch.nn.Linear(D, F), out=torch.nn.Linear(F, D)) for _ in range(L)]
x0 = torch.randn(1, N, D, generator=g)
mask = torch.tril(torch.ones(N, N, dtype=torch.bool))


def forward(x):
    maps = []
    for p in layers:
        h = p["ln1"](x)
        q, k, v = p["qkv"](h).split(D, dim=2)
        q, k, v = (t.view(1, N, H, D // H).transpose(1, 2) for t in (q, k, v))
        att = (q @ k.transpose(-2, -1)) / math.sqrt(D // H)
        att = att.masked_fill(~mask, float("-inf")).softmax(-1)
        maps.append(att)
        x = x + p["proj"]((att @ v).transpose(1, 2).reshape(1, N, D))
        x = x + p["out"](torch.nn.functional.gelu(p["fc"](p["ln2"](x)), approximate="tanh"))
    return x, maps


with torch.no_grad():
    best = float("inf")
    for _ in range(2):
        t = time.perf_counter()
        forward(x0)
        best = min(best, time.perf_counter() - t)
print(f"{best:.2f}")
