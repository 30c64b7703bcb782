#!/usr/bin/env python3
"""Writes a random Llama-3.2-1B-shaped model folder for bench/memory_bench.sh: model.safetensors in
BF16 (Hugging Face names, tied embeddings: no lm_head) and config.json. numpy and struct only.
   make_llama_model.py OUT_DIR [--layers L]     (about 2.5 GB for the default 16 layers)"""
import json
import os
import struct
import sys

import numpy as np

D, H, KV, HEAD, F, VOCAB = 2048, 32, 8, 64, 8192, 128256
ROWS_PER_CHUNK = 8192  # rows generated at a time, so a 128k-row table never sits in memory as float32


def bf16_bits(x):
    """float32 → bfloat16 bits: the top 16 bits, rounded to nearest even."""
    u = x.astype(np.float32).view(np.uint32)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def tensors(layers):
    """(name, shape, kind) in file order; kind "norm" is a gain near 1, "weight" ~ N(0, 0.02)."""
    out = [("model.embed_tokens.weight", (VOCAB, D), "weight")]
    for i in range(layers):
        p = f"model.layers.{i}."
        out += [(p + "input_layernorm.weight", (D,), "norm"),
                (p + "self_attn.q_proj.weight", (H * HEAD, D), "weight"),
                (p + "self_attn.k_proj.weight", (KV * HEAD, D), "weight"),
                (p + "self_attn.v_proj.weight", (KV * HEAD, D), "weight"),
                (p + "self_attn.o_proj.weight", (D, H * HEAD), "weight"),
                (p + "post_attention_layernorm.weight", (D,), "norm"),
                (p + "mlp.gate_proj.weight", (F, D), "weight"),
                (p + "mlp.up_proj.weight", (F, D), "weight"),
                (p + "mlp.down_proj.weight", (D, F), "weight")]
    return out + [("model.norm.weight", (D,), "norm")]


def write_model(path, layers, rng):
    header, offset = {"__metadata__": {"format": "pt"}}, 0
    for name, shape, _ in tensors(layers):
        size = int(np.prod(shape)) * 2
        header[name] = {"dtype": "BF16", "shape": list(shape), "data_offsets": [offset, offset + size]}
        offset += size
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text)
        for _, shape, kind in tensors(layers):
            rows = shape[0]
            cols = shape[1] if len(shape) > 1 else 1
            for r0 in range(0, rows, ROWS_PER_CHUNK):
                n = min(ROWS_PER_CHUNK, rows - r0)
                x = rng.standard_normal((n, cols), dtype=np.float32)
                x = 1.0 + 0.1 * x if kind == "norm" else 0.02 * x
                f.write(bf16_bits(x).tobytes())


def main():
    out = sys.argv[1]
    layers = int(sys.argv[sys.argv.index("--layers") + 1]) if "--layers" in sys.argv else 16
    os.makedirs(out, exist_ok=True)
    config = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": D,
              "num_attention_heads": H, "num_key_value_heads": KV, "head_dim": HEAD,
              "intermediate_size": F, "num_hidden_layers": layers, "rms_norm_eps": 1e-5,
              "rope_theta": 500000.0, "rope_scaling": None, "hidden_act": "silu",
              "max_position_embeddings": 131072, "tie_word_embeddings": True, "vocab_size": VOCAB,
              "torch_dtype": "bfloat16"}
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
    write_model(os.path.join(out, "model.safetensors"), layers, np.random.default_rng(0))


if __name__ == "__main__":
    main()
