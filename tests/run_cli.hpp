// Runs the attnviz binary as a user would, capturing stdout, stderr and the exit code.
#pragma once

#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

#include "temp_dir.hpp"

namespace attnviz::test {

inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

struct CliResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// `args` is appended to the binary's path as shell words; runs in the source directory. `env`:
// shell assignments for this run only ("HF_HOME='/tmp/x'"). OPENBLAS_THREAD_TIMEOUT is set, so the
// binary does not execute itself a second time to set it (cli/startup.cpp); `env` may unset it.
inline CliResult run_attnviz(const std::string& args, const std::string& stdin_text = "",
                             const std::string& env = "") {
  TempDir io;
  std::ofstream(io / "in") << stdin_text;
  const std::string cmd = std::string("cd '") + ATTNVIZ_SOURCE_DIR + "' && NO_COLOR= COLUMNS=80 " +
                          env + " '" + ATTNVIZ_BINARY + "' " + args + " <'" + (io / "in").string() +
                          "' >'" + (io / "out").string() + "' 2>'" + (io / "err").string() + "'";
  const int status = std::system(cmd.c_str());
  CliResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = slurp(io / "out");
  r.err = slurp(io / "err");
  return r;
}

}  // namespace attnviz::test
