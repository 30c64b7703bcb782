// The builders of each tokenizer.json part type, one file each (private to inputs/); the make_*
// factories of text_pipeline.hpp dispatch on "type" to them.
#pragma once

#include "text_pipeline.hpp"

namespace attnviz {

// Normalizers (normalizers.cpp): NFC, NFD, NFKC, NFKD, Lowercase, StripAccents, Strip, Replace,
// Prepend, BertNormalizer, Sequence.

// Pre-tokenizers.
std::unique_ptr<PreTokenizer> make_byte_level_pre_tokenizer(const nlohmann::json& spec, const SpecPlace& place);
std::unique_ptr<PreTokenizer> make_split_pre_tokenizer(const nlohmann::json& spec, const SpecPlace& place);
std::unique_ptr<PreTokenizer> make_metaspace_pre_tokenizer(const nlohmann::json& spec, const SpecPlace& place);

// Models.
std::unique_ptr<TokenModel> make_bpe_model(const nlohmann::json& spec, const SpecPlace& place);
std::unique_ptr<TokenModel> make_unigram_model(const nlohmann::json& spec, const SpecPlace& place);

// Post-processors.
std::unique_ptr<PostProcessor> make_template_processing(const nlohmann::json& spec, const SpecPlace& place,
                                                        const TokenLookup& lookup);
std::unique_ptr<PostProcessor> make_byte_level_post_processor(const nlohmann::json& spec, const SpecPlace& place);

}  // namespace attnviz
