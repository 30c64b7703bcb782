#!/usr/bin/env python3
"""Trains the samples/gru-translation model: the GRU encoder-decoder with Bahdanau attention of PyTorch's
translation tutorial ("NLP From Scratch: Translation with a Sequence to Sequence Network and Attention",
intermediate/seq2seq_translation_tutorial.py), on a fragment of French that it translates into English, as
the tutorial does; and writes the folder attnviz reads (docs/models-and-formats.md, "The translation
tutorial's GRU model") and its reference for tests/test_gru_translation.cpp.

The model, the text preparation and the training loop are the tutorial's, copied below: Lang (SOS 0, EOS 1,
words numbered in order of appearance), unicodeToAscii and normalizeString, EncoderRNN, BahdanauAttention,
AttnDecoderRNN, train_epoch with Adam and NLLLoss, and evaluate's greedy decoding. Two things differ. The
batches hold inputs of one length, unpadded (batches_by_input_length says why; targets are padded to
MAX_LENGTH as get_dataloader pads them). And the data: the tutorial downloads eng-fra.txt (Tatoeba pairs), which this
machine cannot, so the pairs are generated from a small lexicon in the style the tutorial keeps (English
sentences starting "i am", "he is", "she is", "you are", "we are", "they are"): a subject and the verb
être, an adjective that agrees in gender and number (content / contente / contents / contentes → happy),
with "ne … pas" around the verb (→ "not" after it: a crossing alignment), "très" (very), "trop" (too),
"toujours" (always), "?" after "tu", "!" after "trop", and two-word and three-word phrases (en retard → late, à la maison → at home).
hidden_size 64 (the tutorial's 128 works the same; 64 keeps the committed file small), 60 epochs, batch
32, lr 0.001, seed 0: about a minute on one CPU thread.

Run: nice -n 19 /usr/bin/python3 samples/gru-translation/train_gru_translation.py   (Debian's python3-torch;
CPU, one thread, fixed seeds). Writes beside itself: model.safetensors (the two modules' state_dicts under
encoder. and decoder.), config.json, source_tokenizer.json and target_tokenizer.json (tokenizers'
tokenizer.json: normalizeString as a normalizer sequence, WhitespaceSplit, the Lang's words as a
WordLevel vocabulary, "$A EOS" as the tutorial's tensorFromSentence appends EOS), pairs.txt (the pairs
trained on) and reference.json (this script's own forward passes: ids, greedy translations with their
attention, a teacher-forced map and logits, and each side's ids of 60 texts by the tutorial's own
functions, for the tokenizers' test).
"""
import json
import os
import random
import re
import sys
import unicodedata

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import optim
from torch.utils.data import DataLoader, RandomSampler, TensorDataset

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "fixtures"))
from make_fixtures import write_safetensors  # noqa: E402

torch.set_num_threads(1)
device = torch.device("cpu")
SEED, HIDDEN, EPOCHS, BATCH, LR = 0, 64, 60, 32, 0.001

# ---- The tutorial's code (intermediate/seq2seq_translation_tutorial.py), unchanged but for comments ----
SOS_token = 0
EOS_token = 1
MAX_LENGTH = 10


class Lang:
    def __init__(self, name):
        self.name = name
        self.word2index = {}
        self.word2count = {}
        self.index2word = {0: "SOS", 1: "EOS"}
        self.n_words = 2  # Count SOS and EOS

    def addSentence(self, sentence):
        for word in sentence.split(' '):
            self.addWord(word)

    def addWord(self, word):
        if word not in self.word2index:
            self.word2index[word] = self.n_words
            self.word2count[word] = 1
            self.index2word[self.n_words] = word
            self.n_words += 1
        else:
            self.word2count[word] += 1


def unicodeToAscii(s):
    return ''.join(
        c for c in unicodedata.normalize('NFD', s)
        if unicodedata.category(c) != 'Mn'
    )


def normalizeString(s):
    s = unicodeToAscii(s.lower().strip())
    s = re.sub(r"([.!?])", r" \1", s)
    s = re.sub(r"[^a-zA-Z!?]+", r" ", s)
    return s.strip()


