// Token input: UTF-8 token files (whitespace-separated or one per line) and lists of token ids.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "attnviz/io/text_file.hpp"  // read_text_file, bounded, for token and id files

namespace attnviz {

// Splits UTF-8 text on whitespace (space, tab, CR, LF, vertical tab, form feed) into tokens.
// `what` names the source in messages. Throws Error for invalid UTF-8 (with the byte offset)
// and for text that holds no token.
std::vector<std::string> split_tokens(std::string_view text, const std::string& what);

// read_text_file + split_tokens.
std::vector<std::string> read_tokens(const std::string& path);

// "5 17 3" (spaces, commas or newlines between) to ids; each must be a non-negative integer.
std::vector<int64_t> parse_ids(std::string_view text, const std::string& what);

}  // namespace attnviz
