// The top of the command line: subcommands, and the one place errors become messages and exit
// codes.
#include "attnviz/cli/app.hpp"

#include <fmt/format.h>

#include <iostream>

#include "attnviz/analysis/check.hpp"
#include "attnviz/cli/commands.hpp"
#include "attnviz/cli/notes.hpp"
#include "attnviz/cli/parse_errors.hpp"
#include "attnviz/core/error.hpp"
#include "attnviz/core/unicode.hpp"
#include "attnviz/io/signal_cleanup.hpp"

namespace attnviz {

int run_cli(int argc, char** argv) {
  install_signal_cleanup();  // Ctrl-C or SIGTERM removes temp files and unfinished figure folders
  CLI::App app{"attnviz: see what attention does, head by head", "attnviz"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "attnviz 0.1.0");
  add_run_command(app);
  add_init_command(app);
  add_inspect_command(app);
  add_stats_command(app);
  add_check_command(app);
  add_heads_command(app);
  add_rollout_command(app);
  add_diff_command(app);
  add_explain_command(app);
  add_align_command(app);
  add_positions_command(app);
  add_residual_command(app);
  add_merge_command(app);
  add_tokenize_command(app);
  add_families_command(app);
  for (CLI::App* cmd : app.get_subcommands({}))
    add_quiet_flag(*cmd);  // every command may print notes
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version are "errors" with exit code 0: CLI11 prints them as it should.
    if (e.get_exit_code() == 0) return app.exit(e);
    std::cerr << describe_parse_error(app, e);
    return k_exit_usage;
  } catch (const Error& e) {
    std::cout.flush();
    // Messages quote names from the files (tensor names, keys): escape control characters, so an
    // ESC or OSC 52 inside a hostile file cannot drive the terminal.
    // A check that found problems (exit 3) is the answer asked for, not an error: its summary
    // ("check: 4 problems in …") is printed as it is.
    const char* prefix = e.exit_code() == k_exit_check_failed ? "attnviz: " : "attnviz: error: ";
    std::cerr << prefix << printable_text(e.what()) << '\n';
    return e.exit_code();
  } catch (const std::bad_alloc&) {
    std::cerr << "attnviz: error: out of memory\n";
    return k_exit_runtime;
  } catch (const std::exception& e) {  // a library or OS error that escaped as something else
    std::cout.flush();
    std::cerr << "attnviz: error: " << printable_text(e.what()) << '\n';
    return k_exit_runtime;
  }
  return k_exit_ok;
}

}  // namespace attnviz