class EncoderRNN(nn.Module):
    def __init__(self, input_size, hidden_size, dropout_p=0.1):
        super(EncoderRNN, self).__init__()
        self.hidden_size = hidden_size

        self.embedding = nn.Embedding(input_size, hidden_size)
        self.gru = nn.GRU(hidden_size, hidden_size, batch_first=True)
        self.dropout = nn.Dropout(dropout_p)

    def forward(self, input):
        embedded = self.dropout(self.embedding(input))
        output, hidden = self.gru(embedded)
        return output, hidden


class BahdanauAttention(nn.Module):
    def __init__(self, hidden_size):
        super(BahdanauAttention, self).__init__()
        self.Wa = nn.Linear(hidden_size, hidden_size)
        self.Ua = nn.Linear(hidden_size, hidden_size)
        self.Va = nn.Linear(hidden_size, 1)

    def forward(self, query, keys):
        scores = self.Va(torch.tanh(self.Wa(query) + self.Ua(keys)))
        scores = scores.squeeze(2).unsqueeze(1)

        weights = F.softmax(scores, dim=-1)
        context = torch.bmm(weights, keys)

        return context, weights


class AttnDecoderRNN(nn.Module):
    def __init__(self, hidden_size, output_size, dropout_p=0.1):
        super(AttnDecoderRNN, self).__init__()
        self.embedding = nn.Embedding(output_size, hidden_size)
        self.attention = BahdanauAttention(hidden_size)
        self.gru = nn.GRU(2 * hidden_size, hidden_size, batch_first=True)
        self.out = nn.Linear(hidden_size, output_size)
        self.dropout = nn.Dropout(dropout_p)

    def forward(self, encoder_outputs, encoder_hidden, target_tensor=None):
        batch_size = encoder_outputs.size(0)
        decoder_input = torch.empty(batch_size, 1, dtype=torch.long, device=device).fill_(SOS_token)
        decoder_hidden = encoder_hidden
        decoder_outputs = []
        attentions = []

        for i in range(MAX_LENGTH):
            decoder_output, decoder_hidden, attn_weights = self.forward_step(
                decoder_input, decoder_hidden, encoder_outputs
            )
            decoder_outputs.append(decoder_output)
            attentions.append(attn_weights)

            if target_tensor is not None:
                # Teacher forcing: Feed the target as the next input
                decoder_input = target_tensor[:, i].unsqueeze(1)  # Teacher forcing
            else:
                # Without teacher forcing: use its own predictions as the next input
                _, topi = decoder_output.topk(1)
                decoder_input = topi.squeeze(-1).detach()  # detach from history as input

        decoder_outputs = torch.cat(decoder_outputs, dim=1)
        decoder_outputs = F.log_softmax(decoder_outputs, dim=-1)
        attentions = torch.cat(attentions, dim=1)

        return decoder_outputs, decoder_hidden, attentions

    def forward_step(self, input, hidden, encoder_outputs):
        embedded = self.dropout(self.embedding(input))

        query = hidden.permute(1, 0, 2)
        context, attn_weights = self.attention(query, encoder_outputs)
        input_gru = torch.cat((embedded, context), dim=2)

        output, hidden = self.gru(input_gru, hidden)
        output = self.out(output)

        return output, hidden, attn_weights


def indexesFromSentence(lang, sentence):
    return [lang.word2index[word] for word in sentence.split(' ')]


def tensorFromSentence(lang, sentence):
    indexes = indexesFromSentence(lang, sentence)
    indexes.append(EOS_token)
    return torch.tensor(indexes, dtype=torch.long, device=device).view(1, -1)


def get_dataloader(batch_size, input_lang, output_lang, pairs):
    n = len(pairs)
    input_ids = torch.zeros((n, MAX_LENGTH), dtype=torch.int32).numpy()
    target_ids = torch.zeros((n, MAX_LENGTH), dtype=torch.int32).numpy()

    for idx, (inp, tgt) in enumerate(pairs):
        inp_ids = indexesFromSentence(input_lang, inp)
        tgt_ids = indexesFromSentence(output_lang, tgt)
        inp_ids.append(EOS_token)
        tgt_ids.append(EOS_token)
        input_ids[idx, :len(inp_ids)] = inp_ids
        target_ids[idx, :len(tgt_ids)] = tgt_ids

    train_data = TensorDataset(torch.LongTensor(input_ids).to(device),
                               torch.LongTensor(target_ids).to(device))

    train_sampler = RandomSampler(train_data)
    return DataLoader(train_data, sampler=train_sampler, batch_size=batch_size)


