// The subcommands: each registers its flags on the app and runs from the CLI11 callback.
#pragma once

#include <CLI/CLI.hpp>

namespace attnviz {

void add_run_command(CLI::App& app);
void add_init_command(CLI::App& app);
void add_inspect_command(CLI::App& app);

}  // namespace attnviz
