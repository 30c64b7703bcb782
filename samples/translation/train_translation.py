#!/usr/bin/env python3
"""Trains the samples/translation model: a small Marian-shaped encoder-decoder (MarianMTModel's files:
config.json, model.safetensors) that translates a toy fragment of English into French, so that its
cross-attention learns real alignments, crossing ones included; and writes its reference for
tests/test_trained_translation.cpp.

The language: sentences "DET (SIZE) (COLOUR) NOUN VERB DET (SIZE) (COLOUR) NOUN", generated from a
fixed lexicon, and their French: the article and the adjectives agree with the noun's gender
(the → le / la, a → un / une, small → petit / petite, white → blanc / blanche), size adjectives stay
before the noun and colour adjectives move after it ("the small white cat" → "le petit chat blanc"),
the verb is translated word for word. Every French word comes from one English word, so the gold
alignment is known: gold.txt (Pharaoh, one line per pair of pairs.jsonl) holds it for the
sentences the docs align. Each target word's gender form depends on a noun that may come later in the
source, and a colour adjective's place on the noun before it: what the cross-attention must find.

The model is MarianMTModel's math written out (transformers' modeling_marian.py): shared embeddings
× √d, the half-split sinusoid from position 0, post-norm layers x = LN(x + attn(x)), x = LN(x +
fc2(swish(fc1(x)))), the decoder's causal self-attention and cross-attention, lm_head tied to the
embeddings plus final_logits_bias. D = 64, 4 heads, 2 + 2 layers, d_ff 128; AdamW lr 2e-3, batch 64,
1500 steps, teacher forcing from decoder_start_token_id (<pad>), cross-entropy on every target token and
the closing </s>. About two minutes on one CPU thread.

Run: nice -n 19 /usr/bin/python3 samples/translation/train_translation.py   (Debian's python3-torch;
CPU, one thread, fixed seeds, deterministic). Writes beside itself: config.json, model.safetensors,
tokenizer.json (WordLevel + WhitespaceSplit, TemplateProcessing "$A </s>"), pairs.jsonl (the docs'
pairs as `attnviz align --batch` reads them), gold.txt and reference.json (the greedy translations and one
cross-attention map of this script's own forward pass, and the held-out accuracy).
"""
import json
import math
import os
import random
import sys
import time

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "fixtures"))
from make_fixtures import marian_sinusoid, write_safetensors  # noqa: E402

NOUNS = {"cat": ("chat", "m"), "dog": ("chien", "m"), "bird": ("oiseau", "m"), "book": ("livre", "m"),
         "house": ("maison", "f"), "car": ("voiture", "f"), "apple": ("pomme", "f"), "table": ("table", "f")}
DETS = {"the": ("le", "la"), "a": ("un", "une")}
SIZES = {"small": ("petit", "petite"), "big": ("grand", "grande")}
COLOURS = {"white": ("blanc", "blanche"), "black": ("noir", "noire"), "green": ("vert", "verte"),
           "red": ("rouge", "rouge")}
VERBS = {"sees": "voit", "likes": "aime", "wants": "veut", "has": "a"}
SPECIAL = ["<pad>", "</s>", "<unk>"]
PAD, EOS = 0, 1
D, HEADS, LAYERS, D_FF, EPS = 64, 4, 2, 128, 1e-5
STEPS, BATCH, LR, SEED = 1500, 64, 2e-3, 0
DOC_SENTENCES = ["the small white cat sees a red car", "a big black dog likes the green apple",
                 "the house has a small table"]


def vocabulary():
    words = set(DETS) | set(SIZES) | set(COLOURS) | set(NOUNS) | set(VERBS)
    for table in (DETS, SIZES, COLOURS):
        for forms in table.values():
            words |= set(forms)
    words |= {fr for fr, _ in NOUNS.values()} | set(VERBS.values())
    return SPECIAL + sorted(words)


