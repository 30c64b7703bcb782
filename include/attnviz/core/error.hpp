// The one exception type of attnviz: its message names the file, the field, expected vs actual.
#pragma once

#include <stdexcept>
#include <string>

namespace attnviz {

// Exit codes of the CLI (DESIGN.md: 0 ok, 1 runtime error, 2 usage error).
inline constexpr int k_exit_ok = 0;
inline constexpr int k_exit_runtime = 1;
inline constexpr int k_exit_usage = 2;

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message, int exit_code = k_exit_runtime)
      : std::runtime_error(message), exit_code_(exit_code) {}
  int exit_code() const { return exit_code_; }

 private:
  int exit_code_;
};

// A usage error: the command line itself is wrong (exit 2), e.g. a flag that contradicts the model.
inline Error usage_error(const std::string& message) {
  return Error(message, k_exit_usage);
}

}  // namespace attnviz
