// SentencePiece .model files (tokenizer.model of Llama 2, Mistral, Gemma; T5's spiece.model) run by
// Debian's libsentencepiece (private to inputs/; find_tokenizer decides when to use it).
#pragma once

#include <filesystem>
#include <memory>

#include "attnviz/inputs/tokenizer.hpp"

namespace attnviz {

// The tokenizer of `model_file`, read as transformers' slow tokenizer of tokenizer_config.json's
// "tokenizer_class" reads it:
//   LlamaTokenizer, CodeLlamaTokenizer, GemmaTokenizer (and their Fast forms): BOS when
//   "add_bos_token" (default true), EOS when "add_eos_token" (default false);
//   T5Tokenizer: EOS only (its <extra_id_N> sentinels are refused in text, see below);
//   another class is an Error naming it (XLM-R shifts every id, ALBERT lowercases, …), and so is a
//   .model other than tokenizer.model without a tokenizer_config.json (no class to go by; a
//   tokenizer.model alone is read as Llama's).
// "bos_token" / "eos_token" (a string or {"content": …}) choose the pieces, default the model's
// own. "add_prefix_space": false and a non-empty "sp_model_kwargs" change the pieces and are
// refused. A text holding a special token's text (control and unknown pieces; the special and added
// tokens of tokenizer_config.json, special_tokens_map.json, added_tokens.json) is an Error:
// transformers splits those out first, libsentencepiece does not. Labels: "▁" shown as "␣", byte
// pieces
// ("<0xE7>") and control pieces ("<s>") as written, control characters escaped. An unreadable
// model, or a malformed tokenizer_config.json, is an Error naming the file (and the field).
std::unique_ptr<Tokenizer> make_sentencepiece_tokenizer(const std::filesystem::path& model_file);

}  // namespace attnviz
