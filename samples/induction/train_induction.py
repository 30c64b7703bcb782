#!/usr/bin/env python3
"""Trains the samples/induction model: a two-layer, attention-only GPT-2 that learns induction on
repeated random words, and writes its reference (attention maps and head-detection scores from this
script's own forward pass) for tests/test_trained_induction.cpp.

The recipe (measured on repeat:20, defaults below): D = 64, 2 heads per layer, batch 64, AdamW lr 3e-3
(betas 0.9/0.98, weight decay 0.01, 200 warm-up steps, cosine to 0 over the last 30 %), 4000 steps.
Two things break the ln V plateau that a learned-position model sits on for 4000-8000 steps:

  • wpe is the fixed sinusoidal encoding (Vaswani et al.: PE[p, 2i] = sin(p / 10000^(2i/D)),
    PE[p, 2i + 1] = cos(…)), times 0.3, and is not trained. Any offset, the previous token's among them,
    is then a rotation that q and k can learn. (Times 1 or 3 the positions drown the tokens after ln_1
    and the loss stays at 4.13; times 0.1 or 0.03 it falls only slowly, to 3.69 after 3000 steps and
    3.43 after 5000: no induction head, it seems to learn only which words occurred earlier.)
  • For the first 1500 steps (RULE_STEPS) the prefix follows a rule, word[t] = word[t − 2] 3 times in 4,
    and those targets are scored too. It grows a previous-token head in layer 0 within 500 steps whose
    output is the earlier word itself, which is what an induction head's keys need; the rule is
    consistent with induction (ABAB… repeats). By step 1000 the second-copy loss is 0.03. The rule
    then stops, and the previous-token head that layer 1 had grown for it fades (0.95 → 0.23), so
    layer 0's is the clear leader.

With 4 heads per layer, layer 1 grows two equal induction heads (0.488 and 0.487), so no single
leader; with 2 it grows one. What did not work, without the rule: the fixed sinusoid alone (above;
4000-5000 steps), D 128 with 8 heads (3.93 after 6000 steps, ×0.3, lr 2e-3), the loss on every
position (4.13 after 4000 steps, ×0.3, lr 3e-3). A rule word[t] = SKIP[word[t − 2]] (a fixed
permutation) with learned positions made layer 1 attend two past the earlier copy instead.
Training takes about 1.5 minutes on one CPU thread (89 s here). On repeat:20: previous-token
layer 0 head 0 0.955 (next: layer 1 head 0, 0.230), induction layer 1 head 1 0.488 of the ceiling
20/41 = 0.488 (next: layer 1 head 0, 0.024); held-out second-copy loss 0.0000.

Run: nice -n 19 /usr/bin/python3 samples/induction/train_induction.py   (Debian's python3-torch; CPU, one
thread, fixed seeds, deterministic). Knobs for experiments, from the environment: STEPS, LR, D, HEADS,
BATCH, SEED, SEG_MIN, POS_SCALE, RULE_STEPS, NO_WRITE (1: train and report, save the weights to
/tmp/induction-PID.pt, write nothing here).

Writes beside itself: config.json, model.safetensors (F32), tokenizer.json (WordLevel + WhitespaceSplit,
TemplateProcessing "<s> $A"), vocab.txt and reference.json.

The model is GPT2LMHeadModel's math written out (transformers' modeling_gpt2.py): wte/wpe (wpe fixed),
pre-LN blocks x + attn(ln_1(x)), x + mlp(ln_2(x)) with Conv1D projections (weights [in, out]) and
gelu_new, ln_f, the LM head tied to wte. The MLPs are stored as zeros (an exact 0 added to the residual
stream: attention only) so the file is an ordinary GPT-2.

The task (Olsson et al. 2022, "In-context learning and induction heads"): each sequence is <s>, a
random prefix of P words, a segment r of L distinct words, r again, then random filler, with L and P
drawn per sequence, so no fixed offset finds the earlier copy. The loss is taken only where it can be
lowered: on the second copy of r, from its second word on (and, early on, on the prefix rule's
targets). Prefix and filler are drawn from the words not in r, so each word of r occurs
exactly twice and the word after its earlier copy is the one answer. The circuit that solves it is a
previous-token head in layer 0 feeding an induction head in layer 1 (K-composition).
"""
import json
import math
import os
import re
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "fixtures", "planted"))
import make_planted as planted  # noqa: E402  (the head-detection reference)
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "fixtures"))
from make_fixtures import write_safetensors  # noqa: E402  (the safetensors writer)

