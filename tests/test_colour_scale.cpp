// The figures' colour scale: causal maps over 32 tokens on a log scale by default (their first rows
// hold weight 1 and ½ by construction), others linear; --linear and --log force one. Read from the
// raw images (--png-raw), whose pixels are the colour map at each cell's position.
#include <doctest/doctest.h>
#include <stb/stb_image.h>

#include <cmath>
#include <filesystem>
#include <string>

#include "attnviz/render/colormap.hpp"
#include "run_cli.hpp"
#include "temp_dir.hpp"

using namespace attnviz;
using attnviz::test::run_attnviz;

namespace {

// The colour of cell (i, j) in a raw image of an n × n map (square cells).
Rgb cell_colour(const std::filesystem::path& png, int n, int i, int j) {
  int w = 0, h = 0, channels = 0;
  unsigned char* data = stbi_load(png.string().c_str(), &w, &h, &channels, 3);
  REQUIRE(data != nullptr);
  REQUIRE(w == h);
  const int cell = w / n;
  const size_t at = (static_cast<size_t>(i * cell + cell / 2) * static_cast<size_t>(w) +
                     static_cast<size_t>(j * cell + cell / 2)) *
                    3;
  const Rgb c{data[at], data[at + 1], data[at + 2]};
  stbi_image_free(data);
  return c;
}

bool same(Rgb a, Rgb b) {
  return a.r == b.r && a.g == b.g && a.b == b.b;
}

// Layer 0 head 2 of the planted model has zero weights: uniform over the allowed keys, so row i of
// its causal map holds 1/(i + 1) everywhere, and its head max is 1 (row 0).
Rgb drawn(const std::string& ids, int n, const std::string& flags, int i) {
  attnviz::test::TempDir dir;
  const auto r = run_attnviz("run -m tests/fixtures/planted/planted-heads --ids '" + ids +
                             "' --layer 0 --head 2 --no-heatmap --table none --png-raw --png " +
                             (dir / "f").string() + flags);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  return cell_colour(dir / "f" / "layer0.self.head2.raw.png", n, i, 0);
}

std::string ids_of_length(int n) {
  std::string ids;
  for (int k = 0; k < n; ++k) ids += std::to_string(k % 16) + " ";
  return ids;
}

}  // namespace

TEST_CASE("colour scale: a causal map over 32 tokens is drawn on a log scale unless --linear") {
  const int n = 40;
  const std::string ids = ids_of_length(n);
  const double w = 1.0 / n;  // row 39's weight; the head max is 1
  const float log_position =
      static_cast<float>((std::log10(w) + 4.0) / 4.0);  // 4 decades below the max
  const Rgb log_colour = colormap(ColormapId::viridis, log_position);
  const Rgb linear_colour = colormap(ColormapId::viridis, static_cast<float>(w));
  CHECK_FALSE(same(log_colour, linear_colour));
  CHECK(same(drawn(ids, n, "", n - 1), log_colour));
  CHECK(same(drawn(ids, n, " --log", n - 1), log_colour));
  CHECK(same(drawn(ids, n, " --linear", n - 1), linear_colour));
}

TEST_CASE("colour scale: short causal maps stay linear, --log and --linear exclude each other") {
  const int n = 20;
  const Rgb linear_colour = colormap(ColormapId::viridis, 1.0f / n);
  CHECK(same(drawn(ids_of_length(n), n, "", n - 1), linear_colour));
  const auto both =
      run_attnviz("run -m tests/fixtures/planted/planted-heads --ids '1 2' --log --linear");
  CHECK(both.exit_code == 2);
  CHECK(attnviz::test::contains(both.err, "--log"));
}
