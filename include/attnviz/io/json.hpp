// Parsing untrusted JSON (safetensors headers, config.json, shard indexes, layout files) with a
// nesting limit and one error style: every failure is an Error naming the file.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace attnviz {

// The reference safetensors reader (serde_json) refuses nesting past 128; so does attnviz, for
// every JSON it reads: nlohmann's dump() and destructor recurse, and 200,000 levels overflow the
// stack.
inline constexpr int k_max_json_depth = 128;

// Byte offset of the bracket that opens level max_depth + 1 ([ or { outside strings), or npos
// when text nests no deeper than max_depth.
size_t find_json_too_deep(std::string_view text, int max_depth = k_max_json_depth);

// Throws Error "<what>: JSON nests deeper than 128 levels (at byte N)" when text does.
void check_json_depth(std::string_view text, const std::string& what);

// check_json_depth + nlohmann::json::parse; a syntax error, or a number out of range (1e309),
// is an Error "<what>: not valid JSON: …".
nlohmann::json parse_json(std::string_view text, const std::string& what);

// read_text_file (bounded, regular files only) + parse_json, naming the path.
nlohmann::json read_json_file(const std::filesystem::path& path);

}  // namespace attnviz
