#!/usr/bin/env python3
"""Trains the samples/induction model: a two-layer GPT-2 meant to learn induction on repeated random
word sequences, and writes its reference (attention maps and head-detection scores from this script's
own forward pass) for tests/test_trained_induction.cpp.

WORK IN PROGRESS: no recipe tried so far grows a previous-token head and an induction head within a
few thousand steps (see the branch's notes); the model files and reference.json are not committed.

Run: nice -n 19 /usr/bin/python3 samples/induction/train_induction.py   (Debian's python3-torch; CPU, one
thread, fixed seeds). Knobs for experiments, from the environment: STEPS, LR, D, QK_STD, SHORT,
ATTN_ONLY (1: the MLPs are zero and not trained, an exact 0 added to the residual stream).

Writes beside itself: config.json, model.safetensors (F32), tokenizer.json (WordLevel + WhitespaceSplit),
vocab.txt and reference.json.

The model is GPT2LMHeadModel's math written out (transformers' modeling_gpt2.py): learned wte/wpe,
pre-LN blocks x + attn(ln_1(x)), x + mlp(ln_2(x)) with Conv1D projections (weights [in, out]) and
gelu_new, ln_f, the LM head tied to wte. The task (Olsson et al. 2022, "In-context learning and
induction heads"): segments of random words each followed by a copy of itself; the first copy cannot
be predicted, the second can, by a previous-token head in layer 0 feeding an induction head in layer
1 that attends to the word after the earlier copy of the current one.
"""
import json
import math
import os
import re
import struct
import time

import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
WORDS = ("ant arm bag bat bed bee bell bird boat book box bus cake car cat cow cup desk dog door duck egg eye "
         "fan fish flag fox frog gate goat hat hen hill horn ink jam jar key kite lamp leaf lion map milk moon "
         "nest net nut owl pen pig pot rain ring rose sea ship sock star sun tree van").split()
V = len(WORDS)              # 64 words, no special tokens
D, H, L, P = int(os.environ.get("D", 64)), 4, 2, 128  # d_model, heads, layers, n_positions
D_FF = 4 * D
EPS = 1e-5
SEG_MIN, SEG_MAX = 4, 40  # lengths of the repeated segment
STEPS, BATCH, LR = int(os.environ.get("STEPS", 5000)), 32, float(os.environ.get("LR", 1e-3))
SEED = 0
SHORT = int(os.environ.get("SHORT", 32))
QK_STD = float(os.environ.get("QK_STD", 0.08))  # c_attn init std (GPT-2 uses 0.02)
ATTN_ONLY = os.environ.get("ATTN_ONLY", "1") == "1"


# ---- the model: GPT-2's forward pass -------------------------------------------------------------

def gelu_new(x):
    # transformers' NewGELUActivation: 0.5 x (1 + tanh(√(2/π) (x + 0.044715 x³)))
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


def init_params(gen):
    """GPT2PreTrainedModel._init_weights: N(0, 0.02), c_proj N(0, 0.02/√(2·n_layer)), biases 0, LN 1/0."""
    def normal(*shape, std=0.02):
        return torch.randn(*shape, generator=gen) * std

    w = {"wte.weight": normal(V, D), "wpe.weight": normal(P, D)}
    proj_std = 0.02 / math.sqrt(2 * L)
    for i in range(L):
        p = f"h.{i}."
        w[p + "ln_1.weight"], w[p + "ln_1.bias"] = torch.ones(D), torch.zeros(D)
        w[p + "attn.c_attn.weight"], w[p + "attn.c_attn.bias"] = normal(D, 3 * D, std=QK_STD), torch.zeros(3 * D)
        w[p + "attn.c_proj.weight"], w[p + "attn.c_proj.bias"] = normal(D, D, std=proj_std), torch.zeros(D)
        w[p + "ln_2.weight"], w[p + "ln_2.bias"] = torch.ones(D), torch.zeros(D)
        mlp = 0.0 if ATTN_ONLY else 1.0  # attention-only: zero MLPs, an exact 0 added to the residual
        w[p + "mlp.c_fc.weight"], w[p + "mlp.c_fc.bias"] = mlp * normal(D, D_FF), torch.zeros(D_FF)
        w[p + "mlp.c_proj.weight"], w[p + "mlp.c_proj.bias"] = mlp * normal(D_FF, D, std=proj_std), torch.zeros(D)
    w["ln_f.weight"], w["ln_f.bias"] = torch.ones(D), torch.zeros(D)
    return {k: v.requires_grad_(not (ATTN_ONLY and (".mlp." in k or ".ln_2." in k))) for k, v in w.items()}


