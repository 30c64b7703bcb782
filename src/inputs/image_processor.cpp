// preprocessor_config.json and the pipeline of transformers' image processors (image_transforms.py:
// get_resize_output_image_size, resize through PIL, center_crop, rescale, normalize).
#include "attnviz/inputs/image_processor.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <utility>

#include "attnviz/core/error.hpp"
#include "attnviz/core/unicode.hpp"
#include "attnviz/io/json.hpp"

namespace attnviz {

namespace {

using Json = nlohmann::json;

struct Fields {
  const Json& json;
  std::string file;

  Error error(const std::string& key, const std::string& expected) const {
    const auto it = json.find(key);
    return Error(fmt::format("{}: {} = {}: expected {}", file, key,
                             it == json.end() ? "(missing)" : printable_text(it->dump()),
                             expected));
  }
  bool flag(const std::string& key, bool fallback) const {
    const auto it = json.find(key);
    if (it == json.end() || it->is_null()) return fallback;
    if (!it->is_boolean()) throw error(key, "true or false");
    return it->get<bool>();
  }
  double number(const std::string& key, double fallback) const {
    const auto it = json.find(key);
    if (it == json.end() || it->is_null()) return fallback;
    if (!it->is_number() || !std::isfinite(it->get<double>())) throw error(key, "a number");
    return it->get<double>();
  }
  int side(const Json& value, const std::string& key) const {
    if (!value.is_number_integer() || value.get<int64_t>() < 1 || value.get<int64_t>() > 16384)
      throw error(key, "whole numbers of pixels from 1 to 16384");
    return value.get<int>();
  }
  std::array<double, 3> triple(const std::string& key) const {
    const auto it = json.find(key);
    std::array<double, 3> out{};
    if (it != json.end() && it->is_number()) {
      out.fill(it->get<double>());
      return out;
    }
    if (it == json.end() || !it->is_array() || it->size() != 3)
      throw error(key, "three numbers (one per channel)");
    for (size_t i = 0; i < 3; ++i) {
      if (!(*it)[i].is_number()) throw error(key, "three numbers (one per channel)");
      out[i] = (*it)[i].get<double>();
    }
    return out;
  }
};

}  // namespace

namespace {

// What each processor class does with its keys (transformers' image_processing_*.py, slow ones).
struct ProcessorClass {
  const char* name;
  bool number_is_shortest_edge;  // get_size_dict(size, default_to_square=False)
  bool crops;                    // its preprocess has a centre-crop step (default on)
};
constexpr ProcessorClass k_classes[] = {
    {"ViTImageProcessor", false, false}, {"SiglipImageProcessor", false, false},
    {"DeiTImageProcessor", false, true}, {"CLIPImageProcessor", true, true},
    {"BitImageProcessor", true, true},
};

const ProcessorClass* class_of(std::string type) {
  // An older save's FeatureExtractor is its ImageProcessor under another name.
  if (type.ends_with("FeatureExtractor"))
    type = type.substr(0, type.size() - 16) + "ImageProcessor";
  for (const auto& c : k_classes) {
    if (type == c.name) return &c;
  }
  return nullptr;
}

}  // namespace

ImageProcessor read_image_processor(const std::filesystem::path& dir) {
  const auto path = dir / "preprocessor_config.json";
  if (!std::filesystem::exists(path)) {
    throw Error(
        fmt::format("{}: no preprocessor_config.json, which says how the model's processor "
                    "resizes and normalises an image: give the processed image as --pixels",
                    dir.string()));
  }
  const Json json = read_json_file(path);
  if (!json.is_object()) throw Error(fmt::format("{}: expected a JSON object", path.string()));
  const Fields f{json, path.string()};
  ImageProcessor p;
  const auto text = [&](const char* key) {
    const auto it = json.find(key);
    return it != json.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  const std::string type = !text("image_processor_type").empty() ? text("image_processor_type")
                                                                 : text("feature_extractor_type");
  const ProcessorClass* cls = class_of(type);
  if (!cls) {
    throw Error(fmt::format(
        "{}: image_processor_type {}: expected ViTImageProcessor, SiglipImageProcessor, "
        "DeiTImageProcessor, CLIPImageProcessor or BitImageProcessor, whose steps attnviz "
        "reproduces (or give the processed image as --pixels)",
        path.string(), type.empty() ? "(missing)" : "'" + printable_text(type) + "'"));
  }
  p.origin = fmt::format("{} ({})", path.string(), printable_text(type));
  // What the processors do beyond resize, crop, rescale and normalise: refused, not skipped.
  for (const char* key : {"do_pad", "do_reduce_labels", "do_flip_channel_order", "do_thumbnail",
                          "do_align_long_axis", "do_split_image", "do_image_splitting"}) {
    if (f.flag(key, false))
      throw f.error(key, "false: attnviz applies resize, centre crop, rescale and normalise only");
  }
  p.do_resize = f.flag("do_resize", true);
  if (p.do_resize) {
    const auto size = json.find("size");
    if (size == json.end()) throw f.error("size", "{\"height\", \"width\"} or {\"shortest_edge\"}");
    if (size->is_number_integer() && cls->number_is_shortest_edge) {
      p.shortest_edge = f.side(*size, "size");
    } else if (size->is_number_integer()) {
      p.height = p.width = f.side(*size, "size");
    } else if (size->is_object() && size->contains("height") && size->contains("width") &&
               size->size() == 2) {
      p.height = f.side(size->at("height"), "size");
      p.width = f.side(size->at("width"), "size");
    } else if (size->is_object() && size->contains("shortest_edge") && size->size() == 1) {
      p.shortest_edge = f.side(size->at("shortest_edge"), "size");
    } else {
      throw f.error(
          "size", "{\"height\", \"width\"} or {\"shortest_edge\"} (a longest_edge is not applied)");
    }
    if (!json.contains("resample"))
      throw f.error("resample", "the resampling filter, as PIL numbers it");
    const double number = f.number("resample", 0);
    // In range before the cast: a float past int's range is undefined behaviour to convert.
    const auto r = number >= 0 && number <= 5 && number == std::floor(number)
                       ? resample_of(static_cast<int>(number))
                       : std::nullopt;
    if (!r || *r == Resample::nearest)
      throw f.error("resample", "1 (lanczos), 2 (bilinear), 3 (bicubic), 4 (box) or 5 (hamming)");
    p.resample = *r;
  }
  p.do_center_crop = cls->crops && f.flag("do_center_crop", true);
  if (!cls->crops && f.flag("do_center_crop", false)) {
    p.notes.push_back(
        fmt::format("{}: do_center_crop is not a step of {}: transformers does not "
                    "crop, nor does attnviz",
                    path.string(), cls->name));
  }
  if (p.do_center_crop) {
    const auto crop = json.find("crop_size");
    if (crop != json.end() && crop->is_number_integer()) {
      p.crop_height = p.crop_width = f.side(*crop, "crop_size");
    } else if (crop != json.end() && crop->is_object() && crop->contains("height") &&
               crop->contains("width")) {
      p.crop_height = f.side(crop->at("height"), "crop_size");
      p.crop_width = f.side(crop->at("width"), "crop_size");
    } else {
      throw f.error("crop_size", "{\"height\", \"width\"} or a number");
    }
  }
  p.do_rescale = f.flag("do_rescale", true);
  p.rescale_factor = f.number("rescale_factor", 1.0 / 255);
  p.do_normalize = f.flag("do_normalize", true);
  if (p.do_normalize) {
    p.mean = f.triple("image_mean");
    p.std = f.triple("image_std");
    for (double s : p.std) {
      if (s == 0) throw f.error("image_std", "three non-zero numbers");
    }
  }
  return p;
}

std::pair<int, int> resized_size(const RgbImage& image, const ImageProcessor& p) {
  if (!p.do_resize) return {image.width, image.height};
  if (p.shortest_edge == 0) return {p.width, p.height};
  // get_resize_output_image_size(default_to_square=False): the long side int(edge · long / short).
  const bool portrait = image.width <= image.height;
  const int short_side = portrait ? image.width : image.height;
  const int long_side = portrait ? image.height : image.width;
  const auto new_long = static_cast<int64_t>(double(p.shortest_edge) * long_side / short_side);
  if (new_long > 16384) {
    throw Error(
        fmt::format("an image of {}×{} pixels with its shortest edge resized to {} would be "
                    "{} pixels long: over the 16384 pixels attnviz resizes to",
                    image.width, image.height, p.shortest_edge, new_long));
  }
  const int along = static_cast<int>(new_long);
  return portrait ? std::pair{p.shortest_edge, along} : std::pair{along, p.shortest_edge};
}

RgbImage resize_and_crop(const RgbImage& image, const ImageProcessor& p) {
  RgbImage resized = image;
  if (p.do_resize) {
    const auto [width, height] = resized_size(image, p);
    resized = pillow_resize(image, width, height, p.resample);
  }
  if (!p.do_center_crop) return resized;
  // top = (h − crop) // 2; an image smaller than the crop is padded with zeros, centred by ceil.
  const auto start = [](int size, int crop) {
    return size >= crop ? (size - crop) / 2 : -static_cast<int>(std::ceil((crop - size) / 2.0));
  };
  const int top = start(resized.height, p.crop_height), left = start(resized.width, p.crop_width);
  RgbImage out{p.crop_width, p.crop_height,
               std::vector<uint8_t>(size_t(p.crop_width) * size_t(p.crop_height) * 3, 0),
               resized.source_mode};
  for (int y = 0; y < p.crop_height; ++y) {
    for (int x = 0; x < p.crop_width; ++x) {
      const int sy = y + top, sx = x + left;
      if (sy < 0 || sy >= resized.height || sx < 0 || sx >= resized.width) continue;
      for (int c = 0; c < 3; ++c)
        out.rgb[(size_t(y) * size_t(out.width) + size_t(x)) * 3 + size_t(c)] =
            resized.at(sy, sx, c);
    }
  }
  return out;
}

Tensor pixel_values_of(const RgbImage& picture, const ImageProcessor& p) {
  const int height = picture.height, width = picture.width;
  Tensor out{{3, height, width}, std::vector<float>(size_t(3) * size_t(height) * size_t(width))};
  for (int c = 0; c < 3; ++c) {
    const float mean = static_cast<float>(p.mean[size_t(c)]);
    const float std = static_cast<float>(p.std[size_t(c)]);
    for (int y = 0; y < height; ++y) {
      for (int x = 0; x < width; ++x) {
        const double byte = picture.at(y, x, c);
        float v =
            p.do_rescale ? static_cast<float>(byte * p.rescale_factor) : static_cast<float>(byte);
        if (p.do_normalize) v = (v - mean) / std;
        out.data[(size_t(c) * size_t(height) + size_t(y)) * size_t(width) + size_t(x)] = v;
      }
    }
  }
  return out;
}

Tensor process_image(const RgbImage& image, const ImageProcessor& p) {
  return pixel_values_of(resize_and_crop(image, p), p);
}

RgbImage picture_of_pixels(const Tensor& pixels, const ImageProcessor* p) {
  const int height = static_cast<int>(pixels.shape.at(1)),
            width = static_cast<int>(pixels.shape.at(2));
  RgbImage out{width, height, std::vector<uint8_t>(size_t(width) * size_t(height) * 3), "RGB"};
  const size_t plane = size_t(width) * size_t(height);
  for (size_t c = 0; c < 3 && c < size_t(pixels.shape[0]); ++c) {
    const float* in = pixels.data.data() + c * plane;
    float lo = *std::min_element(in, in + plane), hi = *std::max_element(in, in + plane);
    for (size_t i = 0; i < plane; ++i) {
      double v = in[i];
      if (p) {
        if (p->do_normalize) v = v * p->std[c] + p->mean[c];
        if (p->do_rescale && p->rescale_factor != 0) v /= p->rescale_factor;
      } else {
        v = hi > lo ? (v - lo) / (hi - lo) * 255.0 : 128.0;
      }
      out.rgb[i * 3 + c] = static_cast<uint8_t>(std::clamp(std::lround(v), 0L, 255L));
    }
  }
  if (pixels.shape[0] == 1) {  // one plane: grey
    for (size_t i = 0; i < plane; ++i) out.rgb[i * 3 + 1] = out.rgb[i * 3 + 2] = out.rgb[i * 3];
  }
  return out;
}

}  // namespace attnviz
