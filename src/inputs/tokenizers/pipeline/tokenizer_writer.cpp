// Writing the byte-level tokenizer.json of `attnviz init`'s models, in tokenizers' own format.
#include "attnviz/inputs/tokenizers/pipeline/tokenizer_writer.hpp"

#include <nlohmann/json.hpp>

#include "attnviz/core/unicode.hpp"
#include "attnviz/inputs/tokenizers/pipeline/byte_level.hpp"

namespace attnviz {

namespace {

using Json = nlohmann::ordered_json;

Json template_processing(const std::string& bos, int bos_id) {
  const Json a{{"Sequence", {{"id", "A"}, {"type_id", 0}}}},
      b{{"Sequence", {{"id", "B"}, {"type_id", 1}}}};
  const Json special{{"SpecialToken", {{"id", bos}, {"type_id", 0}}}};
  return Json{{"type", "TemplateProcessing"},
              {"single", {special, a}},
              {"pair", {special, a, special, b}},
              {"special_tokens", {{bos, {{"id", bos}, {"ids", {bos_id}}, {"tokens", {bos}}}}}}};
}

}  // namespace

std::string byte_level_tokenizer_json(const std::vector<std::string>& specials,
                                      const std::string& bos) {
  Json vocab = Json::object();
  for (int b = 0; b < 256; ++b) {
    std::string token;
    append_utf8(token, byte_to_unicode(static_cast<uint8_t>(b)));
    vocab[token] = b;
  }
  Json added = Json::array();
  int bos_id = -1;
  for (size_t i = 0; i < specials.size(); ++i) {
    const int id = 256 + static_cast<int>(i);
    if (specials[i] == bos) bos_id = id;
    added.push_back({{"id", id},
                     {"content", specials[i]},
                     {"single_word", false},
                     {"lstrip", false},
                     {"rstrip", false},
                     {"normalized", false},
                     {"special", true}});
  }
  const Json byte_level{{"type", "ByteLevel"},
                        {"add_prefix_space", false},
                        {"trim_offsets", true},
                        {"use_regex", true}};
  const Json tokenizer{
      {"version", "1.0"},
      {"truncation", nullptr},
      {"padding", nullptr},
      {"added_tokens", added},
      {"normalizer", nullptr},
      {"pre_tokenizer", byte_level},
      {"post_processor", bos_id >= 0 ? template_processing(bos, bos_id) : Json(nullptr)},
      {"decoder", byte_level},
      {"model",
       {{"type", "BPE"},
        {"dropout", nullptr},
        {"unk_token", nullptr},
        {"continuing_subword_prefix", nullptr},
        {"end_of_word_suffix", nullptr},
        {"fuse_unk", false},
        {"byte_fallback", false},
        {"ignore_merges", false},
        {"vocab", vocab},
        {"merges", Json::array()}}}};
  return tokenizer.dump(1) + "\n";
}

}  // namespace attnviz
