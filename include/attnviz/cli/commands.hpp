// The subcommands: each registers its flags on the app and runs from the CLI11 callback.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace attnviz {

void add_run_command(CLI::App& app);
void add_init_command(CLI::App& app);
void add_inspect_command(CLI::App& app);
void add_stats_command(CLI::App& app);      // src/cli/stats_command.cpp
void add_check_command(CLI::App& app);      // src/cli/check_command.cpp
void add_heads_command(CLI::App& app);      // src/cli/heads_command.cpp
void add_rollout_command(CLI::App& app);    // src/cli/run_flags.cpp
void add_diff_command(CLI::App& app);       // src/cli/diff_command.cpp
void add_explain_command(CLI::App& app);    // src/cli/explain_command.cpp
void add_align_command(CLI::App& app);      // src/cli/align_command.cpp
void add_positions_command(CLI::App& app);  // src/cli/positions_command.cpp
void add_residual_command(CLI::App& app);   // src/cli/residual_command.cpp
void add_merge_command(CLI::App& app);      // src/cli/heads_command.cpp
void add_tokenize_command(CLI::App& app);   // src/cli/tokenize_command.cpp
void add_families_command(CLI::App& app);   // src/cli/families_command.cpp
// The table `attnviz families` prints: a block per family, or with `markdown` README.md's table.
std::string families_table(bool markdown);

}  // namespace attnviz
