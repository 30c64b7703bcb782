// PNG through stb_image, JPEG through libjpeg-turbo: each file's pixels as 8-bit RGB.
#include "attnviz/io/image_file.hpp"

#include <fmt/format.h>
#include <jpeglib.h>
// jerror.h after jpeglib.h: the message codes (JWRN_JPEG_EOF)
#include <jerror.h>
#include <stb/stb_image.h>

#include <csetjmp>
#include <cstdio>
#include <memory>

#include "attnviz/core/error.hpp"
#include "attnviz/io/text_file.hpp"

namespace attnviz {

namespace {

constexpr size_t k_max_image_file_bytes = size_t{256} << 20;

void check_size(int64_t width, int64_t height, const std::string& what) {
  if (width < 1 || height < 1 || width * height > k_max_image_pixels) {
    throw Error(fmt::format("{}: an image of {}×{} pixels: expected 1 to {} pixels", what, width,
                            height, k_max_image_pixels));
  }
}

RgbImage decode_png(std::string_view bytes, const std::string& what) {
  const auto* data = reinterpret_cast<const stbi_uc*>(bytes.data());
  const int size = static_cast<int>(bytes.size());
  int width = 0, height = 0, channels = 0;
  if (!stbi_info_from_memory(data, size, &width, &height, &channels))
    throw Error(fmt::format("{}: not a readable PNG ({})", what, stbi_failure_reason()));
  check_size(width, height, what);
  if (channels == 1 && stbi_is_16_bit_from_memory(data, size)) {
    // Pillow opens it as 32-bit integers ("I") and clips each to 255 when converting to RGB.
    throw Error(
        fmt::format("{}: a 16-bit greyscale PNG, which Pillow reads as integers and clips "
                    "to 255 in RGB: convert it to 8 bits first",
                    what));
  }
  static const char* const k_modes[] = {"", "greyscale", "greyscale + alpha", "RGB", "RGBA"};
  RgbImage image{width, height, {}, channels >= 1 && channels <= 4 ? k_modes[channels] : "?"};
  std::unique_ptr<stbi_uc, void (*)(void*)> pixels(
      stbi_load_from_memory(data, size, &width, &height, &channels, 3), stbi_image_free);
  if (!pixels)
    throw Error(fmt::format("{}: a PNG that cannot be decoded ({})", what, stbi_failure_reason()));
  image.rgb.assign(pixels.get(), pixels.get() + size_t(width) * size_t(height) * 3);
  return image;
}

// libjpeg reports errors through a callback that must not return: it jumps back here.
struct JpegErrors {
  jpeg_error_mgr mgr;
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
  bool truncated;  // the data ended before the image: libjpeg warns and fills the rest with grey
};

[[noreturn]] void on_jpeg_error(j_common_ptr cinfo) {
  auto* errors = reinterpret_cast<JpegErrors*>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, errors->message);
  std::longjmp(errors->jump, 1);
}

// Warnings are recoverable oddities (libjpeg goes on, as Pillow does), but for the data ending
// early, which Pillow refuses ("image file is truncated").
void on_jpeg_warning(j_common_ptr cinfo, int level) {
  if (level < 0 && cinfo->err->msg_code == JWRN_JPEG_EOF)
    reinterpret_cast<JpegErrors*>(cinfo->err)->truncated = true;
}

// libjpeg's state for one decode. The functions that call setjmp hold nothing but plain data and
// read nothing after a jump: no C++ object is skipped or clobbered when libjpeg jumps back.
struct JpegRun {
  jpeg_decompress_struct cinfo;
  JpegErrors errors;
};

bool jpeg_open(JpegRun* r, const unsigned char* data, unsigned long size) {
  r->cinfo.err = jpeg_std_error(&r->errors.mgr);
  r->errors.mgr.error_exit = on_jpeg_error;
  r->errors.mgr.emit_message = on_jpeg_warning;
  if (setjmp(r->errors.jump)) return false;
  jpeg_create_decompress(&r->cinfo);
  jpeg_mem_src(&r->cinfo, data, size);
  jpeg_read_header(&r->cinfo, TRUE);
  return true;
}

// Decodes every row into out (width · 3 bytes each), greyscale replicated to RGB; row is one row
// of the decoder's output.
bool jpeg_rows(JpegRun* r, bool grey, unsigned char* row, uint8_t* out) {
  if (setjmp(r->errors.jump)) return false;
  r->cinfo.out_color_space = grey ? JCS_GRAYSCALE : JCS_RGB;  // libjpeg's defaults otherwise
  jpeg_start_decompress(&r->cinfo);
  const size_t width = r->cinfo.output_width;
  while (r->cinfo.output_scanline < r->cinfo.output_height) {
    uint8_t* dest = out + size_t(r->cinfo.output_scanline) * width * 3;
    JSAMPROW rows[1] = {row};
    jpeg_read_scanlines(&r->cinfo, rows, 1);
    for (size_t x = 0; x < width; ++x) {
      for (size_t c = 0; c < 3; ++c) dest[3 * x + c] = grey ? row[x] : row[3 * x + c];
    }
  }
  jpeg_finish_decompress(&r->cinfo);
  return true;
}

RgbImage decode_jpeg(std::string_view bytes, const std::string& what) {
  auto run = std::make_unique<JpegRun>();
  struct Destroy {  // jpeg_destroy_decompress whatever happens, once created
    JpegRun* r;
    ~Destroy() { jpeg_destroy_decompress(&r->cinfo); }
  } destroy{run.get()};
  const auto failed = [&] {
    return Error(fmt::format("{}: a JPEG that cannot be decoded ({})", what, run->errors.message));
  };
  if (!jpeg_open(run.get(), reinterpret_cast<const unsigned char*>(bytes.data()),
                 static_cast<unsigned long>(bytes.size())))
    throw failed();
  const jpeg_decompress_struct& cinfo = run->cinfo;
  const J_COLOR_SPACE space = cinfo.jpeg_color_space;
  if (space == JCS_CMYK || space == JCS_YCCK) {
    throw Error(fmt::format(
        "{}: a CMYK JPEG: convert it to RGB first (attnviz reads RGB and greyscale JPEGs)", what));
  }
  if (int64_t(cinfo.image_width) * cinfo.image_height > k_max_image_pixels) {
    throw Error(fmt::format("{}: an image of {}×{} pixels: expected 1 to {} pixels", what,
                            cinfo.image_width, cinfo.image_height, k_max_image_pixels));
  }
  const bool grey = space == JCS_GRAYSCALE;
  RgbImage image{static_cast<int>(cinfo.image_width),
                 static_cast<int>(cinfo.image_height),
                 {},
                 grey ? "greyscale" : "RGB"};
  image.rgb.resize(size_t(image.width) * size_t(image.height) * 3);
  std::vector<unsigned char> row(size_t(image.width) * 3);
  if (!jpeg_rows(run.get(), grey, row.data(), image.rgb.data())) throw failed();
  if (run->errors.truncated) {
    throw Error(fmt::format(
        "{}: a JPEG that cannot be decoded (its data ends before the image does)", what));
  }
  return image;
}

}  // namespace

RgbImage decode_image(std::string_view bytes, const std::string& what) {
  static constexpr std::string_view k_png = "\x89PNG\r\n\x1a\n";
  if (bytes.substr(0, k_png.size()) == k_png) return decode_png(bytes, what);
  if (bytes.size() >= 3 && bytes.substr(0, 3) == "\xff\xd8\xff") return decode_jpeg(bytes, what);
  throw Error(
      fmt::format("{}: neither a PNG nor a JPEG file (by its first bytes): attnviz reads "
                  "those two",
                  what));
}

RgbImage read_image(const std::string& path) {
  return decode_image(read_regular_file(path, k_max_image_file_bytes), path);
}

}  // namespace attnviz
