// attnviz_ansi_to_png: a terminal screenshot without a terminal. Reads text with ANSI SGR colours
// (tmux capture-pane -e -p) from stdin and draws it on a dark background in a monospace font.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <iostream>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attnviz/core/error.hpp"
#include "attnviz/core/unicode.hpp"
#include "attnviz/render/canvas.hpp"
#include "attnviz/render/png.hpp"

using namespace attnviz;

namespace {

constexpr Rgb k_background{24, 26, 33};
constexpr Rgb k_foreground{214, 214, 214};
constexpr int k_margin = 14;
constexpr int k_tab = 8;

// xterm's 16 system colours (its defaults): terminals theme these, a screenshot fixes them.
// clang-format off
constexpr std::array<Rgb, 16> k_system = {{
    {0, 0, 0}, {205, 0, 0}, {0, 205, 0}, {205, 205, 0},                    // 0–7: normal
    {0, 0, 238}, {205, 0, 205}, {0, 205, 205}, {229, 229, 229},
    {127, 127, 127}, {255, 0, 0}, {0, 255, 0}, {255, 255, 0},              // 8–15: bright
    {92, 92, 255}, {255, 0, 255}, {0, 255, 255}, {255, 255, 255}}};
// clang-format on

// The xterm-256 palette: system colours, the 6×6×6 cube (16–231), the grey ramp (232–255).
Rgb palette(int index) {
  if (index < 16) return k_system[static_cast<size_t>(std::max(index, 0))];
  if (index < 232) {
    constexpr std::array<uint8_t, 6> k_levels = {0, 95, 135, 175, 215, 255};
    const int k = index - 16;
    return {k_levels[static_cast<size_t>(k / 36)], k_levels[static_cast<size_t>(k / 6 % 6)],
            k_levels[static_cast<size_t>(k % 6)]};
  }
  const auto level = static_cast<uint8_t>(8 + 10 * (std::min(index, 255) - 232));
  return {level, level, level};
}

// The colours the next characters are drawn with; unset = the screenshot's defaults.
struct Pen {
  std::optional<Rgb> fg, bg;
};

// One terminal cell: its text (a character and any combining marks), colours and width (2 for
// a wide character, whose second cell is a continuation with width 0 and no text).
struct Cell {
  std::string text;
  Pen pen;
  int width = 1;
};
using Screen = std::vector<std::vector<Cell>>;

int to_int(std::string_view s) {
  int v = 0;
  std::from_chars(s.data(), s.data() + s.size(), v);
  return v;
}

std::vector<int> split_ints(std::string_view s, char sep) {
  std::vector<int> out;
  for (size_t at = 0;;) {
    const size_t end = s.find(sep, at);
    out.push_back(to_int(s.substr(at, end == std::string_view::npos ? s.npos : end - at)));
    if (end == std::string_view::npos) return out;
    at = end + 1;
  }
}

// An extended colour (38 / 48) from params starting at [k] = 38|48: "5;n" or "2;r;g;b"; advances k.
std::optional<Rgb> extended_colour(const std::vector<int>& p, size_t& k) {
  if (k + 2 < p.size() && p[k + 1] == 5) {
    k += 2;
    return palette(p[k]);
  }
  if (k + 4 < p.size() && p[k + 1] == 2) {
    k += 4;
    return Rgb{static_cast<uint8_t>(p[k - 2]), static_cast<uint8_t>(p[k - 1]),
               static_cast<uint8_t>(p[k])};
  }
  k = p.size();  // malformed: ignore the rest
  return std::nullopt;
}

// Select Graphic Rendition: 0 reset, 30–37 / 90–97 / 38 fg, 40–47 / 100–107 / 48 bg, 39 / 49
// defaults. Colon sub-parameters (38:2::r:g:b, ITU T.416) are read as the semicolon form.
void apply_sgr(Pen& pen, std::string_view params) {
  std::string flat(params);
  for (size_t at = flat.find("::"); at != std::string::npos; at = flat.find("::"))
    flat.erase(at, 1);
  for (char& c : flat) c = c == ':' ? ';' : c;
  const std::vector<int> p = flat.empty() ? std::vector<int>{0} : split_ints(flat, ';');
  for (size_t k = 0; k < p.size(); ++k) {
    const int v = p[k];
    if (v == 0) {
      pen = Pen{};
    } else if (v >= 30 && v <= 37) {
      pen.fg = palette(v - 30);
    } else if (v >= 90 && v <= 97) {
      pen.fg = palette(v - 90 + 8);
    } else if (v >= 40 && v <= 47) {
      pen.bg = palette(v - 40);
    } else if (v >= 100 && v <= 107) {
      pen.bg = palette(v - 100 + 8);
    } else if (v == 39 || v == 49) {
      (v == 39 ? pen.fg : pen.bg).reset();
    } else if (v == 38 || v == 48) {
      (v == 38 ? pen.fg : pen.bg) = extended_colour(p, k);
    }  // bold, underline, …: the screenshot keeps one weight
  }
}

std::string utf8_of(char32_t cp) {
  std::string out;
  const auto byte = [&out](uint32_t b) { out += static_cast<char>(b); };
  const auto c = static_cast<uint32_t>(cp);
  if (c < 0x80) {
    byte(c);
  } else if (c < 0x800) {
    byte(0xC0 | (c >> 6)), byte(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    byte(0xE0 | (c >> 12)), byte(0x80 | ((c >> 6) & 0x3F)), byte(0x80 | (c & 0x3F));
  } else {
    byte(0xF0 | (c >> 18)), byte(0x80 | ((c >> 12) & 0x3F)), byte(0x80 | ((c >> 6) & 0x3F));
    byte(0x80 | (c & 0x3F));
  }
  return out;
}

// Printable text into cells of the current line: a wide character takes two cells, a combining
// mark joins the character before it, a tab moves to the next multiple of 8.
void put_text(std::vector<Cell>& line, std::string_view text, const Pen& pen) {
  for (const char32_t cp : decode_utf8(text)) {
    if (cp < 0x20 && cp != U'\t') continue;  // other control characters do not print
    if (cp == U'\t') {
      do {
        line.push_back({" ", pen, 1});
      } while (line.size() % k_tab != 0);
      continue;
    }
    const int w = codepoint_width(cp);
    if (w == 0 && !line.empty()) {
      line.back().text += utf8_of(cp);
      continue;
    }
    line.push_back({utf8_of(cp), pen, std::max(w, 1)});
    if (w == 2) line.push_back({"", pen, 0});
  }
}

// Text with SGR escapes → cells. Other escape sequences (CSI with another final byte, OSC, …)
// are skipped; a capture holds none, but a stray one must not print.
Screen parse(std::string_view input) {
  Screen screen(1);
  Pen pen;
  size_t at = 0;
  while (at < input.size()) {
    if (input[at] == '\n') {
      screen.emplace_back();
      ++at;
    } else if (input[at] == '\x1b') {
      if (at + 1 < input.size() && input[at + 1] == '[') {
        size_t end = at + 2;
        while (end < input.size() && (input[end] < 0x40 || input[end] > 0x7E)) ++end;
        if (end < input.size() && input[end] == 'm')
          apply_sgr(pen, input.substr(at + 2, end - at - 2));
        at = end + 1;
      } else {
        at += 2;
      }
    } else {
      const size_t end = std::min(input.find_first_of("\n\x1b\r", at), input.size());
      put_text(screen.back(), input.substr(at, end - at), pen);
      at = end == input.size() || input[end] != '\r' ? end : end + 1;
    }
  }
  while (!screen.empty() && screen.back().empty()) screen.pop_back();
  return screen;
}

// Block elements as rectangles, so neighbouring cells tile without seams or anti-aliased edges.
bool draw_block(Canvas& canvas, const std::string& text, int x, int y, int w, int h, Rgb fg) {
  if (text == "▀") {
    canvas.fill_rect(x, y, w, h / 2, fg);
  } else if (text == "▄") {
    canvas.fill_rect(x, y + h / 2, w, h - h / 2, fg);
  } else if (text == "█") {
    canvas.fill_rect(x, y, w, h, fg);
  } else if (text == "▌") {
    canvas.fill_rect(x, y, w / 2, h, fg);
  } else if (text == "▐") {
    canvas.fill_rect(x + w / 2, y, w - w / 2, h, fg);
  } else {
    return false;
  }
  return true;
}

// The screen on a dark canvas: cells of the font's advance × its line height (rounded up to an
// even height, so ▀'s two pixels are equal), at least `columns` wide, with a margin.
Image render(const Screen& screen, int columns, const std::shared_ptr<const FontSet>& fonts,
             float pixel_size) {
  const Canvas probe(1, 1, k_background, fonts);
  const LineMetrics m = probe.line_metrics(pixel_size);
  const int cell_w = probe.text_width("M", pixel_size);
  const int cell_h = (m.line_height + 1) / 2 * 2;
  const int baseline = (cell_h - m.ascent - m.descent) / 2 + m.ascent;
  size_t n_columns = static_cast<size_t>(std::max(columns, 1));
  for (const auto& line : screen) n_columns = std::max(n_columns, line.size());
  Canvas canvas(2 * k_margin + static_cast<int>(n_columns) * cell_w,
                2 * k_margin + static_cast<int>(std::max<size_t>(screen.size(), 1)) * cell_h,
                k_background, fonts);
  for (size_t r = 0; r < screen.size(); ++r) {
    const int y = k_margin + static_cast<int>(r) * cell_h;
    for (size_t c = 0; c < screen[r].size(); ++c) {
      const Cell& cell = screen[r][c];
      if (cell.width == 0) continue;  // the second half of a wide character
      const int x = k_margin + static_cast<int>(c) * cell_w, w = cell.width * cell_w;
      if (cell.pen.bg) canvas.fill_rect(x, y, w, cell_h, *cell.pen.bg);
      const Rgb fg = cell.pen.fg.value_or(k_foreground);
      if (cell.text == " " || draw_block(canvas, cell.text, x, y, w, cell_h, fg)) continue;
      canvas.draw_text(x + w / 2, y + baseline, cell.text,
                       TextStyle{pixel_size, fg, TextAlign::center, TextDirection::horizontal});
    }
  }
  return canvas.take_image();
}

struct Options {
  std::string out;
  std::string font = "DejaVu Sans Mono";
  float pixel_size = 17.0f;
  int columns = 0;
};

Options parse_args(int argc, char** argv) {
  Options o;
  const std::string usage =
      "usage: attnviz_ansi_to_png OUT.png [--font NAME|FILE] [--size PX] [--columns N] < text";
  for (int k = 1; k < argc; ++k) {
    const std::string_view a = argv[k];
    const bool has_value = k + 1 < argc;
    if (a == "--font" && has_value) {
      o.font = argv[++k];
    } else if (a == "--size" && has_value) {
      o.pixel_size = static_cast<float>(std::clamp(to_int(argv[++k]), 6, 96));
    } else if (a == "--columns" && has_value) {
      o.columns = std::clamp(to_int(argv[++k]), 0, 1000);
    } else if (!a.starts_with("-") && o.out.empty()) {
      o.out = a;
    } else {
      throw usage_error(fmt::format("unexpected argument '{}'\n{}", a, usage));
    }
  }
  if (o.out.empty()) throw usage_error(usage);
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Options o = parse_args(argc, argv);
    const std::string input(std::istreambuf_iterator<char>(std::cin), {});
    write_png(o.out, render(parse(input), o.columns, FontSet::find(o.font), o.pixel_size));
    return 0;
  } catch (const Error& e) {
    std::cerr << "attnviz_ansi_to_png: error: " << e.what() << '\n';
    return e.exit_code();
  }
}
