// error_of: the message of the attnviz::Error a call throws, for tests of refusals.
#pragma once

#include <functional>
#include <string>

#include "attnviz/core/error.hpp"

namespace attnviz::test {

// The Error's what(), or "(no error)" when f returns normally; `code` gets its exit code.
inline std::string error_of(const std::function<void()>& f, int* code = nullptr) {
  try {
    f();
  } catch (const Error& e) {
    if (code) *code = e.exit_code();
    return e.what();
  }
  return "(no error)";
}

}  // namespace attnviz::test
