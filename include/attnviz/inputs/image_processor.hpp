// A vision model's image processor, as its folder's preprocessor_config.json describes it: what
// transformers' (slow, PIL-based) image processors do to an image before the model sees it.
#pragma once

#include <array>
#include <filesystem>
#include <string>
#include <vector>

#include "attnviz/core/tensor.hpp"
#include "attnviz/inputs/pillow_resample.hpp"
#include "attnviz/io/image_file.hpp"

namespace attnviz {

struct ImageProcessor {
  std::string origin;  // "m/preprocessor_config.json (ViTImageProcessor)", for notes and errors
  std::vector<std::string> notes;  // keys the processor class ignores, as transformers does
  bool do_resize = false;
  int height = 0, width = 0;  // size {"height", "width"}
  int shortest_edge = 0;      // size {"shortest_edge"}: the short side to this, the long in ratio
  Resample resample = Resample::bilinear;
  bool do_center_crop = false;
  int crop_height = 0, crop_width = 0;
  bool do_rescale = false;
  double rescale_factor = 1.0;
  bool do_normalize = false;
  std::array<double, 3> mean{}, std{};
};

// Reads dir/preprocessor_config.json as its class (image_processor_type, or an older
// feature_extractor_type) reads it: ViTImageProcessor and SiglipImageProcessor resize to a size
// (a number: a square) and have no crop step; DeiTImageProcessor the same with a centre crop;
// CLIPImageProcessor and BitImageProcessor (DINOv2) read a number as the shortest edge and crop
// (do_center_crop true unless the file says otherwise). Keys: do_resize, size ({"height",
// "width"}, {"shortest_edge"} or a number), resample (PIL's numbers), do_center_crop, crop_size,
// do_rescale, rescale_factor (1/255), do_normalize, image_mean, image_std. Another class, a
// missing size, resample, crop size, mean or std, or a step attnviz does not apply (do_pad, a
// longest_edge, …) is an Error naming the file and the key; a missing file is an Error saying to
// give --pixels instead.
ImageProcessor read_image_processor(const std::filesystem::path& dir);

// The model's input from an image, as transformers' processor computes it: resize (Pillow's
// arithmetic) to size — or the shortest edge, the other int(edge · long / short) —, centre crop
// (top = (height − crop) // 2, zero padding when the image is smaller), rescale (in double, then
// float32) and normalise ((x − mean) / std in float32). [3, height, width] float32.
Tensor process_image(const RgbImage& image, const ImageProcessor& p);
// The size the resize makes of an image (width, height): `size`, or the shortest edge's rule; the
// image's own when the processor does not resize.
std::pair<int, int> resized_size(const RgbImage& image, const ImageProcessor& p);
// Its two halves: the 8-bit picture the model sees (resized and cropped), and that picture's
// pixel values (rescaled and normalised).
RgbImage resize_and_crop(const RgbImage& image, const ImageProcessor& p);
Tensor pixel_values_of(const RgbImage& picture, const ImageProcessor& p);

// A picture of pixel values [3, H, W] for overlays: the processor's normalisation undone and each
// value rounded to a byte when `p` is given (--pixels beside a preprocessor_config.json), else each
// channel stretched from its minimum to its maximum.
RgbImage picture_of_pixels(const Tensor& pixels, const ImageProcessor* p);

}  // namespace attnviz
