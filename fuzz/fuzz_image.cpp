// Fuzzes --image's decoding: PNG (stb_image) and JPEG (libjpeg-turbo) bytes to RGB, then the
// image through a small processor (Pillow's resize, crop, rescale, normalise) when it decodes.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "attnviz/core/error.hpp"
#include "attnviz/inputs/image_processor.hpp"
#include "attnviz/io/image_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const attnviz::RgbImage image =
        attnviz::decode_image({reinterpret_cast<const char*>(data), size}, "input");
    if (int64_t(image.width) * image.height > 4096 * 4096) return 0;  // decoded; resizing is slow
    attnviz::ImageProcessor p;
    p.do_resize = true;
    p.shortest_edge = 8;
    p.resample = attnviz::Resample::bicubic;
    p.do_center_crop = true;
    p.crop_height = p.crop_width = 8;
    p.do_rescale = p.do_normalize = true;
    p.mean = {0.5, 0.5, 0.5};
    p.std = {0.5, 0.5, 0.5};
    (void)attnviz::process_image(image, p);
  } catch (const attnviz::Error&) {
  }
  return 0;
}
