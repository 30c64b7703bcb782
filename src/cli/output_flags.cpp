// Output flags shared by run and stats, declared once with their checks.
#include "attnviz/cli/output_flags.hpp"

#include <fmt/format.h>

#include <iostream>
#include <tuple>

#include "attnviz/core/error.hpp"
#include "attnviz/core/plural.hpp"
#include "attnviz/render/figure.hpp"
#include "attnviz/render/terminal.hpp"

namespace attnviz {

void add_table_format_flag(CLI::App& cmd, std::string& format, const std::string& help) {
  cmd.add_option("--format", format, help)
      ->check(CLI::IsMember({"text", "csv", "json", "markdown"}));
}

void add_precision_flag(CLI::App& cmd, int& precision, const std::string& help) {
  cmd.add_option("--precision", precision, help)->check(CLI::Range(0, 9));
}

void add_width_flag(CLI::App& cmd, int& width, const std::string& help) {
  cmd.add_option("--width", width, help)->check(CLI::Range(20, 10000));
}

int resolved_width(int width) {
  return width > 0 ? width : terminal_width();
}

void add_figure_flags(CLI::App& cmd, FigureFlags& flags, bool maps_to_fit) {
  cmd.add_option("--figure-format", flags.format,
                 "with --png: figures as png, svg or pdf (vector text and axes, the cells one "
                 "embedded image)")
      ->check(CLI::IsMember({"png", "svg", "pdf"}));
  cmd.add_option("--dpi", flags.dpi,
                 "with --png: a PNG's pixels per inch (default 100, as matplotlib): the same "
                 "figure at more pixels; SVG and PDF pages keep their size")
      ->check(CLI::Range(10.0, 1200.0));
  cmd.add_option(
         "--font-size", flags.font_size,
         "with --png: token labels and ticks at this em size in points "
         "(3 to 12, default about 7.4; titles and captions in proportion), the layout following")
      ->check(CLI::Range(3.0, 12.0));
  if (!maps_to_fit) return;
  cmd.add_option(
      "--size", flags.size,
      "with --png: per-head, mask and panel figures exactly this size, WxH in inches "
      "or cm (3.3x3in: one column of a paper), cells as large as fits; longer maps pooled to fit");
}

FigureFile figure_file(const CLI::App& cmd, const FigureFlags& flags,
                       std::initializer_list<const char*> png_only, const std::string& font) {
  if (cmd.count("--png") == 0) {
    for (const char* flag : {"--figure-format", "--dpi", "--font-size", "--size"}) {
      if (cmd.get_option_no_throw(flag) != nullptr && cmd.count(flag) > 0)
        throw usage_error(fmt::format("{} sets how figures are written: give --png DIR too", flag));
    }
    for (const char* flag : png_only) {
      if (cmd.count(flag) > 0)
        throw usage_error(fmt::format("{} applies to figures: give --png DIR too", flag));
    }
  }
  FigureFile file{parse_figure_format(flags.format), flags.dpi};
  if (flags.font_size > 0.0)
    file.text_scale = text_scale_for_points(flags.font_size, *FontSet::find(font));
  if (!flags.size.empty()) std::tie(file.width_in, file.height_in) = parse_figure_size(flags.size);
  return file;
}

void note_figures_written(size_t count, const std::string& dir) {
  std::cerr << fmt::format("attnviz: wrote {} to {}\n",
                           count_of(static_cast<long long>(count), "figure"), dir);
}

}  // namespace attnviz