def forward(w, ids, want_maps=False):
    """Logits [B, T, V] (and every head's attention probabilities [L] of [B, H, T, T])."""
    b, t = ids.shape
    dk = D // H
    x = w["wte.weight"][ids] + w["wpe.weight"][torch.arange(t)]
    causal = torch.ones(t, t, dtype=torch.bool).tril()
    maps = []
    for i in range(L):
        p = f"h.{i}."
        h = F.layer_norm(x, (D,), w[p + "ln_1.weight"], w[p + "ln_1.bias"], EPS)
        # Conv1D: x @ W + b with W [in, out]; c_attn's columns are q | k | v, head j at j·dk
        qkv = h @ w[p + "attn.c_attn.weight"] + w[p + "attn.c_attn.bias"]
        q, k, v = (s.view(b, t, H, dk).transpose(1, 2) for s in qkv.split(D, dim=-1))
        scores = q @ k.transpose(-1, -2) / math.sqrt(dk)
        scores = scores.masked_fill(~causal, float("-inf"))
        probs = scores.softmax(-1)
        if want_maps:
            maps.append(probs)
        merged = (probs @ v).transpose(1, 2).reshape(b, t, D)
        x = x + merged @ w[p + "attn.c_proj.weight"] + w[p + "attn.c_proj.bias"]
        if not ATTN_ONLY:
            h = F.layer_norm(x, (D,), w[p + "ln_2.weight"], w[p + "ln_2.bias"], EPS)
            up = gelu_new(h @ w[p + "mlp.c_fc.weight"] + w[p + "mlp.c_fc.bias"])
            x = x + up @ w[p + "mlp.c_proj.weight"] + w[p + "mlp.c_proj.bias"]
    x = F.layer_norm(x, (D,), w["ln_f.weight"], w["ln_f.bias"], EPS)
    logits = x @ w["wte.weight"].T  # the tied LM head
    return (logits, maps) if want_maps else logits


# ---- data and training ---------------------------------------------------------------------------

