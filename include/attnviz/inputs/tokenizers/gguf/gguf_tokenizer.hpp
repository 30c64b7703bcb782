// The tokenizer a GGUF file carries in its metadata (tokenizer.ggml.*), tokenizing as llama.cpp's
// llama_tokenize(text, add_special, parse_special = true) does (private to inputs/).
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "attnviz/inputs/tokenizer.hpp"

namespace attnviz {

class GgufMetadata;

// tokenizer.ggml.model "gpt2" (byte-level BPE with the regexes of tokenizer.ggml.pre) or "llama"
// (SentencePiece-style merging by score, byte fallback). Control, user-defined and unknown tokens
// written in the text are those tokens (llama.cpp's parse_special = true, as transformers matches
// special tokens in text); add_special adds BOS / EOS as tokenizer.ggml.add_bos_token /
// add_eos_token say, with llama.cpp's defaults when absent. Malformed metadata is an Error naming
// `file` and the key.
std::unique_ptr<Tokenizer> read_gguf_tokenizer(const GgufMetadata& metadata,
                                               const std::string& file);

// The tokenizer of the GGUF file at `path` (its metadata only: the tensors are not read).
std::unique_ptr<Tokenizer> make_gguf_tokenizer(const std::filesystem::path& path);

}  // namespace attnviz
