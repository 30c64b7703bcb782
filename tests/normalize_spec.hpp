// A tokenizer.json normalizer built from its JSON spec and run on one input, for the normalizers'
// tests.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "attnviz/inputs/tokenizers/pipeline/text_pipeline.hpp"

namespace attnviz::test {

inline NormalizedText normalize(const nlohmann::json& spec, std::string_view input) {
  const SpecContext ctx{"tok.json"};
  return make_normalizer(spec, SpecPlace{ctx, "normalizer"})
      ->normalize(NormalizedText::of_input(input));
}

inline std::string normalized(const nlohmann::json& spec, std::string_view input) {
  return normalize(spec, input).text;
}

}  // namespace attnviz::test
