// CLI11's parse errors as attnviz usage errors: "attnviz: error: …", a did-you-mean for unknown
// options and commands, and a pointer to the subcommand's --help.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace attnviz {

// Levenshtein distance (insertions, deletions, substitutions), for did-you-mean suggestions.
int edit_distance(const std::string& a, const std::string& b);

// The candidate closest to `word` within an edit distance of 2 and fewer edits than word has
// letters after its dashes (the first on a tie); "" if none.
std::string closest_name(const std::string& word, const std::vector<std::string>& candidates);

// The lines to print for a parse error that is not a help or version request: the message
// prefixed "attnviz: error: ", then a hint naming the --help of the subcommand being parsed.
std::string describe_parse_error(const CLI::App& app, const CLI::ParseError& error);

}  // namespace attnviz
