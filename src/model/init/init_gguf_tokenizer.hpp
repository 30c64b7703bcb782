// init --gguf's tokenizer: a byte-level BPE tokenizer.json as the tokenizer.ggml.* keys of
// gguf-py's gpt2 vocabulary (tokens, token types, merges, pre-tokenizer name, BOS/EOS ids, add-BOS
// flag).
#pragma once

#include "attnviz/io/gguf/gguf_write.hpp"
#include "attnviz/model/init.hpp"

namespace attnviz::detail {

// o.tokenizer_json (o.vocab_size tokens); a usage error when it is not byte-level BPE with a
// pre-tokenizer llama.cpp names (GPT-2's, Llama 3's or Qwen2's regex).
void add_gguf_tokenizer(GgufWriter& g, const InitOptions& o);

}  // namespace attnviz::detail