def train_epoch(dataloader, encoder, decoder, encoder_optimizer, decoder_optimizer, criterion):
    total_loss = 0
    for data in dataloader:
        input_tensor, target_tensor = data

        encoder_optimizer.zero_grad()
        decoder_optimizer.zero_grad()

        encoder_outputs, encoder_hidden = encoder(input_tensor)
        decoder_outputs, _, _ = decoder(encoder_outputs, encoder_hidden, target_tensor)

        loss = criterion(
            decoder_outputs.view(-1, decoder_outputs.size(-1)),
            target_tensor.view(-1)
        )
        loss.backward()

        encoder_optimizer.step()
        decoder_optimizer.step()

        total_loss += loss.item()

    return total_loss / len(dataloader)


def evaluate(encoder, decoder, sentence, input_lang, output_lang):
    with torch.no_grad():
        input_tensor = tensorFromSentence(input_lang, sentence)

        encoder_outputs, encoder_hidden = encoder(input_tensor)
        decoder_outputs, decoder_hidden, decoder_attn = decoder(encoder_outputs, encoder_hidden)

        _, topi = decoder_outputs.topk(1)
        decoded_ids = topi.squeeze()

        decoded_words = []
        for idx in decoded_ids:
            if idx.item() == EOS_token:
                decoded_words.append('<EOS>')
                break
            decoded_words.append(output_lang.index2word[idx.item()])
    return decoded_words, decoder_attn
# ---- end of the tutorial's code ----


# The data: (French, English) pairs in the style the tutorial keeps.
SUBJECTS = [  # French, its negated form's opening, English, gender, plural
    ("je suis", "je ne suis pas", "i am", "m", False), ("je suis", "je ne suis pas", "i am", "f", False),
    ("tu es", "tu n'es pas", "you are", "m", False), ("tu es", "tu n'es pas", "you are", "f", False),
    ("il est", "il n'est pas", "he is", "m", False), ("elle est", "elle n'est pas", "she is", "f", False),
    ("nous sommes", "nous ne sommes pas", "we are", "m", True),
    ("ils sont", "ils ne sont pas", "they are", "m", True),
    ("elles sont", "elles ne sont pas", "they are", "f", True),
]
ADJECTIVES = {  # English: (masculine, feminine, masculine plural, feminine plural)
    "happy": ("content", "contente", "contents", "contentes"),
    "tired": ("fatigué", "fatiguée", "fatigués", "fatiguées"),
    "tall": ("grand", "grande", "grands", "grandes"),
    "ready": ("prêt", "prête", "prêts", "prêtes"),
    "sick": ("malade", "malade", "malades", "malades"),
    "sad": ("triste", "triste", "tristes", "tristes"),
    "busy": ("occupé", "occupée", "occupés", "occupées"),
    "sorry": ("désolé", "désolée", "désolés", "désolées"),
    "late": ("en retard",) * 4,
    "at home": ("à la maison",) * 4,
}
ADVERBS = {"": "", "très": "very", "trop": "too", "toujours": "always"}
DOC_SENTENCES = ["je ne suis pas très fatigué .", "elle est toujours en retard .",
                 "nous sommes à la maison .", "ils ne sont pas contents ."]
TEST_TEXTS = ["Je suis content.", "Il n'est pas malade!", "ELLES SONT TRISTES?", "tu es prête ?",
              "  nous   sommes très occupés .  ", "Elle est désolée...", "je suis à la maison",
              "ils sont en retard !", "Il est grand, très grand."]


def french_pairs():
    pairs = []
    for fr, fr_not, en, gender, plural in SUBJECTS:
        for english, forms in ADJECTIVES.items():
            adjective = forms[(2 if plural else 0) + (1 if gender == "f" else 0)]
            for adverb, adverb_en in ADVERBS.items():
                if adverb and english in ("at home",) or adverb == "très" and english == "late":
                    continue
                front = f"{fr} {adverb}".strip()
                en_front = f"{en} {adverb_en}".strip()
                end = "?" if fr.startswith("tu") else "!" if adverb == "trop" else "."
                pairs.append((f"{front} {adjective} {end}", f"{en_front} {english} {end}"))
                if adverb != "toujours":
                    neg = f"{fr_not} {adverb}".strip()
                    pairs.append((f"{neg} {adjective} {end}", f"{en} not {adverb_en} {english} {end}".replace("  ", " ")))
    return pairs


