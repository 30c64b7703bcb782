// Image files as a vision model's processor opens them: PNG and JPEG decoded to 8-bit RGB, as
// Pillow's Image.open(…).convert("RGB") gives them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace attnviz {

// 8-bit RGB pixels, row by row, three bytes each.
struct RgbImage {
  int width = 0, height = 0;
  std::vector<uint8_t> rgb;  // [height][width][3]
  // What the file held before the conversion to RGB, for messages: "RGB", "greyscale", "RGBA",
  // "palette", "greyscale + alpha".
  std::string source_mode;
  uint8_t at(int y, int x, int c) const {
    return rgb[(size_t(y) * size_t(width) + size_t(x)) * 3 + size_t(c)];
  }
};

// The largest image read: 16384 × 16384 pixels (a 768 MB RGB buffer) — far past any processor's
// size, small enough that a forged header cannot ask for more memory than the machine has.
inline constexpr int64_t k_max_image_pixels = int64_t(16384) * 16384;

// Decodes a PNG (by its signature; stb_image, 16-bit samples truncated to their high byte, alpha
// dropped, greyscale and palettes expanded — as Pillow's convert("RGB")) or a baseline or
// progressive JPEG (libjpeg-turbo, the library Pillow decodes with, with its defaults: islow DCT,
// fancy upsampling; greyscale replicated; CMYK and YCCK refused). `what` names the input in
// errors (exit 1): an unknown format, a truncated or corrupt file, an image over
// k_max_image_pixels.
RgbImage decode_image(std::string_view bytes, const std::string& what);

// decode_image of a file (at most 256 MiB).
RgbImage read_image(const std::string& path);

}  // namespace attnviz
