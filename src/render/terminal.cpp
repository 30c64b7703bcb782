// Terminal capabilities: colour mode from flags and environment (NO_COLOR, TERM, COLORTERM), the
// width in columns, and the nearest xterm-256 palette entry of a colour.
#include "attnviz/render/terminal.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <string_view>

namespace attnviz {
namespace {

constexpr int k_default_width = 80;
// The six channel levels of xterm's 6×6×6 cube (indices 16–231).
constexpr int k_cube_levels[6] = {0, 95, 135, 175, 215, 255};

std::string_view env(const char* name) {
  const char* value = std::getenv(name);
  return value ? std::string_view(value) : std::string_view();
}

// A strictly positive decimal integer (no sign, no spaces), or 0.
int parse_positive(std::string_view text) {
  if (text.empty() || text.size() > 6) return 0;
  int value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return 0;
    value = value * 10 + (c - '0');
  }
  return value;
}

int nearest_cube_level(int channel) {
  int best = 0;
  for (int k = 1; k < 6; ++k) {
    if (std::abs(k_cube_levels[k] - channel) < std::abs(k_cube_levels[best] - channel)) best = k;
  }
  return best;
}

int squared_distance(Rgb c, int r, int g, int b) {
  return (c.r - r) * (c.r - r) + (c.g - g) * (c.g - g) + (c.b - b) * (c.b - b);
}

}  // namespace

ColorMode detect_color_mode(ColorChoice choice, bool stdout_is_tty) {
  if (choice == ColorChoice::never) return ColorMode::none;
  if (choice == ColorChoice::auto_) {
    if (!env("NO_COLOR").empty() || env("TERM") == "dumb" || !stdout_is_tty) return ColorMode::none;
  }
  const std::string_view colorterm = env("COLORTERM");
  return colorterm == "truecolor" || colorterm == "24bit" ? ColorMode::truecolor
                                                          : ColorMode::ansi256;
}

int terminal_width() {
  if (const int columns = parse_positive(env("COLUMNS")); columns > 0) return columns;
  winsize ws{};
  if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  return k_default_width;
}

int ansi256_index(Rgb c) {
  const int r = nearest_cube_level(c.r), g = nearest_cube_level(c.g), b = nearest_cube_level(c.b);
  const int cube_distance =
      squared_distance(c, k_cube_levels[r], k_cube_levels[g], k_cube_levels[b]);
  // Grey ramp 232 + k has level 8 + 10 k, k in [0, 23].
  const int mean = (c.r + c.g + c.b) / 3;
  const int k = std::clamp((mean - 8 + 5) / 10, 0, 23);
  const int level = 8 + 10 * k;
  const int grey_distance = squared_distance(c, level, level, level);
  return grey_distance < cube_distance ? 232 + k : 16 + 36 * r + 6 * g + b;
}

}  // namespace attnviz
