// Reading the fields of a tokenizer.json part with errors that name the file, the part and the
// field, expected and actual (private to inputs/).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "attnviz/inputs/tokenizers/pipeline/text_pipeline.hpp"

namespace attnviz {

// A JSON value as an error message shows it: compact, cut at 80 characters, printable.
std::string shown(const nlohmann::json& value);

// The part's "type" (a string), an Error when missing.
std::string spec_type(const nlohmann::json& spec, const SpecPlace& place);
// A field that must be present; an Error naming it when missing.
const nlohmann::json& spec_required(const nlohmann::json& spec, std::string_view field,
                                    const SpecPlace& place);
// Typed fields; a missing (or null) optional field gives `fallback`; a value of the wrong type is
// an Error naming the field, the expected type and the value.
std::string spec_string(const nlohmann::json& spec, std::string_view field, const SpecPlace& place);
std::optional<std::string> spec_optional_string(const nlohmann::json& spec, std::string_view field,
                                                const SpecPlace& place);
bool spec_bool(const nlohmann::json& spec, std::string_view field, bool fallback,
               const SpecPlace& place);
int64_t spec_int(const nlohmann::json& spec, std::string_view field, int64_t fallback,
                 const SpecPlace& place);
// Refuses a field whose value is not `expected` (or absent/null): "dropout: 0.1 (attnviz
// implements only null)". For options that change the ids and attnviz does not implement.
void spec_require_value(const nlohmann::json& spec, std::string_view field,
                        const nlohmann::json& expected, const SpecPlace& place);

}  // namespace attnviz
