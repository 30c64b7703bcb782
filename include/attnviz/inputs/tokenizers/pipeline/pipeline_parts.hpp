// The builders of each tokenizer.json part type, one file each (private to inputs/); the make_*
// factories of text_pipeline.hpp dispatch on "type" to them.
#pragma once

#include <optional>

#include "attnviz/inputs/tokenizers/pipeline/text_pipeline.hpp"

namespace attnviz {

// Normalizers (normalizers.cpp): NFC, NFD, NFKC, NFKD, Lowercase, StripAccents, Strip, Replace,
// Prepend, Precompiled (empty only), Sequence; BertNormalizer (bert_normalizer.cpp).
struct BertNormalizerOptions {
  bool clean_text = true;
  bool handle_chinese_chars = true;
  std::optional<bool> strip_accents;  // null: as lowercase
  bool lowercase = true;
};
std::unique_ptr<Normalizer> make_bert_normalizer(const BertNormalizerOptions& options);
std::unique_ptr<Normalizer> make_bert_normalizer(const nlohmann::json& spec,
                                                 const SpecPlace& place);

// Pre-tokenizers.
std::unique_ptr<PreTokenizer> make_byte_level_pre_tokenizer(const nlohmann::json& spec,
                                                            const SpecPlace& place);
std::unique_ptr<PreTokenizer> make_split_pre_tokenizer(const nlohmann::json& spec,
                                                       const SpecPlace& place);
std::unique_ptr<PreTokenizer> make_metaspace_pre_tokenizer(const nlohmann::json& spec,
                                                           const SpecPlace& place);
// BertPreTokenizer, Whitespace, WhitespaceSplit, Punctuation, Digits (word_pre_tokenizers.cpp);
// nullptr when `type` is none of them.
std::unique_ptr<PreTokenizer> make_word_pre_tokenizer(const std::string& type,
                                                      const nlohmann::json& spec,
                                                      const SpecPlace& place);

// Models.
std::unique_ptr<TokenModel> make_bpe_model(const nlohmann::json& spec, const SpecPlace& place);
std::unique_ptr<TokenModel> make_word_level_model(const nlohmann::json& spec,
                                                  const SpecPlace& place);
std::unique_ptr<TokenModel> make_wordpiece_model(const nlohmann::json& spec,
                                                 const SpecPlace& place);
std::unique_ptr<TokenModel> make_unigram_model(const nlohmann::json& spec, const SpecPlace& place);

// Post-processors.
// Special tokens' ids are checked against `vocab_size` (see make_post_processor).
std::unique_ptr<PostProcessor> make_template_processing(const nlohmann::json& spec,
                                                        const SpecPlace& place, int64_t vocab_size);
std::unique_ptr<PostProcessor> make_byte_level_post_processor(const nlohmann::json& spec,
                                                              const SpecPlace& place);
// BertProcessing and RobertaProcessing (bert_processing.cpp): [CLS] A [SEP], <s> A </s>.
std::unique_ptr<PostProcessor> make_bert_processing(const nlohmann::json& spec,
                                                    const SpecPlace& place, int64_t vocab_size);
std::unique_ptr<PostProcessor> make_roberta_processing(const nlohmann::json& spec,
                                                       const SpecPlace& place, int64_t vocab_size);
// An id of a special token at `place` that is not below `vocab_size`: an Error naming both.
void check_special_id(uint64_t id, int64_t vocab_size, const SpecPlace& place);

}  // namespace attnviz
