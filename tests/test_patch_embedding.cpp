// The patch positions' bicubic resizes, against hand calculations of Keys' kernel as
// torch.nn.functional.interpolate(mode="bicubic", align_corners=False) applies it: A = −0.75, and
// with antialias=True A = −0.5 stretched when shrinking.
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

TEST_CASE("patch positions: the antialiased resize shrinks 4 columns to 2, by hand") {
  // torch's antialias=True kernel: Keys' cubic with A = −0.5, read at (j − centre + ½)/s for a
  // shrink s = 4/2 = 2, over the taps within ±2s of the centre s·(o + ½). Output column 0: centre
  // 1, taps 0…3 at −¼, ¼, ¾, 1¼, weighing 0.8671875, 0.8671875, 0.2265625, −0.0703125 before
  // they are divided by their sum 1.890625. On the values 0, 1, 2, 3 of each row that gives
  // 1.109375 / 1.890625; column 1 mirrors it (3 minus it). The rows keep their size: untouched.
  Matrix table(16, 1);
  for (int i = 0; i < 16; ++i) table(i, 0) = float(i % 4);
  const Matrix out = attnviz::resize_bicubic_antialiased(table, 4, 4, 2);
  REQUIRE(out.rows() == 8);
  const double first = 1.109375 / 1.890625;
  for (int r = 0; r < 4; ++r) {
    CHECK(out(r * 2 + 0, 0) == doctest::Approx(first).epsilon(1e-6));
    CHECK(out(r * 2 + 1, 0) == doctest::Approx(3.0 - first).epsilon(1e-6));
  }
}

TEST_CASE(
    "patch positions: the antialiased resize grows 2 columns to 3, and shrinks rows, by hand") {
  // Growing (s = 2/3 < 1): the support stays 2 and the kernel is read unstretched. Column 0: centre
  // (2/3)·½ = ⅓, taps 0 and 1 (the window is cut at the edge) at 1/6 and 7/6: Keys (A = −0.5)
  // gives 0.9375 and ((−½·7/6 + 5/2)·7/6 − 4)·7/6 + 2 = −0.0578704; on the values 0, 1 that is
  // −0.0578704 / 0.8796296. Column 1: centre 1, taps at ∓½, equal weights: ½. (torch: −0.0658,
  // 0.5000, 1.0658.)
  Matrix two(4, 1);
  two << 0.0f, 1.0f, 0.0f, 1.0f;
  const Matrix grown = attnviz::resize_bicubic_antialiased(two, 2, 2, 3);
  REQUIRE(grown.rows() == 6);
  const double far = ((-0.5 * 7 / 6 + 2.5) * 7 / 6 - 4) * 7 / 6 + 2;
  const double first = far / (0.9375 + far);
  for (int r = 0; r < 2; ++r) {
    CHECK(grown(r * 3 + 0, 0) == doctest::Approx(first).epsilon(1e-6));
    CHECK(grown(r * 3 + 1, 0) == doctest::Approx(0.5).epsilon(1e-6));
    CHECK(grown(r * 3 + 2, 0) == doctest::Approx(1.0 - first).epsilon(1e-6));
  }
  // The rows pass: values 0, 1, 2, 3 by row, 4 rows to 2, the columns kept: the shrink above along
  // the other axis (torch: 0.5868 and 2.4132 in every column).
  Matrix rows(16, 1);
  for (int i = 0; i < 16; ++i) rows(i, 0) = float(i / 4);
  const Matrix shrunk = attnviz::resize_bicubic_antialiased(rows, 4, 2, 4);
  REQUIRE(shrunk.rows() == 8);
  for (int c = 0; c < 4; ++c) {
    CHECK(shrunk(c, 0) == doctest::Approx(1.109375 / 1.890625).epsilon(1e-6));
    CHECK(shrunk(4 + c, 0) == doctest::Approx(3.0 - 1.109375 / 1.890625).epsilon(1e-6));
  }
}