def translate_phrase(det, size, colour, noun):
    """(English words, French words, alignment as (en index, fr index) within the phrase)."""
    fr_noun, gender = NOUNS[noun]
    g = 0 if gender == "m" else 1
    en = [det] + ([size] if size else []) + ([colour] if colour else []) + [noun]
    fr, links = [DETS[det][g]], [(0, 0)]
    if size:
        fr.append(SIZES[size][g])
        links.append((1, len(fr) - 1))
    fr.append(fr_noun)
    links.append((len(en) - 1, len(fr) - 1))
    if colour:
        fr.append(COLOURS[colour][g])
        links.append((en.index(colour), len(fr) - 1))
    return en, fr, links


def noun_phrase(rng):
    det, noun = rng.choice(sorted(DETS)), rng.choice(sorted(NOUNS))
    size = rng.choice(sorted(SIZES)) if rng.random() < 0.5 else None
    colour = rng.choice(sorted(COLOURS)) if rng.random() < 0.5 else None
    return translate_phrase(det, size, colour, noun)


def join(subject, verb, obj):
    s_en, s_fr, s_links = subject
    o_en, o_fr, o_links = obj
    en = s_en + [verb] + o_en
    fr = s_fr + [VERBS[verb]] + o_fr
    links = s_links + [(len(s_en), len(s_fr))]
    links += [(i + len(s_en) + 1, j + len(s_fr) + 1) for i, j in o_links]
    return en, fr, sorted(links)


def sentence(rng):
    subject = noun_phrase(rng)
    verb = rng.choice(sorted(VERBS))
    return join(subject, verb, noun_phrase(rng))


def translate_by_rule(en_words):
    """The grammar's translation of one of its sentences: DET (SIZE) (COLOUR) NOUN VERB DET … NOUN."""
    def phrase(words):
        det, rest = words[0], words[1:]
        size = rest.pop(0) if rest[0] in SIZES else None
        colour = rest.pop(0) if rest[0] in COLOURS else None
        assert len(rest) == 1 and det in DETS and rest[0] in NOUNS, words
        return translate_phrase(det, size, colour, rest[0])

    v = next(i for i, x in enumerate(en_words) if x in VERBS)
    en, fr, links = join(phrase(en_words[:v]), en_words[v], phrase(en_words[v + 1:]))
    assert en == en_words
    return fr, links


# ---- the model: MarianMTModel's forward pass ------------------------------------------------------

def init_params(gen, vocab):
    def linear(name, n_out, n_in):
        w[name + ".weight"] = torch.randn(n_out, n_in, generator=gen) * math.sqrt(1.0 / n_in)
        w[name + ".bias"] = torch.zeros(n_out)

    def norm(name):
        w[name + ".weight"], w[name + ".bias"] = torch.ones(D), torch.zeros(D)

    w = {"model.shared.weight": torch.randn(vocab, D, generator=gen) * D ** -0.5}
    for stack in ("encoder", "decoder"):
        for i in range(LAYERS):
            p = f"model.{stack}.layers.{i}."
            for module in ("self_attn",) + (("encoder_attn",) if stack == "decoder" else ()):
                for r in ("q", "k", "v", "out"):
                    linear(f"{p}{module}.{r}_proj", D, D)
                norm(f"{p}{module}_layer_norm")
            linear(p + "fc1", D_FF, D)
            linear(p + "fc2", D, D_FF)
            norm(p + "final_layer_norm")
    w["final_logits_bias"] = torch.zeros(1, vocab)
    return {k: v.requires_grad_(k != "final_logits_bias") for k, v in w.items()}


def attention(w, p, x, kv, allowed):
    """MarianAttention (eval): [B, T, D] queries, [B, S, D] keys/values, allowed [B, 1|T, S]."""
    b, t, _ = x.shape
    s = kv.shape[1]
    dk = D // HEADS
    q = F.linear(x, w[p + "q_proj.weight"], w[p + "q_proj.bias"]).view(b, t, HEADS, dk).transpose(1, 2)
    k = F.linear(kv, w[p + "k_proj.weight"], w[p + "k_proj.bias"]).view(b, s, HEADS, dk).transpose(1, 2)
    v = F.linear(kv, w[p + "v_proj.weight"], w[p + "v_proj.bias"]).view(b, s, HEADS, dk).transpose(1, 2)
    scores = (q @ k.transpose(2, 3)) * dk ** -0.5
    probs = scores.masked_fill(~allowed.unsqueeze(1), float("-inf")).softmax(-1)
    out = (probs @ v).transpose(1, 2).reshape(b, t, D)
    return F.linear(out, w[p + "out_proj.weight"], w[p + "out_proj.bias"]), probs


