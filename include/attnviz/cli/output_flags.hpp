// Output flags with one meaning wherever they appear (run, stats); each command describes in its
// own words what they apply to.
#pragma once

#include <CLI/CLI.hpp>
#include <initializer_list>
#include <string>

#include "attnviz/render/figure_file.hpp"

namespace attnviz {

// --format: text, csv, json or markdown (render's parse_table_format).
void add_table_format_flag(CLI::App& cmd, std::string& format, const std::string& help);
// --precision: digits after the decimal point, 0–9.
void add_precision_flag(CLI::App& cmd, int& precision, const std::string& help);
// --width: terminal columns, 20–10000; 0 (not given) = detected.
void add_width_flag(CLI::App& cmd, int& width, const std::string& help);

// --width as given, else the terminal's width.
int resolved_width(int width);

// The figure flags of every command that writes figures into a --png folder.
struct FigureFlags {
  std::string format = "png";  // --figure-format: png, svg or pdf
  double dpi = 100.0;          // --dpi: a PNG's pixels per inch
  double font_size = 0.0;      // --font-size: the labels' em size in points (0: the default)
  std::string size;            // --size WxH[in|cm]: per-head, mask and panel figures fit it
};
// --figure-format, --dpi, --font-size, and with maps_to_fit (the commands that draw per-head maps:
// run, rollout, diff) --size.
void add_figure_flags(CLI::App& cmd, FigureFlags& flags, bool maps_to_fit = false);
// The flags as a FigureFile (--font-size measured in `font`, --font's value: "" = the default
// font). Each flag of `png_only` (these, and the command's other figure flags: "--log",
// "--png-raw", …) given without --png is a usage Error: it would do nothing.
FigureFile figure_file(const CLI::App& cmd, const FigureFlags& flags,
                       std::initializer_list<const char*> png_only = {},
                       const std::string& font = "");

// After a --png folder is written: "attnviz: wrote N figures to DIR" on stderr, so a run that
// succeeds says where its files went (stdout holds the report).
void note_figures_written(size_t count, const std::string& dir);

}  // namespace attnviz
