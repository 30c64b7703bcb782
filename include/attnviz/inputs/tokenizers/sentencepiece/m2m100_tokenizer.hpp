// M2M100's tokenizer (transformers' M2M100Tokenizer, facebook/m2m100_418M and _1.2B, which has no
// fast form): sentencepiece.bpe.model's pieces looked up in vocab.json (fairseq's dictionary), and
// the language tokens "__en__", "__fr__", … numbered after it.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "attnviz/inputs/tokenizer.hpp"

namespace attnviz {

// Whether `dir` holds M2M100's tokenizer: tokenizer_config.json's tokenizer_class M2M100Tokenizer,
// with sentencepiece.bpe.model and vocab.json beside it.
bool is_m2m100_folder(const std::filesystem::path& dir);

// The class's language codes (FAIRSEQ_LANGUAGE_CODES) for tokenizer_config.json's language_codes,
// "m2m100" (100 codes, the default) or "wmt21" (8); an Error naming the file for another value.
std::vector<std::string> m2m100_language_codes(const std::filesystem::path& dir);

// The tokenizer of the M2M100 folder `dir`, as M2M100Tokenizer reads a text: the pieces of
// sentencepiece.bpe.model, each looked up in vocab.json (<unk> for one it lacks, as
// _convert_token_to_id gives it), and with add_special its source language's token first
// (src_lang, default "en") and </s> last. The language token of code i is "__code__" with id
// len(vocab.json) + i; a text that is one special token (</s>, a language token, …) is that token,
// as transformers splits it out; a special token inside other text is refused (give --ids).
// Refused, naming the file: sp_model_kwargs, and a vocab.json without the special tokens.
std::unique_ptr<Tokenizer> make_m2m100_tokenizer(const std::filesystem::path& dir);

}  // namespace attnviz