def forward(w, src, tgt, maps=None):
    """Logits [B, T, V] for source ids [B, S] and decoder input ids [B, T] (PAD-padded on the right)."""
    ln = lambda x, p: F.layer_norm(x, (D,), w[p + ".weight"], w[p + ".bias"], EPS)
    ffn = lambda x, p: F.linear(F.silu(F.linear(x, w[p + "fc1.weight"], w[p + "fc1.bias"])),
                                w[p + "fc2.weight"], w[p + "fc2.bias"])
    pe = marian_sinusoid(64, D)
    embed = lambda ids: w["model.shared.weight"][ids] * math.sqrt(D) + pe[:ids.shape[1]]
    src_keys = (src != PAD).unsqueeze(1)  # [B, 1, S]
    h = embed(src)
    for i in range(LAYERS):
        p = f"model.encoder.layers.{i}."
        a, _ = attention(w, p + "self_attn.", h, h, src_keys)
        h = ln(h + a, p + "self_attn_layer_norm")
        h = ln(h + ffn(h, p), p + "final_layer_norm")
    memory, t = h, tgt.shape[1]
    causal = torch.ones(t, t, dtype=torch.bool).tril().unsqueeze(0)
    y = embed(tgt)
    for i in range(LAYERS):
        p = f"model.decoder.layers.{i}."
        a, _ = attention(w, p + "self_attn.", y, y, causal)
        y = ln(y + a, p + "self_attn_layer_norm")
        a, probs = attention(w, p + "encoder_attn.", y, memory, src_keys)
        if maps is not None:
            maps[f"decoder.layer{i}.cross"] = probs
        y = ln(y + a, p + "encoder_attn_layer_norm")
        y = ln(y + ffn(y, p), p + "final_layer_norm")
    return F.linear(y, w["model.shared.weight"]) + w["final_logits_bias"]


def batch(rng, ids):
    pairs = [sentence(rng) for _ in range(BATCH)]
    src = [[ids[x] for x in en] + [EOS] for en, _, _ in pairs]
    labels = [[ids[x] for x in fr] + [EOS] for _, fr, _ in pairs]
    pad = lambda rows: torch.tensor([r + [PAD] * (max(map(len, rows)) - len(r)) for r in rows])
    return pad(src), pad([[PAD] + r[:-1] for r in labels]), pad(labels)


def greedy(w, src_ids, steps=16):
    tgt = [PAD]
    with torch.no_grad():
        for _ in range(steps):
            nxt = int(forward(w, torch.tensor([src_ids]), torch.tensor([tgt]))[0, -1].argmax())
            tgt.append(nxt)
            if nxt == EOS:
                break
    return tgt


