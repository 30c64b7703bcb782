// Output flags shared by run and stats, declared once with their checks.
#include "attnviz/cli/output_flags.hpp"

#include <fmt/format.h>

#include "attnviz/core/error.hpp"
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

void add_figure_flags(CLI::App& cmd, FigureFlags& flags) {
  cmd.add_option("--figure-format", flags.format,
                 "with --png: figures as png, svg or pdf (vector text and axes, the cells one embedded image)")
      ->check(CLI::IsMember({"png", "svg", "pdf"}));
  cmd.add_option("--dpi", flags.dpi, "with --png: pixels per inch of the figures (default 100): an SVG/PDF page "
                 "is its pixels / dpi inches; a PNG states it")
      ->check(CLI::Range(10.0, 2400.0));
}

FigureFile figure_file(const CLI::App& cmd, const FigureFlags& flags, std::initializer_list<const char*> png_only) {
  if (cmd.count("--png") == 0) {
    for (const char* flag : {"--figure-format", "--dpi"}) {
      if (cmd.count(flag) > 0) throw usage_error(fmt::format("{} sets how figures are written: give --png DIR too", flag));
    }
    for (const char* flag : png_only) {
      if (cmd.count(flag) > 0) throw usage_error(fmt::format("{} applies to figures: give --png DIR too", flag));
    }
  }
  return FigureFile{parse_figure_format(flags.format), flags.dpi};
}

}  // namespace attnviz
