// Tests of terminal capabilities (environment rules) and heatmaps: byte-exact ASCII and colour
// output worked out by hand from the layout rules, pooling to fit the width, CJK label alignment.
#include <doctest/doctest.h>

#include <cstdlib>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "attnviz/core/error.hpp"
#include "attnviz/core/unicode.hpp"
#include "attnviz/render/terminal.hpp"

using namespace attnviz;

namespace {

// Sets (or unsets, with nullopt) an environment variable for one scope, then restores it.
class EnvGuard {
 public:
  EnvGuard(const char* name, std::optional<std::string> value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) {
      setenv(name, value->c_str(), 1);
    } else {
      unsetenv(name);
    }
  }
  ~EnvGuard() {
    if (old_) {
      setenv(name_, old_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }
  EnvGuard(const EnvGuard&) = delete;
  EnvGuard& operator=(const EnvGuard&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

std::string strip_escapes(const std::string& text) {
  static const std::regex k_sgr("\x1b\\[[0-9;]*m");
  return std::regex_replace(text, k_sgr, "");
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

void check_fits(const std::string& out, int width) {
  for (const auto& line : lines_of(strip_escapes(out))) {
    CAPTURE(line);
    CHECK(display_width(line) <= width);
  }
}

std::string repeat(std::string_view s, int n) {
  std::string out;
  for (int k = 0; k < n; ++k) out += s;
  return out;
}

const std::string k_viridis_low = "\x1b[38;2;68;1;84m\x1b[48;2;68;1;84m";
const std::string k_viridis_high = "\x1b[38;2;253;231;37m\x1b[48;2;253;231;37m";

}  // namespace

TEST_CASE("terminal: detect_color_mode follows flags, NO_COLOR, TERM and COLORTERM") {
  EnvGuard no_color("NO_COLOR", std::nullopt);
  EnvGuard term("TERM", "xterm-256color");
  EnvGuard colorterm("COLORTERM", std::nullopt);
  CHECK(detect_color_mode(ColorChoice::never, true) == ColorMode::none);
  CHECK(detect_color_mode(ColorChoice::auto_, true) == ColorMode::ansi256);
  CHECK(detect_color_mode(ColorChoice::auto_, false) == ColorMode::none);
  CHECK(detect_color_mode(ColorChoice::always, false) == ColorMode::ansi256);
  {
    EnvGuard truecolor("COLORTERM", "truecolor");
    CHECK(detect_color_mode(ColorChoice::auto_, true) == ColorMode::truecolor);
    CHECK(detect_color_mode(ColorChoice::never, true) == ColorMode::none);
  }
  {
    EnvGuard bit24("COLORTERM", "24bit");
    CHECK(detect_color_mode(ColorChoice::always, false) == ColorMode::truecolor);
  }
  {
    EnvGuard set("NO_COLOR", "1");
    CHECK(detect_color_mode(ColorChoice::auto_, true) == ColorMode::none);
    CHECK(detect_color_mode(ColorChoice::always, true) == ColorMode::ansi256);  // flag wins
  }
  {
    EnvGuard empty("NO_COLOR", "");  // no-color.org: set but empty does not disable colour
    CHECK(detect_color_mode(ColorChoice::auto_, true) == ColorMode::ansi256);
  }
  {
    EnvGuard dumb("TERM", "dumb");
    CHECK(detect_color_mode(ColorChoice::auto_, true) == ColorMode::none);
  }
}

TEST_CASE("terminal: terminal_width takes a positive $COLUMNS, else falls back") {
  int fallback = 0;
  {
    EnvGuard unset("COLUMNS", std::nullopt);
    fallback = terminal_width();
  }
  CHECK(fallback > 0);
  {
    EnvGuard columns("COLUMNS", "123");
    CHECK(terminal_width() == 123);
  }
  for (const char* bad : {"", "0", "-5", "abc", "12x", " 40"}) {
    CAPTURE(bad);
    EnvGuard columns("COLUMNS", bad);
    CHECK(terminal_width() == fallback);
  }
}

TEST_CASE("terminal: ansi256_index picks the nearest cube or grey entry") {
  CHECK(ansi256_index({0, 0, 0}) == 16);
  CHECK(ansi256_index({255, 255, 255}) == 231);
  CHECK(ansi256_index({255, 0, 0}) == 196);
  CHECK(ansi256_index({95, 135, 175}) == 67);    // exact cube entry 16 + 36·1 + 6·2 + 3
  CHECK(ansi256_index({128, 128, 128}) == 244);  // grey ramp 232 + 12 = level 128
  CHECK(ansi256_index({253, 231, 37}) == 220);   // viridis(1) → cube (5, 4, 0)
}

TEST_CASE("terminal heatmap: ASCII 3x3 causal map byte for byte") {
  Matrix probs(3, 3);
  probs << 1.0f, 0.0f, 0.0f, 0.5f, 0.5f, 0.0f, 0.2f, 0.3f, 0.5f;
  Mask mask;
  mask.causal = true;
  const std::vector<std::string> tokens = {"The", "cat", "sat"};
  HeatmapStyle style;
  style.color = ColorMode::none;
  style.width = 60;
  // Label column 3 + 1 space; 56 columns for 3 keys → 4 columns per key (the cap).
  // 1 → '@', 0.5 → round(4.5) = 5 → '+', 0.2 → round(1.8) = 2 → ':', 0.3 → round(2.7) = 3 → '-'.
  const std::string expected =
      "layer 0 head 0\n"
      "The @@@@////////\n"
      "cat ++++++++////\n"
      "sat ::::----++++\n"
      "    0   1   2\n"
      "keys: 0 The \xC2\xB7 1 cat \xC2\xB7 2 sat\n"
      "0.000 [ .:-=+*#%@] 1.000  / masked\n";
  CHECK(render_heatmap("layer 0 head 0", probs, mask, tokens, tokens, style) == expected);
}

TEST_CASE("terminal heatmap: truecolor 2x1 map uses viridis endpoints in half blocks") {
  Matrix values(2, 1);
  values << 0.0f, 1.0f;
  HeatmapStyle style;
  style.color = ColorMode::truecolor;
  style.width = 60;
  const std::string out = render_heatmap("t", values, Mask{}, {"a", "b"}, {"k"}, style);
  const auto lines = lines_of(out);
  REQUIRE(lines.size() == 8);
  // 4 columns per key and 4 pixel rows per query: each query fills two text lines.
  const std::string low_cells = k_viridis_low + repeat("▀", 4) + "\x1b[0m";
  const std::string high_cells = k_viridis_high + repeat("▀", 4) + "\x1b[0m";
  CHECK(lines[0] == "t");
  CHECK(lines[1] == "a " + low_cells);
  CHECK(lines[2] == "  " + low_cells);
  CHECK(lines[3] == "b " + high_cells);
  CHECK(lines[4] == "  " + high_cells);
  CHECK(lines[5] == "  0");
  CHECK(lines[6] == "keys: 0 k");
  // Legend: 20 gradient cells from viridis(0) to viridis(1), then a grey block for masked cells.
  CHECK(lines[7].rfind("0.000 \x1b[38;2;68;1;84m█", 0) == 0);
  CHECK(
      lines[7].find("\x1b[38;2;253;231;37m█\x1b[0m 1.000  \x1b[38;2;128;128;128m█\x1b[0m masked") !=
      std::string::npos);
  CHECK(display_width(strip_escapes(lines[7])) == 6 + 20 + 6 + 2 + 1 + 7);
}

TEST_CASE("terminal heatmap: one-column cells give each query a labelled line of its own") {
  Matrix values = Matrix::Zero(3, 30);
  values.row(1).setOnes();
  HeatmapStyle style;
  style.color = ColorMode::truecolor;
  style.width = 40;  // 38 columns for 30 keys → 1 column per key, no ruler
  const auto lines = lines_of(render_heatmap("t", values, Mask{}, {"a", "b", "c"}, {}, style));
  REQUIRE(lines.size() == 5);
  // Both half-block pixels of a line belong to the same query (viridis(0) and viridis(1)), so no
  // query goes unlabelled.
  CHECK(lines[1] == "a \x1b[38;2;68;1;84m\x1b[48;2;68;1;84m" + repeat("▀", 30) + "\x1b[0m");
  CHECK(lines[2] == "b \x1b[38;2;253;231;37m\x1b[48;2;253;231;37m" + repeat("▀", 30) + "\x1b[0m");
  CHECK(lines[3] == "c \x1b[38;2;68;1;84m\x1b[48;2;68;1;84m" + repeat("▀", 30) + "\x1b[0m");
}

TEST_CASE("terminal heatmap: ansi256 uses the palette and masked cells are grey") {
  Matrix values(1, 2);
  values << 1.0f, 0.0f;
  Mask mask;
  mask.n_pad_keys = 1;
  HeatmapStyle style;
  style.color = ColorMode::ansi256;
  style.width = 30;
  const std::string out = render_heatmap("t", values, mask, {"q"}, {"x", "pad"}, style);
  CHECK(out.find("q \x1b[38;5;220m\x1b[48;5;220m▀▀▀▀\x1b[38;5;244m\x1b[48;5;244m▀▀▀▀\x1b[0m\n") !=
        std::string::npos);
  check_fits(out, 30);
}

TEST_CASE("terminal heatmap: wide maps are max-pooled to fit") {
  Matrix values = Matrix::Zero(1, 20);
  values(0, 10) = 1.0f;
  HeatmapStyle style;
  style.width = 10;  // label 1 + space → 8 columns: pool 3 keys per column → 7 columns
  const auto lines = lines_of(render_heatmap("t", values, Mask{}, {"q"}, {}, style));
  REQUIRE(lines.size() == 5);
  CHECK(lines[1].starts_with("3\u00d73 tok"));  // the pooling said, cut to the width
  CHECK(lines[2] ==
        "0    @   ");        // key 10 lands in pooled column 10 / 3 = 3; the row is queries 0–0
  CHECK(lines[3] == "  0");  // the ruler: column 0 starts at key 0
}

TEST_CASE("terminal heatmap: a 300-key map fits in 80 columns in every mode") {
  const int n = 300;
  Matrix values = Matrix::Random(n, n).cwiseAbs();
  std::vector<std::string> labels;
  for (int k = 0; k < n; ++k) labels.push_back("token" + std::to_string(k));
  Mask mask;
  mask.causal = true;
  for (ColorMode mode : {ColorMode::none, ColorMode::ansi256, ColorMode::truecolor}) {
    CAPTURE(static_cast<int>(mode));
    HeatmapStyle style;
    style.color = mode;
    style.width = 80;
    const std::string out =
        render_heatmap("a long title " + repeat("x", 100), values, mask, labels, labels, style);
    check_fits(out, 80);
    const auto lines = lines_of(strip_escapes(out));
    // pooled rows labelled by their queries, "295–299" (7) + space + 300 / pool 5 = 60 pooled keys.
    CHECK(display_width(lines[2]) == 7 + 1 + 60);
  }
}

TEST_CASE("terminal heatmap: CJK labels keep every map line the same display width") {
  const std::vector<std::string> labels = {"\xE4\xBD\xA0\xE5\xA5\xBD",  // 你好
                                           "\xE7\x8C\xAB",              // 猫
                                           // 坐下了吗朋友们们 (16 columns) → cut to 12 with …
                                           "\xE5\x9D\x90\xE4\xB8\x8B\xE4\xBA\x86\xE5\x90\x97"
                                           "\xE6\x9C\x8B\xE5\x8F\x8B\xE4\xBB\xAC\xE4\xBB\xAC",
                                           "he\xCC\x81llo"};
  Matrix values = Matrix::Random(4, 4).cwiseAbs();
  for (ColorMode mode : {ColorMode::none, ColorMode::truecolor}) {
    CAPTURE(static_cast<int>(mode));
    HeatmapStyle style;
    style.color = mode;
    style.width = 60;
    const auto lines =
        lines_of(strip_escapes(render_heatmap("t", values, Mask{}, labels, labels, style)));
    const int n_map_lines = mode == ColorMode::none ? 4 : 8;  // 4 queries × 4 pixel rows / 2
    REQUIRE(lines.size() > static_cast<size_t>(n_map_lines));
    for (int k = 1; k <= n_map_lines; ++k) {
      CAPTURE(lines[static_cast<size_t>(k)]);
      CHECK(display_width(lines[static_cast<size_t>(k)]) == 12 + 1 + 4 * 4);
    }
    // Query 2 (the long label, cut) starts on map line 2 in ASCII, on line 4 (pixel row 8) in
    // colour.
    const size_t cut_line = mode == ColorMode::none ? 3 : 5;
    CHECK(lines[cut_line].rfind(
              "\xE5\x9D\x90\xE4\xB8\x8B\xE4\xBA\x86\xE5\x90\x97\xE6\x9C\x8B\xE2\x80\xA6 ", 0) == 0);
  }
}

TEST_CASE("terminal heatmap: bad shapes and a too narrow width are rejected") {
  Matrix values = Matrix::Zero(2, 2);
  HeatmapStyle style;
  CHECK_THROWS_AS(render_heatmap("t", values, Mask{}, {"only one"}, {}, style), Error);
  Mask mask;
  mask.matrix = MaskMatrix::Ones(3, 2);
  CHECK_THROWS_AS(render_heatmap("t", values, mask, {}, {}, style), Error);
  style.width = 5;
  CHECK_THROWS_AS(render_heatmap("t", values, Mask{}, {}, {}, style), Error);
}

TEST_CASE("terminal: a colour heatmap with one-column keys labels every query on its own line") {
  const int n = 30;
  std::vector<std::string> labels;
  for (int i = 0; i < n; ++i) labels.push_back("q" + std::to_string(i));
  HeatmapStyle style;
  style.color = ColorMode::truecolor;
  style.width = 40;  // 30 keys in 40 columns: one column per key
  const std::string out =
      render_heatmap("t", Matrix::Constant(n, n, 1.0f / n), Mask{}, labels, labels, style);
  for (int i = 0; i < n; ++i) {
    CHECK_MESSAGE(out.find("\n" + labels[i] + " ") != std::string::npos, labels[i]);
  }
}