def main():
    torch.set_num_threads(1)
    torch.manual_seed(SEED)
    rng = random.Random(SEED)
    tokens = vocabulary()
    ids = {t: i for i, t in enumerate(tokens)}
    w = init_params(torch.Generator().manual_seed(SEED), len(tokens))
    params = [v for v in w.values() if v.requires_grad]
    opt = torch.optim.AdamW(params, lr=LR, betas=(0.9, 0.98), weight_decay=0.01)
    start = time.time()
    for step in range(STEPS + 1):
        src, tgt, labels = batch(rng, ids)
        logits = forward(w, src, tgt)
        loss = F.cross_entropy(logits.reshape(-1, len(tokens)), labels.reshape(-1), ignore_index=PAD)
        if step % 250 == 0:
            print(f"step {step}: loss {loss.item():.4f}", flush=True)
        if step == STEPS:
            break
        opt.zero_grad()
        loss.backward()
        for group in opt.param_groups:  # cosine to 0 after 100 warm-up steps
            group["lr"] = LR * min(1.0, (step + 1) / 100) * 0.5 * (1 + math.cos(math.pi * step / STEPS))
        opt.step()
    seconds = round(time.time() - start)
    w = {k: v.detach() for k, v in w.items()}

    held_out, correct = random.Random(SEED + 1), 0
    for _ in range(200):
        en, fr, _ = sentence(held_out)
        out = greedy(w, [ids[x] for x in en] + [EOS])
        correct += out[1:] == [ids[x] for x in fr] + [EOS]
    print(f"held-out sentences translated exactly: {correct} / 200 ({seconds} s)")

    config = {"architectures": ["MarianMTModel"], "model_type": "marian", "d_model": D, "encoder_layers": LAYERS,
              "decoder_layers": LAYERS, "encoder_attention_heads": HEADS, "decoder_attention_heads": HEADS,
              "encoder_ffn_dim": D_FF, "decoder_ffn_dim": D_FF, "activation_function": "swish",
              "max_position_embeddings": 64, "scale_embedding": True, "vocab_size": len(tokens),
              "decoder_vocab_size": len(tokens), "pad_token_id": PAD, "eos_token_id": EOS,
              "decoder_start_token_id": PAD, "share_encoder_decoder_embeddings": True,
              "is_encoder_decoder": True, "tie_word_embeddings": True}
    with open(os.path.join(HERE, "config.json"), "w") as f:
        json.dump(config, f, indent=1)
        f.write("\n")
    write_safetensors(os.path.join(HERE, "model.safetensors"), w, {"format": "pt"})
    added = [{"id": ids[t], "content": t, "single_word": False, "lstrip": False, "rstrip": False,
              "normalized": False, "special": True} for t in SPECIAL]
    tokenizer = {"version": "1.0", "truncation": None, "padding": None, "added_tokens": added, "normalizer": None,
                 "pre_tokenizer": {"type": "WhitespaceSplit"},
                 "post_processor": {"type": "TemplateProcessing",
                                    "single": [{"Sequence": {"id": "A", "type_id": 0}},
                                               {"SpecialToken": {"id": "</s>", "type_id": 0}}],
                                    "pair": [{"Sequence": {"id": "A", "type_id": 0}},
                                             {"Sequence": {"id": "B", "type_id": 0}},
                                             {"SpecialToken": {"id": "</s>", "type_id": 0}}],
                                    "special_tokens": {"</s>": {"id": "</s>", "ids": [EOS], "tokens": ["</s>"]}}},
                 "decoder": None, "model": {"type": "WordLevel", "vocab": ids, "unk_token": "<unk>"}}
    with open(os.path.join(HERE, "tokenizer.json"), "w") as f:
        json.dump(tokenizer, f, indent=1)
        f.write("\n")

    reference = {"training": {"steps": STEPS, "batch": BATCH, "lr": LR, "seed": SEED, "d_model": D,
                              "heads": HEADS, "layers": LAYERS, "seconds": seconds,
                              "held_out_exact": correct, "held_out": 200},
                 "sentences": []}
    with open(os.path.join(HERE, "pairs.jsonl"), "w") as pairs, open(os.path.join(HERE, "gold.txt"), "w") as gold:
        for s in DOC_SENTENCES:
            fr, links = translate_by_rule(s.split())
            pairs.write(json.dumps({"source_text": s, "text": " ".join(fr)}) + "\n")
            gold.write(" ".join(f"{i}-{j}" for i, j in links) + "\n")
            src = [ids[x] for x in s.split()] + [EOS]
            out = greedy(w, src)
            maps = {}
            with torch.no_grad():
                forward(w, torch.tensor([src]), torch.tensor([out]), maps)
            reference["sentences"].append({
                "source": s, "rule": " ".join(fr), "source_ids": src, "greedy_ids": out,
                "greedy": " ".join(tokens[i] for i in out[1:] if i != EOS),
                "cross_layer1_head0": maps["decoder.layer1.cross"][0, 0].tolist()})
    with open(os.path.join(HERE, "reference.json"), "w") as f:
        json.dump(reference, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
