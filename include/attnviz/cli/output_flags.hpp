// Output flags with one meaning wherever they appear (run, stats); each command describes in its
// own words what they apply to.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace attnviz {

// --format: text, csv, json or markdown (render's parse_table_format).
void add_table_format_flag(CLI::App& cmd, std::string& format, const std::string& help);
// --precision: digits after the decimal point, 0–9.
void add_precision_flag(CLI::App& cmd, int& precision, const std::string& help);
// --width: terminal columns, 20–10000; 0 (not given) = detected.
void add_width_flag(CLI::App& cmd, int& width, const std::string& help);

// --width as given, else the terminal's width.
int resolved_width(int width);

}  // namespace attnviz
