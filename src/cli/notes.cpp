// Notes on stderr and --quiet, which turns them off (process-wide: notes come from every stage of a
// command).
#include "attnviz/cli/notes.hpp"

#include <CLI/CLI.hpp>
#include <iostream>

namespace attnviz {

namespace {
bool quiet = false;  // set once while the command line is parsed, read afterwards
}  // namespace

void add_quiet_flag(CLI::App& cmd) {
  cmd.add_flag_callback(
      "--quiet,-q", [] { quiet = true; },
      "print no notes (such as how ids without a table are embedded); warnings and errors stay");
}

bool notes_quiet() {
  return quiet;
}

void print_note(const std::string& note) {
  if (!quiet) std::cerr << "attnviz: note: " << note << '\n';
}

}  // namespace attnviz
