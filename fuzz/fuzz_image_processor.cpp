// Fuzzes preprocessor_config.json as read_image_processor reads it, then runs the processor it
// describes on a small image when it parses (sizes up to 64 pixels, so a run stays fast).
#include <cstddef>
#include <cstdint>

#include "attnviz/core/error.hpp"
#include "attnviz/inputs/image_processor.hpp"
#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto path = attnviz::fuzz::write_input("preprocessor_config.json", data, size);
  try {
    const attnviz::ImageProcessor p = attnviz::read_image_processor(path.parent_path());
    if (p.height > 64 || p.width > 64 || p.shortest_edge > 64 || p.crop_height > 64 ||
        p.crop_width > 64)
      return 0;
    attnviz::RgbImage image{7, 5, std::vector<uint8_t>(7 * 5 * 3), "RGB"};
    for (size_t i = 0; i < image.rgb.size(); ++i) image.rgb[i] = static_cast<uint8_t>(i * 37);
    (void)attnviz::process_image(image, p);
  } catch (const attnviz::Error&) {
  }
  return 0;
}
