// Which tokenizer a path holds: the one entry point over every tokenizer attnviz reads (its
// sub-parts: tokenizers/pipeline for tokenizer.json, gpt2, sentencepiece, wordpiece, gguf).
#pragma once

#include <filesystem>
#include <memory>

#include "attnviz/inputs/tokenizer.hpp"

namespace attnviz {

// The tokenizer files attnviz reads, for messages.
inline constexpr const char* k_tokenizer_files =
    "tokenizer.json, vocab.json + merges.txt, tokenizer.model / spiece.model / "
    "sentencepiece.bpe.model, vocab.txt, source.spm + target.spm + vocab.json, "
    "source_tokenizer.json + target_tokenizer.json, sentencepiece.bpe.model + vocab.json "
    "(M2M100Tokenizer)";

// Whether a file's name is one find_tokenizer reads as a file: *.json, *.model, *.gguf, vocab.txt,
// merges.txt (vocab.json and merges.txt stand for the pair beside each other), source.spm and
// target.spm (Marian's, read with the vocab.json beside them).
bool is_tokenizer_file_name(const std::filesystem::path& file);

// The tokenizer at `path`: a tokenizer.json, SentencePiece .model, GGUF file (its tokenizer.ggml.*
// metadata, tokenized as llama.cpp does), BERT vocab.txt or GPT-2
// vocab.json / merges.txt file (read with the other beside it), Marian's source.spm / target.spm
// (either stands for the Marian folder holding it: its source side), or
// source_tokenizer.json and target_tokenizer.json (a translation model whose sides have
// vocabularies of their own, the translation tutorial's: either file, or the folder holding both,
// reads the source side; one without the other is an Error), or
// a folder holding (in this order of preference, as transformers prefers the fast tokenizer)
// Marian's source.spm + target.spm + vocab.json (the source side: MarianTokenizer has no fast
// form), M2M100's sentencepiece.bpe.model + vocab.json when tokenizer_config.json names
// M2M100Tokenizer (no fast form either; either file stands for the folder), tokenizer.json, GPT-2's
// vocab.json + merges.txt, a SentencePiece model (tokenizer.model, spiece.model,
// sentencepiece.bpe.model) or BERT's vocab.txt (WordPiece, with tokenizer_config.json's settings).
// nullptr when a folder holds none of them; an Error naming the file when one is malformed or uses
// a feature attnviz does not implement.
std::unique_ptr<Tokenizer> find_tokenizer(const std::filesystem::path& path);

// The tokenizer of a decoder's text when the folder at `path` (or the Marian folder of a .spm file,
// or the folder of a side's tokenizer.json) has one of its own (Marian's target.spm, as
// MarianTokenizer reads text_target=; target_tokenizer.json); nullptr when
// find_tokenizer's reads both.
std::unique_ptr<Tokenizer> find_target_tokenizer(const std::filesystem::path& path);

}  // namespace attnviz