def repeated_batch(gen, batch, seg=None, length=P):
    """[batch, length] word ids and where each row's first copy starts.

    Training (seg None): a row is the V words in a random order, cut into segments of SEG_MIN …
    SEG_MAX words, each segment followed by itself (after 0 … 3 words said once), to the length. A word
    appears at most twice, so the word after its earlier copy is the one answer, and where a copy
    starts varies, so attention by position alone cannot find it. (The first 0 … 3 words are said once.)
    Evaluation (seg given): `seg` distinct words twice at a random offset among distinct others."""
    ids = torch.empty(batch, length, dtype=torch.long)
    starts = []
    for row in range(batch):
        words = torch.randperm(V, generator=gen)
        if seg is not None:
            start = int(torch.randint(0, length - 2 * seg + 1, (1,), generator=gen))
            others = words[seg:]
            line = torch.cat([others[:start], words[:seg], words[:seg], others[start:]])
            ids[row] = line[:length] if len(line) >= length else torch.cat([line, others[:length - len(line)]])
            starts.append(start)
            continue
        at = int(torch.randint(0, 4, (1,), generator=gen))
        parts, used = [words[:at]], at
        while sum(len(p) for p in parts) < length and used < V:
            n = min(int(torch.randint(SEG_MIN, min(SEG_MAX, max(SEG_MIN, length // 2)) + 1, (1,), generator=gen)), V - used)
            parts += [words[used:used + n], words[used:used + n]]
            used += n
        line = torch.cat(parts)
        while len(line) < length:  # every word used: the rest from a new order
            line = torch.cat([line, torch.randperm(V, generator=gen)])
        ids[row] = line[:length]
    return ids, starts


def half_losses(w, ids, starts, seg):
    """Mean next-token loss on the first copy's words 1 … seg−1 and on the second copy's words
    1 … seg−1 (the second copy's word 0 cannot be known to start a repeat)."""
    with torch.no_grad():
        logits = forward(w, ids[:, :-1])
        loss = F.cross_entropy(logits.transpose(1, 2), ids[:, 1:], reduction="none")  # [B, P − 1]
    first = torch.stack([loss[row, s:s + seg - 1] for row, s in enumerate(starts)])  # predicts s + 1 …
    second = torch.stack([loss[row, s + seg:s + 2 * seg - 1] for row, s in enumerate(starts)])
    return float(first.mean()), float(second.mean())


def train():
    gen = torch.Generator().manual_seed(SEED)
    w = init_params(gen)
    trained = {k: v for k, v in w.items() if v.requires_grad}
    decay = [v for k, v in trained.items() if k.endswith(".weight") and v.dim() == 2]
    rest = [v for k, v in trained.items() if not (k.endswith(".weight") and v.dim() == 2)]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.01}, {"params": rest, "weight_decay": 0.0}],
                            lr=LR, betas=(0.9, 0.98))
    warmup = 100
    probe_gen = torch.Generator().manual_seed(SEED + 3)  # progress lines only
    for step in range(STEPS):
        # linear warm-up, constant, then a cosine to 0 over the last 30 % (induction heads form after a plateau)
        decay_from = int(0.7 * STEPS)
        tail = max(0.0, (step - decay_from) / (STEPS - decay_from))
        lr = LR * min(1.0, (step + 1) / warmup) * 0.5 * (1 + math.cos(math.pi * tail))
        for group in opt.param_groups:
            group["lr"] = lr
        # lengths from 24 to P: short contexts spread attention over few keys, so the gradient that
        # grows the two heads together is strong from the start; long ones train every position
        longest = SHORT if step < int(0.5 * STEPS) else P
        length = int(torch.randint(12, longest + 1, (1,), generator=gen))
        ids, _ = repeated_batch(gen, BATCH, length=length)
        logits = forward(w, ids[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, V), ids[:, 1:].reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(decay + rest, 1.0)
        opt.step()
        if step % 250 == 0 or step == STEPS - 1:
            first, second = half_losses(w, *repeated_batch(probe_gen, 64, 25, length=64), 25)
            print(f"step {step:5d}  loss {loss.item():.4f}  lr {lr:.2e}  (segment 25: first copy {first:.3f}, "
                  f"second {second:.3f})", flush=True)
    return {k: v.detach() for k, v in w.items()}


# ---- files -------------------------------------------------------------------------------------------

def write_safetensors(path, tensors):
    header, offset, blobs = {}, 0, []
    for name, t in tensors.items():
        data = np.ascontiguousarray(t.numpy(), dtype="<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(t.shape), "data_offsets": [offset, offset + len(data)]}
        offset += len(data)
        blobs.append(data)
    text = json.dumps(header, separators=(",", ":"))
    text += " " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text.encode())
        for b in blobs:
            f.write(b)


def write_model(w):
    config = {"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"], "vocab_size": V, "n_positions": P,
              "n_embd": D, "n_layer": L, "n_head": H, "n_inner": D_FF, "activation_function": "gelu_new",
              "layer_norm_epsilon": EPS, "tie_word_embeddings": True}
    with open(os.path.join(HERE, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
        f.write("\n")
    write_safetensors(os.path.join(HERE, "model.safetensors"), w)
    with open(os.path.join(HERE, "vocab.txt"), "w") as f:
        f.write("".join(word + "\n" for word in WORDS))
    tokenizer = {"version": "1.0", "truncation": None, "padding": None, "added_tokens": [], "normalizer": None,
                 "pre_tokenizer": {"type": "WhitespaceSplit"}, "post_processor": None, "decoder": None,
                 "model": {"type": "WordLevel", "vocab": {word: i for i, word in enumerate(WORDS)}}}
    with open(os.path.join(HERE, "tokenizer.json"), "w") as f:
        json.dump(tokenizer, f, indent=1)
        f.write("\n")


# ---- the reference: maps and TransformerLens's head-detection scores ---------------------------------

def probe_repeat(n, seed):
    """attnviz's --probe repeat:N --seed S ids (src/inputs/probe.cpp): n distinct ids drawn with
    splitmix64 (core/random.cpp), rejecting the top partial range of 2⁶⁴ for no modulo bias, then the
    same n again. No special tokens: the WordLevel tokenizer adds none."""
    mask, state = (1 << 64) - 1, seed
    limit = mask - mask % V
    first = []
    while len(first) < n:
        state = (state + 0x9E3779B97F4A7C15) & mask
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        z ^= z >> 31
        if z < limit and z % V not in first:
            first.append(z % V)
    return first + first


# TransformerLens's head_detector.py (get_*_detection_pattern, compute_head_attention_similarity_score
# without rounding "abs"), as tests/fixtures/planted/make_planted.py has them, plus attnviz's sink.
def previous_token_pattern(ids):
    n = len(ids)
    p = np.zeros((n, n))
    p[1:, :-1] = np.eye(n - 1)
    return p


def duplicate_token_pattern(ids):
    t = np.tile(np.asarray(ids), (len(ids), 1))
    eq = np.equal(t, t.T).astype(float)
    np.fill_diagonal(eq, 0)
    return np.tril(eq)


def induction_pattern(ids):
    shifted = np.roll(duplicate_token_pattern(ids), 1, axis=1)
    return np.tril(np.concatenate([np.zeros((len(ids), 1)), shifted[:, 1:]], axis=1))


def sink_pattern(ids):
    p = np.zeros((len(ids), len(ids)))
    p[:, 0] = 1
    return p


PATTERNS = {"previous-token": previous_token_pattern, "duplicate-token": duplicate_token_pattern,
            "induction": induction_pattern, "sink": sink_pattern}


def score(a, p, measure):
    if measure == "mul":
        return float((a * p).sum() / a.sum())
    return float(1 - np.abs(a - p).mean() * len(a))


def reference_entry(w64, name, ids, text):
    with torch.no_grad():
        _, maps = forward(w64, torch.tensor([ids]), want_maps=True)
    maps = [m[0].numpy() for m in maps]  # [L] of [H, n, n], float64
    scores = {measure: [[[score(maps[i][h], PATTERNS[p](ids), measure) for p in PATTERNS] for h in range(H)]
                        for i in range(L)] for measure in ("mul", "abs")}
    entry = {"name": name, "ids": ids, "text": text, "scores": scores}
    # the maps as [layer][head][query] rows up to the diagonal (the rest is causally masked: zeros)
    entry["probs"] = [[[[float(f"{x:.9g}") for x in maps[i][h][r][:r + 1]] for r in range(len(ids))]
                       for h in range(H)] for i in range(L)]
    return entry


def leaders(scores, pattern):
    col = list(PATTERNS).index(pattern)
    ranked = sorted(((scores[i][h][col], i, h) for i in range(L) for h in range(H)), reverse=True)
    return [{"layer": i, "head": h, "score": s} for s, i, h in ranked[:2]]


def main():
    torch.manual_seed(SEED)
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    start = time.time()
    w = train()
    seconds = time.time() - start
    write_model(w)

    w64 = {k: v.double() for k, v in w.items()}  # the F32 weights as written, run in float64
    eval_gen = torch.Generator().manual_seed(SEED + 1)
    seg = 25
    first_loss, repeat_loss = half_losses(w64, *repeated_batch(eval_gen, 1000, seg, length=64), seg)
    print(f"trained in {seconds:.0f} s; held-out loss at segment {seg}: first copy {first_loss:.4f} "
          f"(ln V = {math.log(V):.4f}), second copy {repeat_loss:.4f}")

    text_gen = torch.Generator().manual_seed(SEED + 2)
    segment = [int(i) for i in torch.randperm(V, generator=text_gen)[:24]]
    text_ids = segment + segment
    probe_n = 25
    inputs = [reference_entry(w64, "text", text_ids, " ".join(WORDS[i] for i in text_ids)),
              reference_entry(w64, f"probe repeat:{probe_n}", probe_repeat(probe_n, 0), None)]
    inputs[1]["probe"] = f"repeat:{probe_n}"
    inputs[1]["seed"] = 0
    del inputs[1]["probs"]  # its scores are checked; one input's maps are enough
    heads = {p: leaders(inputs[1]["scores"]["mul"], p) for p in PATTERNS}
    for p, (a, b) in heads.items():
        print(f"{p}: layer {a['layer']} head {a['head']} {a['score']:.3f}, "
              f"next layer {b['layer']} head {b['head']} {b['score']:.3f}")
    reference = {"patterns": list(PATTERNS), "loss": {"segment": seg, "sequences": 1000, "first_copy": first_loss,
                                                      "second_copy": repeat_loss, "ln_vocab": math.log(V)},
                 "leaders": heads, "inputs": inputs}
    text = json.dumps(reference, indent=1)
    # innermost lists of numbers on one line each: a map row, a head's scores
    text = re.sub(r"\[\s+([-+0-9.e,\s]+?)\s+\]", lambda m: "[" + re.sub(r",\s+", ", ", m.group(1)) + "]", text)
    with open(os.path.join(HERE, "reference.json"), "w") as f:
        f.write(text + "\n")


if __name__ == "__main__":
    main()
