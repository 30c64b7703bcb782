// Output flags shared by run and stats, declared once with their checks.
#include "attnviz/cli/output_flags.hpp"

#include "attnviz/render/terminal.hpp"

namespace attnviz {

void add_table_format_flag(CLI::App& cmd, std::string& format, const std::string& help) {
  cmd.add_option("--format", format, help)->check(CLI::IsMember({"text", "csv", "json", "markdown"}));
}

void add_precision_flag(CLI::App& cmd, int& precision, const std::string& help) {
  cmd.add_option("--precision", precision, help)->check(CLI::Range(0, 9));
}

void add_width_flag(CLI::App& cmd, int& width, const std::string& help) {
  cmd.add_option("--width", width, help)->check(CLI::Range(20, 10000));
}

int resolved_width(int width) { return width > 0 ? width : terminal_width(); }

}  // namespace attnviz
