// Pillow's resize of 8-bit images (its libImaging/Resample.c), reproduced exactly: a vision model
// sees the pixels its processor's PIL.Image.resize gave it, not a float resize's (which moves the
// maps by 1e-2).
#pragma once

#include <optional>
#include <string>

#include "attnviz/io/image_file.hpp"

namespace attnviz {

// PIL.Image.Resampling's numbering, as preprocessor_config.json's "resample" writes it.
enum class Resample { nearest = 0, lanczos = 1, bilinear = 2, bicubic = 3, box = 4, hamming = 5 };

// The filter of a "resample" number; nullopt for one Pillow does not have.
std::optional<Resample> resample_of(int pil_number);
const char* resample_name(Resample r);  // "bilinear", …

// PIL.Image.resize((width, height), resample, reducing_gap=None) of an RGB image: for each axis
// that changes (horizontal first), the filter's weights over its support (widened by the scale
// when shrinking, normalised to sum 1), as 22-bit fixed point rounded half away from zero; each
// output the rounded sum, clipped to 0…255 — the horizontal pass's bytes feed the vertical one.
// Nearest-neighbour is refused (Pillow takes another path for it), as are sizes below 1.
RgbImage pillow_resize(const RgbImage& image, int width, int height, Resample filter);

}  // namespace attnviz
