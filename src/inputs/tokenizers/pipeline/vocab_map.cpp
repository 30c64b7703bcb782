// A tokenizer.json model's vocabulary.
#include "vocab_map.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "attnviz/core/unicode.hpp"
#include "attnviz/inputs/tokenizers/pipeline/spec_fields.hpp"

namespace attnviz {

bool VocabMap::add(std::string token, int64_t id) {
  if (!tokens_.emplace(id, token).second) return false;
  longest_ = std::max(longest_, token.size());
  ids_[std::move(token)] = id;
  max_id_ = std::max(max_id_, id);
  return true;
}

std::optional<int64_t> VocabMap::id(std::string_view token) const {
  const auto it = ids_.find(token);
  return it == ids_.end() ? std::nullopt : std::optional<int64_t>(it->second);
}

std::optional<std::string> VocabMap::token(int64_t id) const {
  const auto it = tokens_.find(id);
  return it == tokens_.end() ? std::nullopt : std::optional<std::string>(it->second);
}

VocabMap read_vocab_map(const nlohmann::json& vocab, const SpecPlace& place) {
  if (!vocab.is_object())
    place.fail(fmt::format("expected an object mapping tokens to ids, got {}", shown(vocab)));
  VocabMap map;
  for (const auto& [token, value] : vocab.items()) {
    // A parsed file holds non-negative integers as unsigned; a json built in code as signed.
    constexpr uint64_t k_limit = uint64_t{1} << 31;
    const bool in_range = value.is_number_unsigned()
                              ? value.get<uint64_t>() < k_limit
                              : value.is_number_integer() && value.get<int64_t>() >= 0 &&
                                    static_cast<uint64_t>(value.get<int64_t>()) < k_limit;
    if (!in_range) {
      place.fail(fmt::format("token '{}' has id {}, expected a non-negative integer below 2^31",
                             printable_text(token), shown(value)));
    }
    const auto id = value.get<int64_t>();
    if (!map.add(token, id)) {
      place.fail(fmt::format("tokens '{}' and '{}' both have id {} (ids must be unique)",
                             printable_text(*map.token(id)), printable_text(token), id));
    }
  }
  return map;
}

}  // namespace attnviz
