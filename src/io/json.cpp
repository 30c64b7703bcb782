// Untrusted JSON: a bracket-depth pre-scan before nlohmann parses, and its exceptions as Errors.
#include "attnviz/io/json.hpp"

#include <fmt/format.h>

#include "attnviz/core/error.hpp"
#include "attnviz/io/text_file.hpp"

namespace attnviz {

size_t find_json_too_deep(std::string_view text, int max_depth) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;  // skip the escaped character, which may be a quote
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) return i;
    } else if (c == ']' || c == '}') {
      --depth;  // unbalanced text is the parser's error to report, not ours
    }
  }
  return std::string_view::npos;
}

void check_json_depth(std::string_view text, const std::string& what) {
  const size_t at = find_json_too_deep(text);
  if (at != std::string_view::npos) {
    throw Error(fmt::format("{}: JSON nests deeper than {} levels (at byte {})", what,
                            k_max_json_depth, at));
  }
}

nlohmann::json parse_json(std::string_view text, const std::string& what) {
  check_json_depth(text, what);
  try {
    return nlohmann::json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::exception& e) {  // parse_error, and out_of_range for 1e309
    throw Error(fmt::format("{}: not valid JSON: {}", what, e.what()));
  }
}

nlohmann::json read_json_file(const std::filesystem::path& path) {
  return parse_json(read_text_file(path.string()), path.string());
}

}  // namespace attnviz
