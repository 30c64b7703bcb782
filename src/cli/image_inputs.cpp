// A vision model's inputs from the flags: --pixels, --image through the folder's processor,
// --features (a CNN feature map), the picture overlays draw on, and --query.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <filesystem>

#include "attnviz/cli/inputs.hpp"
#include "attnviz/compute/embedding.hpp"
#include "attnviz/compute/patch_embedding.hpp"
#include "attnviz/core/error.hpp"
#include "attnviz/inputs/image_processor.hpp"
#include "attnviz/io/image_file.hpp"
#include "attnviz/io/npy.hpp"

namespace attnviz {

namespace {

// --pixels: the image a vision model reads, [C, H, W] or [1, C, H, W] float32 / float64.
Tensor read_pixel_file(const std::string& file, const std::string& flag = "--pixels") {
  NpyArray a = read_npy_array(file, [&](const std::vector<int64_t>& shape, char kind) {
    if (kind != 'f') {
      throw Error(
          fmt::format("{}: {} holds integers or booleans ('{}' dtype): expected float32 "
                      "values",
                      file, flag, kind));
    }
    if (shape.size() == 4 && shape[0] != 1) {
      throw Error(fmt::format("{}: {} of shape {} holds {} images: give one", file, flag,
                              shape_string(shape), shape[0]));
    }
    if (shape.size() != 3 && shape.size() != 4) {
      throw Error(
          fmt::format("{}: {} of shape {}: expected [channels, height, width] or "
                      "[1, channels, height, width]",
                      file, flag, shape_string(shape)));
    }
  });
  if (a.shape.size() == 4) a.shape.erase(a.shape.begin());
  Tensor t{a.shape, std::vector<float>(a.values.begin(), a.values.end())};
  for (float value : t.data) {
    if (!std::isfinite(value))
      throw Error(fmt::format("{}: {} holds a non-finite value ({})", file, flag, value));
  }
  return t;
}

// --features: a CNN's feature map [C, H, W] (or [1, C, H, W]), a token per pixel in row order
// (SAGAN's x.view(B, C, H·W)), each the pixel's C channels; drawn as the channels' mean in grey.
ImageInput feature_map_input(const Model& model, const std::string& file, const TokenBound& bound) {
  const Tensor map = read_pixel_file(file, "--features");
  const int64_t channels = map.shape[0], height = map.shape[1], width = map.shape[2];
  const int64_t n = height * width;
  check_bound(bound, static_cast<size_t>(n), file, true);
  Matrix x(n, channels);
  std::vector<std::string> labels;
  Tensor mean{{1, height, width}, std::vector<float>(size_t(n), 0.0f)};
  for (int64_t i = 0; i < n; ++i) {
    labels.push_back(fmt::format("({},{})", i / width, i % width));
    for (int64_t c = 0; c < channels; ++c) {
      x(i, c) = map.data[size_t(c * n + i)];
      mean.data[size_t(i)] += x(i, c) / static_cast<float>(channels);
    }
  }
  Sequence seq = embedded_input(model, std::move(x), std::move(labels), file, model.config.d_model);
  seq.grid = {0, static_cast<int>(height), static_cast<int>(width), 1};
  std::string note = fmt::format(
      "{}: drawn as each pixel's mean over its {} channels, stretched "
      "from the least to the greatest",
      file, channels);
  return ImageInput{Tensor{}, std::move(seq), picture_of_pixels(mean, nullptr), std::move(note)};
}

// --image: the file decoded, then the folder's processor as transformers runs it; `picture` gets
// what the model sees, resized and cropped.
Tensor read_image_input(const Model& model, const std::string& file,
                        std::vector<std::string>& notes, RgbImage& picture) {
  if (model.config.vision.patch == 0)
    throw usage_error(fmt::format(
        "--image: {} is not a vision model: it reads tokens, not an image", model.name));
  const ImageProcessor processor = read_image_processor(model.dir);
  const RgbImage image = read_image(file);
  picture = resize_and_crop(image, processor);
  Tensor pixels = pixel_values_of(picture, processor);
  std::vector<std::string> steps;
  if (processor.do_resize) {
    const auto [w, h] = resized_size(image, processor);
    steps.push_back(fmt::format("resized ({}) to {}×{}", resample_name(processor.resample), w, h));
  }
  if (processor.do_center_crop) {
    steps.push_back(
        fmt::format("centre cropped to {}×{}", processor.crop_width, processor.crop_height));
  }
  if (processor.do_rescale) steps.push_back("rescaled");
  if (processor.do_normalize) steps.push_back("normalised");
  notes.push_back(fmt::format("{}: {}×{} {}{}{}, as {} says", file, image.width, image.height,
                              image.source_mode, steps.empty() ? "" : ", ", fmt::join(steps, ", "),
                              processor.origin));
  if (image.source_mode.find("alpha") != std::string::npos || image.source_mode == "RGBA")
    notes.push_back(fmt::format(
        "{}: its alpha channel is dropped, as Pillow's convert(\"RGB\") drops it", file));
  notes.insert(notes.end(), processor.notes.begin(), processor.notes.end());
  return pixels;
}

}  // namespace

OverlayQuery resolve_overlay_query(const std::string& spec, const Sequence& image) {
  const auto& g = image.grid;
  if (g.rows == 0) {
    throw usage_error(
        "--overlay draws on an image: give --image or --pixels (or --features for a "
        "feature map)");
  }
  if (spec == "mean") return {std::nullopt, "mean of patches"};
  const std::string want = spec.empty() ? "CLS" : spec;
  for (size_t i = 0; i < image.labels.size(); ++i) {
    if (image.labels[i] == want) return {static_cast<int>(i), want};
  }
  if (spec.empty()) return {std::nullopt, "mean of patches"};  // no class token: the mean
  std::string kinds;
  if (g.first > 0)
    kinds = image.labels.front() + (g.first > 1 ? " … " + image.labels[size_t(g.first) - 1] : "") +
            ", ";
  throw usage_error(fmt::format("--query {}: this image's tokens are {}{} … {}, or mean", spec,
                                kinds, image.labels[size_t(g.first)], image.labels.back()));
}

std::optional<ImageInput> resolve_image(const Model& model, const SequenceFlags& f,
                                        const TokenBound& bound) {
  if (f.pixels.empty() && f.image.empty() && f.features.empty()) return std::nullopt;
  const bool other = f.has_text() || !f.ids.empty() || !f.tokens.empty() || !f.embeddings.empty() ||
                     !f.probe.empty() || !f.probe_seed.empty();
  const int images =
      (f.pixels.empty() ? 0 : 1) + (f.image.empty() ? 0 : 1) + (f.features.empty() ? 0 : 1);
  if (other || images > 1) {
    throw usage_error(
        fmt::format("{} is the whole input: give no other input", !f.features.empty() ? "--features"
                                                                  : f.pixels.empty()  ? "--image"
                                                                                     : "--pixels"));
  }
  if (!f.features.empty()) {
    if (model.config.vision.patch > 0) {
      throw usage_error(
          fmt::format("--features feeds a feature map's pixels as tokens; {} is a vision "
                      "transformer, which reads an image: give --image or --pixels",
                      model.name));
    }
    return feature_map_input(model, f.features, bound);
  }
  std::vector<std::string> notes;
  const std::string what = f.pixels.empty() ? f.image : f.pixels;
  RgbImage picture;
  std::string picture_note;
  Tensor pixels = f.pixels.empty() ? read_image_input(model, f.image, notes, picture)
                                   : read_pixel_file(f.pixels);
  Sequence seq = embed_pixels(model, pixels, what);
  check_bound(bound, static_cast<size_t>(seq.x.rows()), what, true);
  seq.notes.insert(seq.notes.begin(), notes.begin(), notes.end());
  if (!f.pixels.empty()) {
    // The picture only draws overlays: a processor attnviz cannot run (--pixels is the way round
    // one) is no reason to refuse the pixels, so it is drawn stretched instead, and a note says
    // why.
    std::string why = fmt::format("{} has no preprocessor_config.json", model.name);
    if (std::filesystem::exists(model.dir / "preprocessor_config.json")) {
      try {
        const ImageProcessor processor = read_image_processor(model.dir);
        picture = picture_of_pixels(pixels, &processor);
      } catch (const Error& e) {
        why = e.what();
      }
    }
    if (picture.rgb.empty()) {
      picture = picture_of_pixels(pixels, nullptr);
      picture_note = fmt::format(
          "{}: drawn with each channel stretched from its least to its greatest value, not with "
          "its processor's normalisation undone ({})",
          f.pixels, why);
    }
  }
  return ImageInput{std::move(pixels), std::move(seq), std::move(picture), std::move(picture_note)};
}

}  // namespace attnviz
