// CLI11's parse errors in attnviz's words: the documented "attnviz: error:" prefix, exit 2 (set by
// the caller), and "did you mean --causal?" for a mistyped option or command.
#include "attnviz/cli/parse_errors.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

namespace attnviz {

namespace {

constexpr int k_max_suggestion_distance = 2;

// The subcommand being parsed (the deepest one CLI11 has entered), or the app itself.
const CLI::App& current_command(const CLI::App& app) {
  const CLI::App* at = &app;
  for (;;) {
    const auto parsed = at->get_subcommands();
    if (parsed.empty()) return *at;
    at = parsed.front();
  }
}

// Every spelling of the command's options ("--causal", "-m") and of its subcommands ("run").
std::vector<std::string> known_names(const CLI::App& command, bool options) {
  std::vector<std::string> names;
  if (!options) {
    for (const CLI::App* sub : command.get_subcommands(std::function<bool(const CLI::App*)>{}))
      names.push_back(sub->get_name());
    return names;
  }
  for (const CLI::Option* opt : command.get_options()) {
    for (const auto& n : opt->get_lnames()) names.push_back("--" + n);
    for (const auto& n : opt->get_snames()) names.push_back("-" + n);
  }
  return names;
}

// "unknown option --casual; did you mean --causal?" or "unknown command 'rn'; did you mean run?".
std::string unknown_name(const std::string& word, const CLI::App& command, bool option) {
  std::string message =
      option ? fmt::format("unknown option {}", word) : fmt::format("unknown command '{}'", word);
  const std::string guess = closest_name(word, known_names(command, option));
  if (!guess.empty()) message += fmt::format("; did you mean {}?", guess);
  return message;
}

// An unknown_name message for each argument nobody took.
std::string describe_extras(const CLI::App& app, const CLI::App& command) {
  std::vector<std::string> extras = app.remaining();
  for (const auto& s : command.remaining()) {
    if (std::find(extras.begin(), extras.end(), s) == extras.end()) extras.push_back(s);
  }
  std::string message;
  for (const std::string& extra : extras) {
    if (!message.empty()) message += "; ";
    const bool option = extra.size() > 1 && extra[0] == '-';
    const std::string word = option ? extra.substr(0, extra.find('=')) : extra;
    const bool top = &command == &app;
    if (!option && !top) {
      message += fmt::format("unexpected argument '{}'", extra);
      continue;
    }
    message += unknown_name(word, command, option);
  }
  return message;
}

}  // namespace

int edit_distance(const std::string& a, const std::string& b) {
  std::vector<int> row(b.size() + 1);
  std::iota(row.begin(), row.end(), 0);
  for (size_t i = 1; i <= a.size(); ++i) {
    int diagonal = row[0];
    row[0] = static_cast<int>(i);
    for (size_t j = 1; j <= b.size(); ++j) {
      const int substitute = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
      diagonal = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, substitute});
    }
  }
  return row[b.size()];
}

std::string closest_name(const std::string& word, const std::vector<std::string>& candidates) {
  // Fewer edits than the name has letters: -x is not "one edit from -h".
  const auto letters =
      static_cast<int>(word.size() - std::min(word.find_first_not_of('-'), word.size()));
  std::string best;
  int best_distance = std::min(k_max_suggestion_distance + 1, letters);
  for (const auto& c : candidates) {
    const int d = edit_distance(word, c);
    if (d < best_distance) best = c, best_distance = d;
  }
  return best;
}

std::string describe_parse_error(const CLI::App& app, const CLI::ParseError& error) {
  const CLI::App& command = current_command(app);
  // "attnviz rn …" fails as "a subcommand is required", with "rn" left over: a mistyped command.
  const std::vector<std::string> left = app.remaining();
  const bool mistyped_command = &command == &app && !left.empty() && left[0].rfind('-', 0) != 0;
  std::string message = error.what();
  if (dynamic_cast<const CLI::ExtrasError*>(&error) != nullptr) {
    if (std::string extras = describe_extras(app, command); !extras.empty()) message = extras;
  } else if (mistyped_command) {
    message = unknown_name(left[0], app, false);
  }
  const std::string name =
      &command == &app ? app.get_name() : app.get_name() + " " + command.get_name();
  return fmt::format("{}: error: {}\nrun '{} --help' for the options\n", app.get_name(), message,
                     name);
}

}  // namespace attnviz
