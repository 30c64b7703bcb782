// The patch positions' bicubic resize, against hand calculations of Keys' kernel (A = −0.75) as
// torch.nn.functional.interpolate(mode="bicubic", align_corners=False) applies it.
#include <doctest/doctest.h>

#include "attnviz/compute/patch_embedding.hpp"

using attnviz::Matrix;
using attnviz::resize_bicubic;

TEST_CASE("patch positions: a bicubic resize to the same grid is the table itself") {
  Matrix table(9, 2);
  for (int i = 0; i < 9; ++i) table.row(i) << float(i), float(i * i) - 3.0f;
  const Matrix same = resize_bicubic(table, 3, 3, 3);
  // t = 0 gives the weights (0, 1, 0, 0): every row copied exactly.
  CHECK(same == table);
}

TEST_CASE("patch positions: 2 columns to 3, by hand") {
  // A 2 × 2 grid whose rows are [0, 1] (one value per position), resized to 2 × 3. Column 0:
  // source x = (0 + ½)·2/3 − ½ = −1/6, so the taps start at −2 (clamped to 0) with t = 5/6; the
  // last tap (x = 1) weighs far(7/6) = ((A·7/6 − 5A)·7/6 + 8A)·7/6 − 4A = −0.0868055…, the other
  // three (all at x = 0) the rest of 1. Column 1: x = ½, the symmetric taps give ½. Column 2
  // mirrors column 0: 1 + 0.0868055…. (torch gives −0.0868, 0.5000, 1.0868.)
  Matrix table(4, 1);
  table << 0.0f, 1.0f, 0.0f, 1.0f;
  const Matrix out = resize_bicubic(table, 2, 2, 3);
  REQUIRE(out.rows() == 6);
  const double far = ((-0.75 * 7 / 6 + 3.75) * 7 / 6 - 6.0) * 7 / 6 + 3.0;
  CHECK(far == doctest::Approx(-0.0868055556).epsilon(1e-9));
  for (int r = 0; r < 2; ++r) {
    CHECK(out(r * 3 + 0, 0) == doctest::Approx(far).epsilon(1e-6));
    CHECK(out(r * 3 + 1, 0) == doctest::Approx(0.5).epsilon(1e-6));
    CHECK(out(r * 3 + 2, 0) == doctest::Approx(1.0 - far).epsilon(1e-6));
  }
}