PATTERNS = planted.PATTERNS
BOS = "<s>"
WORDS = ("ant arm bag bat bed bee bell bird boat book box bus cake car cat cow cup desk dog door duck egg eye "
         "fan fish flag fox frog gate goat hat hen hill horn ink jam jar key kite lamp leaf lion map milk moon "
         "nest net nut owl pen pig pot rain ring rose sea ship sock star sun tree van").split()
TOKENS = [BOS] + WORDS      # id 0 is <s>, the words are 1 … 64
V = len(TOKENS)
D, H, L, P = int(os.environ.get("D", 64)), int(os.environ.get("HEADS", 2)), 2, 64  # d_model, heads, layers, n_positions
D_FF = 4 * D
EPS = 1e-5
SEG_MIN, SEG_MAX = int(os.environ.get("SEG_MIN", 3)), 24  # lengths of the repeated segment
STEPS, BATCH, LR = int(os.environ.get("STEPS", 4000)), int(os.environ.get("BATCH", 64)), float(os.environ.get("LR", 3e-3))
WARMUP = 200
SEED = int(os.environ.get("SEED", 0))
RULE_STEPS = int(os.environ.get("RULE_STEPS", 1500))  # steps with the prefix rule word[t] = word[t − 2]
POS_SCALE = float(os.environ.get("POS_SCALE", 0.3))    # the fixed sinusoidal wpe's factor
PROBE_N = 20                # the reference's probe: repeat:20, as in docs/research-views.md and scripts/demo.sh


# ---- the model: GPT-2's forward pass -------------------------------------------------------------

def gelu_new(x):
    # transformers' NewGELUActivation: 0.5 x (1 + tanh(√(2/π) (x + 0.044715 x³)))
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


def init_params(gen):
    """GPT2PreTrainedModel._init_weights: N(0, 0.02), c_proj N(0, 0.02/√(2·n_layer)), biases 0, LN 1/0;
    the MLPs (and their ln_2, which then does nothing) are zeros and ones, not trained."""
    def normal(*shape, std=0.02):
        return torch.randn(*shape, generator=gen) * std

    w = {"wte.weight": normal(V, D), "wpe.weight": normal(P, D)}
    proj_std = 0.02 / math.sqrt(2 * L)
    for i in range(L):
        p = f"h.{i}."
        w[p + "ln_1.weight"], w[p + "ln_1.bias"] = torch.ones(D), torch.zeros(D)
        w[p + "attn.c_attn.weight"], w[p + "attn.c_attn.bias"] = normal(D, 3 * D), torch.zeros(3 * D)
        w[p + "attn.c_proj.weight"], w[p + "attn.c_proj.bias"] = normal(D, D, std=proj_std), torch.zeros(D)
        w[p + "ln_2.weight"], w[p + "ln_2.bias"] = torch.ones(D), torch.zeros(D)
        w[p + "mlp.c_fc.weight"], w[p + "mlp.c_fc.bias"] = torch.zeros(D, D_FF), torch.zeros(D_FF)
        w[p + "mlp.c_proj.weight"], w[p + "mlp.c_proj.bias"] = torch.zeros(D_FF, D), torch.zeros(D)
    w["ln_f.weight"], w["ln_f.bias"] = torch.ones(D), torch.zeros(D)
    w["wpe.weight"] = POS_SCALE * sinusoid(P, D)  # (after the N(0, 0.02) draw above, which it replaces)
    return {k: v.requires_grad_(".mlp." not in k and ".ln_2." not in k and k != "wpe.weight") for k, v in w.items()}


