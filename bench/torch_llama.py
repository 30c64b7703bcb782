#!/usr/bin/env python3
"""PyTorch reference for bench/memory_bench.sh: a Llama forward in plain torch over the BF16 folder
make_llama_model.py writes, weights memory-mapped (numpy) and upcast to float32 one layer at a time,
as attnviz does; every attention map computed (and dropped), as output_attentions would give them.
   torch_llama.py MODEL_DIR IDS_FILE      prints the seconds of the forward pass, 2 threads."""
import json
import math
import os
import struct
import sys
import time

import numpy as np
import torch

torch.set_num_threads(2)
folder, ids_file = sys.argv[1], sys.argv[2]
cfg = json.load(open(os.path.join(folder, "config.json")))
D, H, KV, L = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_key_value_heads"], cfg["num_hidden_layers"]
HEAD, EPS, THETA = D // H, cfg["rms_norm_eps"], cfg["rope_theta"]

path = os.path.join(folder, "model.safetensors")
with open(path, "rb") as f:
    n = struct.unpack("<Q", f.read(8))[0]
    header = json.loads(f.read(n))
data = np.memmap(path, dtype=np.int16, mode="r", offset=8 + n)


def weight(name):
    """The BF16 tensor as float32 (a fresh copy; the mapped pages stay in the page cache)."""
    t = header[name]
    begin, end = (o // 2 for o in t["data_offsets"])
    raw = torch.from_numpy(np.array(data[begin:end]))  # int16 bits
    return raw.view(torch.bfloat16).float().reshape(t["shape"])


def rms_norm(x, w):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + EPS) * w


def rotate_half(x):
    a, b = x.chunk(2, dim=-1)
    return torch.cat((-b, a), dim=-1)


def forward(ids):
    N = len(ids)
    table = header["model.embed_tokens.weight"]
    x = torch.stack([weight_row(table, i) for i in ids])
    inv = 1.0 / THETA ** (torch.arange(0, HEAD, 2, dtype=torch.float32) / HEAD)
    ang = torch.outer(torch.arange(N, dtype=torch.float32), inv)
    cos, sin = torch.cat((ang, ang), -1).cos(), torch.cat((ang, ang), -1).sin()
    mask = torch.ones(N, N, dtype=torch.bool).tril()
    for i in range(L):
        p = f"model.layers.{i}."
        h = rms_norm(x, weight(p + "input_layernorm.weight"))
        q = (h @ weight(p + "self_attn.q_proj.weight").T).view(N, H, HEAD).transpose(0, 1)
        k = (h @ weight(p + "self_attn.k_proj.weight").T).view(N, KV, HEAD).transpose(0, 1)
        v = (h @ weight(p + "self_attn.v_proj.weight").T).view(N, KV, HEAD).transpose(0, 1)
        q, k = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
        k, v = k.repeat_interleave(H // KV, 0), v.repeat_interleave(H // KV, 0)
        heads = []
        for hd in range(H):  # one head's N × N map at a time
            att = (q[hd] @ k[hd].T / math.sqrt(HEAD)).masked_fill(~mask, float("-inf")).softmax(-1)
            heads.append(att @ v[hd])
        x = x + torch.stack(heads, 1).reshape(N, D) @ weight(p + "self_attn.o_proj.weight").T
        h = rms_norm(x, weight(p + "post_attention_layernorm.weight"))
        gate, up = h @ weight(p + "mlp.gate_proj.weight").T, h @ weight(p + "mlp.up_proj.weight").T
        x = x + (torch.nn.functional.silu(gate) * up) @ weight(p + "mlp.down_proj.weight").T
    return rms_norm(x, weight("model.norm.weight"))


def weight_row(table, i):
    begin = table["data_offsets"][0] // 2 + i * D
    return torch.from_numpy(np.array(data[begin:begin + D])).view(torch.bfloat16).float()


ids = [int(t) for t in open(ids_file).read().split()]
with torch.no_grad():
    t = time.perf_counter()
    forward(ids)
    print(f"{time.perf_counter() - t:.1f}")
