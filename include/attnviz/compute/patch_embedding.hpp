// A vision transformer's input (Dosovitskiy et al. 2021, §3.1): an image cut into patches, each
// mapped to a token, after the family's prefix tokens, with learned positions.
#pragma once

#include <string>

#include "attnviz/core/matrix.hpp"
#include "attnviz/core/tensor.hpp"
#include "attnviz/inputs/sequence.hpp"
#include "attnviz/model/model.hpp"

namespace attnviz {

// pixels [C, H, W] (what the processor hands the model) into tokens: the class token, the
// distillation token, the register tokens, then the H/P × W/P patches row by row (a patch is
// x_p·Wᵀ + b, x_p its C·P·P pixels by channel, row, column: the Conv2d of kernel and stride P);
// the pretraining grid's positions added to the class, distillation and patch tokens (resized
// as the family's transformers code resizes them, else the grid must match); then the embedding
// norm when the model has one (CLIP's pre_layrnorm). Labelled CLS, dist, reg0…, p(row,col); `what`
// names the input in errors.
Sequence embed_pixels(const Model& model, const Tensor& pixels, const std::string& what);

// torch.nn.functional.interpolate(mode="bicubic", align_corners=False) of a grid × grid table of
// D-wide rows (row-major) to rows × cols: Keys' cubic convolution with A = −0.75, source
// coordinate (i + ½)·in/out − ½, edges replicated.
Matrix resize_bicubic(const Matrix& table, int grid, int rows, int cols);

// The same with antialias=True (torch's _upsample_bicubic2d_aa, as DINOv2 with registers calls
// it): Keys' kernel with A = −0.5, stretched by in/out when shrinking, the taps inside the table
// normalised to sum 1; columns resized first, then rows.
Matrix resize_bicubic_antialiased(const Matrix& table, int grid, int rows, int cols);

}  // namespace attnviz