def sinusoid(n, d):
    """Vaswani et al.'s encoding: PE[p, 2i] = sin(p / 10000^(2i/d)), PE[p, 2i + 1] = cos(p / 10000^(2i/d))."""
    pos = torch.arange(n, dtype=torch.float64)[:, None]
    freq = 10000.0 ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
    pe = torch.zeros(n, d, dtype=torch.float64)
    pe[:, 0::2], pe[:, 1::2] = torch.sin(pos * freq), torch.cos(pos * freq)
    return pe.float()


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
        # the MLP: gelu_new(ln_2(x) W_fc + b_fc) W_proj + b_proj, all zeros here, so x + 0
    x = F.layer_norm(x, (D,), w["ln_f.weight"], w["ln_f.bias"], EPS)
    logits = x @ w["wte.weight"].T  # the tied LM head
    return (logits, maps) if want_maps else logits


# ---- data and training ---------------------------------------------------------------------------

def repeated_batch(gen, batch, seg=None, length=P, seg_range=(SEG_MIN, SEG_MAX), prefix_max=P, rule=True):
    """[batch, length] ids and a [batch, length − 1] mask of the next-token targets to score (1: the
    second copy's, 0.5: the prefix rule's, 0: not scored).

    A row: <s>, P prefix words, L distinct words r, r again, filler to the length. L is uniform in
    SEG_MIN … SEG_MAX (or `seg`), P uniform in 0 … length − 1 − 2L; prefix and filler are drawn with
    replacement from the words not in r. Scored: the targets r[1] … r[L − 1] of the second copy (its
    first word cannot be known to start a repeat). With `rule`, each prefix word from the third on is
    the word two before it, 3 times in 4, and those targets are scored too."""
    ids = torch.empty(batch, length, dtype=torch.long)
    mask = torch.zeros(batch, length - 1)
    for row in range(batch):
        n = seg if seg is not None else int(torch.randint(seg_range[0], seg_range[1] + 1, (1,), generator=gen))
        prefix = int(torch.randint(0, min(prefix_max, length - 1 - 2 * n) + 1, (1,), generator=gen))
        words = torch.randperm(len(WORDS), generator=gen) + 1
        r, others = words[:n], words[n:]
        noise = others[torch.randint(0, len(others), (length - 1 - 2 * n,), generator=gen)]
        if rule:  # the prefix: word t = word t − 2, 3 times in 4 (never a word of r: noise has none)
            coins = torch.rand(prefix, generator=gen)
            for t in range(2, prefix):
                if coins[t] < 0.75:
                    noise[t] = noise[t - 2]
                    mask[row, t] = 0.5  # logits at position t (word t − 1 of the prefix) predict word t
        ids[row] = torch.cat([torch.zeros(1, dtype=torch.long), noise[:prefix], r, r, noise[prefix:]])
        second = 1 + prefix + n  # where the second copy starts; logits at s predict s + 1
        mask[row, second:second + n - 1] = 1
    return ids, mask


def masked_loss(w, ids, mask, second_only=False):
    """Mean loss on the scored targets (mask > 0: the second copy's, 1, and the prefix rule's, 0.5), or
    on the second copy's alone."""
    mask = (mask == 1.0) if second_only else (mask > 0)
    logits = forward(w, ids[:, :-1])
    loss = F.cross_entropy(logits.transpose(1, 2), ids[:, 1:], reduction="none")  # [B, T − 1]
    return (loss * mask).sum() / mask.sum()


def head_leaders(w, ids):
    """The two best heads' previous-token and induction scores on one repeat input (mul)."""
    with torch.no_grad():
        _, maps = forward(w, torch.tensor([ids]), want_maps=True)
    s = [[[score(maps[i][0][h].double().numpy(), PATTERNS[p](ids), "mul") for p in PATTERNS] for h in range(H)]
         for i in range(L)]
    return {p: leaders(s, p) for p in ("previous-token", "induction")}


