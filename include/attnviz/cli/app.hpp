// The command line: parses arguments, runs a command, maps errors to exit codes (0 / 1 / 2).
#pragma once

namespace attnviz {

// Catches attnviz::Error once: prints "attnviz: error: …" to stderr and returns its exit code.
int run_cli(int argc, char** argv);

}  // namespace attnviz