def batches_by_input_length(batch_size, input_lang, output_lang, pairs):
    """get_dataloader's batches, but of inputs of one length each, unpadded. The tutorial pads every input
    to MAX_LENGTH with 0s, so its encoder trains on states that have read the padding, while evaluate()
    reads the sentence alone: on this data, that leaves most greedy translations wrong. Targets are padded
    as the tutorial's decoder needs (it reads target_tensor[:, i] for MAX_LENGTH steps)."""
    by_length = {}
    for inp, tgt in pairs:
        inp_ids = indexesFromSentence(input_lang, inp) + [EOS_token]
        tgt_ids = indexesFromSentence(output_lang, tgt) + [EOS_token]
        by_length.setdefault(len(inp_ids), []).append((inp_ids, tgt_ids + [0] * (MAX_LENGTH - len(tgt_ids))))
    batches = []
    for length in sorted(by_length):
        group = by_length[length]
        random.shuffle(group)
        for i in range(0, len(group), batch_size):
            chunk = group[i:i + batch_size]
            batches.append((torch.tensor([c[0] for c in chunk]), torch.tensor([c[1] for c in chunk])))
    return batches


def tokenizer_json(lang):
    """tokenizers' tokenizer.json doing what normalizeString, indexesFromSentence and tensorFromSentence do."""
    def special(i, t):
        return {"id": i, "content": t, "single_word": False, "lstrip": False, "rstrip": False,
                "normalized": False, "special": True}
    strip = {"type": "Strip", "strip_left": True, "strip_right": True}
    replace = [{"type": "Replace", "pattern": {"String": p}, "content": " " + p} for p in ".!?"]
    return {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [special(SOS_token, "SOS"), special(EOS_token, "EOS")],
        "normalizer": {"type": "Sequence", "normalizers": [
            {"type": "Lowercase"}, strip, {"type": "NFD"}, {"type": "StripAccents"}, *replace,
            {"type": "Replace", "pattern": {"Regex": "[^a-zA-Z!?]+"}, "content": " "}, strip]},
        "pre_tokenizer": {"type": "WhitespaceSplit"},
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [{"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "EOS", "type_id": 0}}],
            "pair": [{"Sequence": {"id": "A", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 0}},
                     {"SpecialToken": {"id": "EOS", "type_id": 0}}],
            "special_tokens": {"EOS": {"id": "EOS", "ids": [EOS_token], "tokens": ["EOS"]}}},
        "decoder": None,
        # tokenizers' WordLevel always has an unk_token (its default "<unk>"); the tutorial has none, and
        # neither has the vocabulary: a word outside it is an error, as the tutorial's KeyError.
        "model": {"type": "WordLevel", "vocab": {w: i for i, w in sorted(lang.index2word.items())},
                  "unk_token": "<unk>"},
    }


def ids_of(lang, text):
    return [lang.word2index[w] for w in normalizeString(text).split(' ')] + [EOS_token]


def main():
    random.seed(SEED)
    torch.manual_seed(SEED)
    pairs = [(normalizeString(f), normalizeString(e)) for f, e in french_pairs()]
    pairs = [p for p in pairs if len(p[0].split(' ')) < MAX_LENGTH and len(p[1].split(' ')) < MAX_LENGTH]
    input_lang, output_lang = Lang("fra"), Lang("eng")
    for f, e in pairs:
        input_lang.addSentence(f)
        output_lang.addSentence(e)
    print(f"{len(pairs)} pairs, {input_lang.n_words} French words, {output_lang.n_words} English words")

    encoder = EncoderRNN(input_lang.n_words, HIDDEN).to(device)
    decoder = AttnDecoderRNN(HIDDEN, output_lang.n_words).to(device)
    batches = batches_by_input_length(BATCH, input_lang, output_lang, pairs)
    enc_opt, dec_opt = optim.Adam(encoder.parameters(), lr=LR), optim.Adam(decoder.parameters(), lr=LR)
    criterion = nn.NLLLoss()
    for epoch in range(1, EPOCHS + 1):
        random.shuffle(batches)
        loss = train_epoch(batches, encoder, decoder, enc_opt, dec_opt, criterion)
        if epoch % 10 == 0:
            print(f"epoch {epoch}: loss {loss:.4f}")
    encoder.eval()
    decoder.eval()

    correct = sum(evaluate(encoder, decoder, f, input_lang, output_lang)[0][:-1] == e.split(' ')
                  for f, e in pairs)
    print(f"greedy translations equal to the pairs': {correct} of {len(pairs)}")

    tensors = {f"encoder.{k}": v.detach().contiguous() for k, v in encoder.state_dict().items()}
    tensors.update({f"decoder.{k}": v.detach().contiguous() for k, v in decoder.state_dict().items()})
    write_safetensors(os.path.join(HERE, "model.safetensors"), tensors, {"format": "pt"})
    config = {"model_type": "gru-bahdanau", "architectures": ["EncoderRNN", "AttnDecoderRNN"],
              "hidden_size": HIDDEN, "source_vocab_size": input_lang.n_words,
              "target_vocab_size": output_lang.n_words, "source_language": "fra", "target_language": "eng",
              "decoder_start_token_id": SOS_token, "bos_token_id": SOS_token, "eos_token_id": EOS_token}
    with open(os.path.join(HERE, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
        f.write("\n")
    for side, lang in (("source", input_lang), ("target", output_lang)):
        with open(os.path.join(HERE, f"{side}_tokenizer.json"), "w") as f:
            json.dump(tokenizer_json(lang), f, indent=2, ensure_ascii=False)
            f.write("\n")
    with open(os.path.join(HERE, "pairs.txt"), "w") as f:
        for fr, en in french_pairs():
            f.write(f"{fr}\t{en}\n")

    reference = {"hidden_size": HIDDEN, "translations": [], "texts": {"source": [], "target": []}}
    with torch.no_grad():
        for sentence in DOC_SENTENCES:
            words, attn = evaluate(encoder, decoder, normalizeString(sentence), input_lang, output_lang)
            source_ids = ids_of(input_lang, sentence)
            n = len(words)  # the steps up to and including the one that wrote EOS
            generated = [output_lang.word2index[w] if w != "<EOS>" else EOS_token for w in words]
            # Teacher-forced: the decoder reads SOS, then the target's ids (its words and EOS), one step each.
            target_ids = ids_of(output_lang, " ".join(words[:-1]))
            decoder_input = [SOS_token] + target_ids
            enc_out, enc_hidden = encoder(torch.tensor([source_ids]))
            hidden, rows, logits = enc_hidden, [], []
            for token in decoder_input:
                out, hidden, weights = decoder.forward_step(torch.tensor([[token]]), hidden, enc_out)
                rows.append(weights[0, 0].tolist())
                logits.append(out[0, 0].tolist())
            reference["translations"].append({
                "source_text": sentence, "source_ids": source_ids, "generated_ids": generated,
                "translation": " ".join(words[:-1]), "generated_attention": attn[0, :n].tolist(),
                "decoder_ids": decoder_input, "teacher_forced_attention": rows,
                "teacher_forced_logits_top": [[int(i) for i in torch.tensor(l).topk(3).indices] for l in logits],
                "teacher_forced_logits_last": logits[-1]})
    texts = TEST_TEXTS + [f for f, _ in french_pairs()[::9]]
    reference["texts"]["source"] = [{"text": t, "ids": ids_of(input_lang, t)} for t in texts[:60]]
    english = [e for _, e in french_pairs()[::5]] + ["I am not happy!", "  They are  VERY tired. "]
    reference["texts"]["target"] = [{"text": t, "ids": ids_of(output_lang, t)} for t in english[:60]]
    with open(os.path.join(HERE, "reference.json"), "w") as f:
        json.dump(reference, f, indent=1)
        f.write("\n")
    for t in reference["translations"]:
        print(f"{t['source_text']!r} -> {t['translation']!r}")


if __name__ == "__main__":
    main()
