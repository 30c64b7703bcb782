// SentencePiece .model files (tokenizer.model of Llama 2, Mistral, Gemma; T5's spiece.model) run by
// Debian's libsentencepiece (private to inputs/; find_tokenizer decides when to use it).
#pragma once

#include <filesystem>
#include <memory>

#include "attnviz/inputs/tokenizer.hpp"

namespace attnviz {

// The tokenizer of `model_file`. Special tokens follow tokenizer_config.json beside it when there
// is one, as transformers' slow tokenizer of its "tokenizer_class" does:
//   LlamaTokenizer, CodeLlamaTokenizer, GemmaTokenizer (and their Fast forms), or no class /
//   no file: BOS when "add_bos_token" (default true), EOS when "add_eos_token" (default false);
//   T5Tokenizer: EOS only;
//   another class: encode(…, add_special = true) is an Error naming it (its rules are unknown).
// "bos_token" / "eos_token" (a string or {"content": …}) choose the pieces, default the model's
// own. "add_prefix_space": false and a non-empty "sp_model_kwargs" change the pieces and are refused.
// A text holding a special token's text ("<s>", "</s>", "<unk>", tokenizer_config.json's special and
// added tokens) is an Error: transformers splits those out first, libsentencepiece does not. Labels: "▁" shown as "␣", byte pieces ("<0xE7>") and control pieces ("<s>") as written,
// control characters escaped. An unreadable model, or a malformed tokenizer_config.json, is an
// Error naming the file (and the field).
std::unique_ptr<Tokenizer> make_sentencepiece_tokenizer(const std::filesystem::path& model_file);

}  // namespace attnviz