def train():
    gen = torch.Generator().manual_seed(SEED)
    w = init_params(gen)
    trained = {k: v for k, v in w.items() if v.requires_grad}
    decay = [v for k, v in trained.items() if v.dim() == 2]
    rest = [v for k, v in trained.items() if v.dim() != 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.01}, {"params": rest, "weight_decay": 0.0}],
                            lr=LR, betas=(0.9, 0.98))
    held_out = repeated_batch(torch.Generator().manual_seed(SEED + 3), 256, rule=False)
    probe = [0] + probe_repeat(PROBE_N, 0, {0})
    history = []
    for step in range(STEPS + 1):
        if step % 500 == 0:
            with torch.no_grad():
                test = float(masked_loss(w, *held_out, second_only=True))
            lead = head_leaders(w, probe)
            (a, b), (c, d) = lead["previous-token"], lead["induction"]
            print(f"step {step:5d}  second-copy loss {test:.4f}  previous-token L{a['layer']}H{a['head']} "
                  f"{a['score']:.3f} (next {b['score']:.3f})  induction L{c['layer']}H{c['head']} {c['score']:.3f} "
                  f"(next {d['score']:.3f})", flush=True)
            history.append({"step": step, "second_copy_loss": test})
        if step == STEPS:
            break
        # linear warm-up, constant, then a cosine to 0 over the last 30 %
        decay_from = int(0.7 * STEPS)
        tail = max(0.0, (step - decay_from) / (STEPS - decay_from))
        lr = LR * min(1.0, (step + 1) / WARMUP) * 0.5 * (1 + math.cos(math.pi * tail))
        for group in opt.param_groups:
            group["lr"] = lr
        ids, mask = repeated_batch(gen, BATCH, rule=step < RULE_STEPS)
        loss = masked_loss(w, ids, mask)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(decay + rest, 1.0)
        opt.step()
    return {k: v.detach() for k, v in w.items()}, history


# ---- files -------------------------------------------------------------------------------------------

