// Typed fields of tokenizer.json parts.
#include "attnviz/inputs/tokenizers/pipeline/spec_fields.hpp"

#include <fmt/format.h>

#include "attnviz/core/error.hpp"
#include "attnviz/core/unicode.hpp"

namespace attnviz {

std::string shown(const nlohmann::json& value) {
  std::string text = value.dump();
  if (text.size() > 80) text = text.substr(0, 77) + "...";
  return printable_text(text);
}

SpecPlace SpecPlace::at(std::string_view field) const {
  return {ctx, where.empty() ? std::string(field) : fmt::format("{}.{}", where, field)};
}

SpecPlace SpecPlace::at(size_t index) const {
  return {ctx, fmt::format("{}[{}]", where, index)};
}

void SpecPlace::fail(std::string_view message) const {
  throw Error(fmt::format("{}: {}: {}", ctx.file, where, message));
}

std::string spec_type(const nlohmann::json& spec, const SpecPlace& place) {
  if (!spec.is_object())
    place.fail(fmt::format("expected an object with a \"type\", got {}", shown(spec)));
  return spec_string(spec, "type", place);
}

const nlohmann::json& spec_required(const nlohmann::json& spec, std::string_view field,
                                    const SpecPlace& place) {
  const auto it = spec.find(std::string(field));
  if (it == spec.end() || it->is_null()) place.at(field).fail("missing");
  return *it;
}

std::string spec_string(const nlohmann::json& spec, std::string_view field,
                        const SpecPlace& place) {
  const nlohmann::json& value = spec_required(spec, field, place);
  if (!value.is_string())
    place.at(field).fail(fmt::format("expected a string, got {}", shown(value)));
  return value.get<std::string>();
}

std::optional<std::string> spec_optional_string(const nlohmann::json& spec, std::string_view field,
                                                const SpecPlace& place) {
  const auto it = spec.find(std::string(field));
  if (it == spec.end() || it->is_null()) return std::nullopt;
  if (!it->is_string()) place.at(field).fail(fmt::format("expected a string, got {}", shown(*it)));
  return it->get<std::string>();
}

bool spec_bool(const nlohmann::json& spec, std::string_view field, bool fallback,
               const SpecPlace& place) {
  const auto it = spec.find(std::string(field));
  if (it == spec.end() || it->is_null()) return fallback;
  if (!it->is_boolean())
    place.at(field).fail(fmt::format("expected true or false, got {}", shown(*it)));
  return it->get<bool>();
}

int64_t spec_int(const nlohmann::json& spec, std::string_view field, int64_t fallback,
                 const SpecPlace& place) {
  const auto it = spec.find(std::string(field));
  if (it == spec.end() || it->is_null()) return fallback;
  if (!it->is_number_integer())
    place.at(field).fail(fmt::format("expected an integer, got {}", shown(*it)));
  if (it->is_number_unsigned() && it->get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
    place.at(field).fail(fmt::format("expected an integer below 2^63, got {}", shown(*it)));
  }
  return it->get<int64_t>();
}

void spec_require_value(const nlohmann::json& spec, std::string_view field,
                        const nlohmann::json& expected, const SpecPlace& place) {
  const auto it = spec.find(std::string(field));
  if (it == spec.end() || it->is_null() || *it == expected) return;
  place.at(field).fail(fmt::format("{} changes the tokens and attnviz implements only {}",
                                   shown(*it), shown(expected)));
}

}  // namespace attnviz