def write_model(w):
    config = {"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"], "vocab_size": V, "n_positions": P,
              "n_embd": D, "n_layer": L, "n_head": H, "n_inner": D_FF, "activation_function": "gelu_new",
              "layer_norm_epsilon": EPS, "tie_word_embeddings": True, "bos_token_id": 0, "eos_token_id": 0}
    with open(os.path.join(HERE, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
        f.write("\n")
    write_safetensors(os.path.join(HERE, "model.safetensors"), w)
    with open(os.path.join(HERE, "vocab.txt"), "w") as f:
        f.write("".join(token + "\n" for token in TOKENS))
    tokenizer = {"version": "1.0", "truncation": None, "padding": None,
                 "added_tokens": [{"id": 0, "content": BOS, "single_word": False, "lstrip": False, "rstrip": False,
                                   "normalized": False, "special": True}],
                 "normalizer": None, "pre_tokenizer": {"type": "WhitespaceSplit"},
                 "post_processor": {"type": "TemplateProcessing",
                                    "single": [{"SpecialToken": {"id": BOS, "type_id": 0}},
                                               {"Sequence": {"id": "A", "type_id": 0}}],
                                    "pair": [{"SpecialToken": {"id": BOS, "type_id": 0}},
                                             {"Sequence": {"id": "A", "type_id": 0}},
                                             {"Sequence": {"id": "B", "type_id": 1}}],
                                    "special_tokens": {BOS: {"id": BOS, "ids": [0], "tokens": [BOS]}}},
                 "decoder": None,
                 "model": {"type": "WordLevel", "vocab": {token: i for i, token in enumerate(TOKENS)}}}
    with open(os.path.join(HERE, "tokenizer.json"), "w") as f:
        json.dump(tokenizer, f, indent=1)
        f.write("\n")


# ---- the reference: maps and TransformerLens's head-detection scores ---------------------------------

def probe_repeat(n, seed, taken):
    """attnviz's --probe repeat:N --seed S ids after the special tokens (src/inputs/probe.cpp): n distinct
    ids drawn with splitmix64 (core/random.cpp), rejecting the top partial range of 2⁶⁴ for no modulo
    bias and the ids in `taken` (the special tokens the tokenizer adds: <s>), then the same n again."""
    mask, state = (1 << 64) - 1, seed
    limit = mask - mask % V
    first = []
    while len(first) < n:
        state = (state + 0x9E3779B97F4A7C15) & mask
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        z ^= z >> 31
        if z < limit and z % V not in first and z % V not in taken:
            first.append(z % V)
    return first + first


# TransformerLens's head_detector.py (get_*_detection_pattern, compute_head_attention_similarity_score
# without rounding "abs"), plus attnviz's sink: the NumPy versions tests/fixtures/planted/make_planted.py
# holds, used here with neither exclusion.
def score(a, p, measure):
    return planted.score(a, p, False, False, measure)


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
    w, history = train()
    seconds = time.time() - start
    if os.environ.get("NO_WRITE") == "1":
        torch.save(w, f"/tmp/induction-{os.getpid()}.pt")
        return
    write_model(w)

    w64 = {k: v.double() for k, v in w.items()}  # the F32 weights as written, run in float64
    eval_gen = torch.Generator().manual_seed(SEED + 1)
    ids, mask = repeated_batch(eval_gen, 1000, rule=False)  # the task alone, as after RULE_STEPS
    mask = (mask == 1.0).double()
    with torch.no_grad():
        logits = forward(w64, ids[:, :-1])
        loss = F.cross_entropy(logits.transpose(1, 2), ids[:, 1:], reduction="none")
    second = float((loss * mask).sum() / mask.sum())
    first_mask = torch.zeros_like(mask)  # the first copy's targets r[1] … r[L − 1]: not predictable
    for row in range(len(ids)):
        at = mask[row].nonzero().flatten()
        n = len(at) + 1
        first_mask[row, int(at[0]) - n:int(at[0]) - 1] = 1
    first = float((loss * first_mask).sum() / first_mask.sum())
    print(f"trained {STEPS} steps in {seconds:.0f} s; held-out loss (1000 sequences): first copy {first:.4f} "
          f"(ln 64 words = {math.log(len(WORDS)):.4f}), second copy {second:.4f}")

    text_gen = torch.Generator().manual_seed(SEED + 2)
    segment = [int(i) + 1 for i in torch.randperm(len(WORDS), generator=text_gen)[:24]]
    text_ids = [0] + segment + segment  # the tokenizer puts <s> first
    inputs = [reference_entry(w64, "text", text_ids, " ".join(TOKENS[i] for i in text_ids[1:])),
              reference_entry(w64, f"probe repeat:{PROBE_N}", [0] + probe_repeat(PROBE_N, 0, {0}), None)]
    inputs[1]["probe"] = f"repeat:{PROBE_N}"
    inputs[1]["seed"] = 0
    del inputs[1]["probs"]  # its scores are checked; one input's maps are enough
    heads = {p: leaders(inputs[1]["scores"]["mul"], p) for p in PATTERNS}
    for p, (a, b) in heads.items():
        print(f"{p}: layer {a['layer']} head {a['head']} {a['score']:.3f}, "
              f"next layer {b['layer']} head {b['head']} {b['score']:.3f}")
    reference = {"patterns": list(PATTERNS),
                 "training": {"steps": STEPS, "batch": BATCH, "lr": LR, "seed": SEED, "heads": H, "d_model": D,
                              "wpe": f"sinusoidal x {POS_SCALE}, fixed", "rule_steps": RULE_STEPS,
                              "seconds": round(seconds),
                              "second_copy_loss": history},
                 "loss": {"sequences": 1000, "first_copy": first, "second_copy": second,
                          "ln_words": math.log(len(WORDS))},
                 "leaders": heads, "inputs": inputs}
    text = json.dumps(reference, indent=1)
    # innermost lists of numbers on one line each: a map row, a head's scores
    text = re.sub(r"\[\s+([-+0-9.e,\s]+?)\s+\]", lambda m: "[" + re.sub(r",\s+", ", ", m.group(1)) + "]", text)
    with open(os.path.join(HERE, "reference.json"), "w") as f:
        f.write(text + "\n")


if __name__ == "__main__":
    main()
