// Tests of PNG heatmaps: cell colours and sizes of the upscaled image, the PNG signature and IHDR
// fields of the encoded bytes, a decode round trip (stb_image), and the atomic write.
#include <doctest/doctest.h>
#include <stb/stb_image.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <ostream>
#include <string>

#include "attnviz/core/error.hpp"
#include "attnviz/render/colormap.hpp"
#include "attnviz/render/png.hpp"
#include "print_rgb.hpp"

using namespace attnviz;

namespace {

uint32_t big_endian_u32(const std::string& bytes, size_t at) {
  return (static_cast<uint32_t>(static_cast<unsigned char>(bytes[at])) << 24) |
         (static_cast<uint32_t>(static_cast<unsigned char>(bytes[at + 1])) << 16) |
         (static_cast<uint32_t>(static_cast<unsigned char>(bytes[at + 2])) << 8) |
         static_cast<uint32_t>(static_cast<unsigned char>(bytes[at + 3]));
}

const Rgb k_grey{128, 128, 128};

}  // namespace

TEST_CASE("png: heatmap_image colours every cell block and greys masked cells") {
  Matrix values(2, 3);
  values << 0.0f, 0.5f, 1.0f, 0.25f, 0.7f, 0.0f;
  Mask mask;
  mask.causal = true;  // (0, 1), (0, 2) and (1, 2) masked
  const Image image = heatmap_image(values, mask, ColormapId::viridis, 0.0f, 1.0f, 256);
  // cell_px = ceil(256 / min(2, 3)) = 128.
  CHECK(image.width == 3 * 128);
  CHECK(image.height == 2 * 128);
  CHECK(image.rgb.size() == size_t{3} * 128 * 2 * 128 * 3);
  CHECK(image.at(0, 0) == Rgb{68, 1, 84});         // cell (0, 0) = viridis(0), top-left pixel
  CHECK(image.at(127, 127) == Rgb{68, 1, 84});     // its bottom-right pixel
  CHECK(image.at(128, 0) == k_grey);               // cell (0, 1) masked
  CHECK(image.at(383, 127) == k_grey);             // cell (0, 2) masked
  CHECK(image.at(0, 128) == Rgb{59, 82, 139});     // cell (1, 0) = viridis(0.25)
  CHECK(image.at(200, 200) == Rgb{68, 191, 112});  // cell (1, 1) = viridis(0.7)
  CHECK(image.at(383, 255) == k_grey);             // cell (1, 2) masked (key 2 after query 1)
  CHECK_THROWS_AS(image.at(384, 0), Error);
}

TEST_CASE("png: heatmap_image maps [vmin, vmax] and clamps outside it") {
  Matrix scores(1, 2);
  scores << -10.0f, 30.0f;
  const Image image = heatmap_image(scores, Mask{}, ColormapId::viridis, -2.0f, 6.0f, 4);
  CHECK(image.width == 8);  // cell_px = ceil(4 / 1) = 4
  CHECK(image.height == 4);
  CHECK(image.at(0, 0) == colormap(ColormapId::viridis, 0.0f));
  CHECK(image.at(7, 3) == colormap(ColormapId::viridis, 1.0f));
}

TEST_CASE("png: upscaling stops at 4096 pixels per side") {
  const Image one = heatmap_image(Matrix::Zero(1, 1), Mask{}, ColormapId::viridis, 0, 1, 256);
  CHECK(one.width == 256);
  CHECK(one.height == 256);
  const Image wide = heatmap_image(Matrix::Zero(1, 1000), Mask{}, ColormapId::viridis, 0, 1, 256);
  CHECK(wide.width == 4000);  // wanted 256 px per cell; 4096 / 1000 allows 4
  CHECK(wide.height == 4);
  const Image huge = heatmap_image(Matrix::Zero(2, 5000), Mask{}, ColormapId::viridis, 0, 1, 256);
  CHECK(huge.width == 5000);  // never below one pixel per cell
  CHECK(huge.height == 2);
  CHECK_THROWS_AS(heatmap_image(Matrix(0, 3), Mask{}, ColormapId::viridis, 0, 1), Error);
}

TEST_CASE("png: encode_png writes the signature and IHDR, and decodes to the same pixels") {
  Matrix values(2, 3);
  values << 0.0f, 0.5f, 1.0f, 0.25f, 0.7f, 0.0f;
  const Image image = heatmap_image(values, Mask{}, ColormapId::viridis, 0.0f, 1.0f, 10);
  const std::string png = encode_png(image);
  REQUIRE(png.size() > 33);
  CHECK(png.substr(0, 8) == std::string("\x89PNG\r\n\x1a\n", 8));
  CHECK(big_endian_u32(png, 8) == 13);  // IHDR length
  CHECK(png.substr(12, 4) == "IHDR");
  CHECK(big_endian_u32(png, 16) == static_cast<uint32_t>(image.width));
  CHECK(big_endian_u32(png, 20) == static_cast<uint32_t>(image.height));
  CHECK(image.width == 15);
  CHECK(image.height == 10);
  CHECK(png[24] == 8);  // bit depth
  CHECK(png[25] == 2);  // colour type: truecolour RGB

  int w = 0, h = 0, channels = 0;
  unsigned char* pixels = stbi_load_from_memory(reinterpret_cast<const unsigned char*>(png.data()),
                                                static_cast<int>(png.size()), &w, &h, &channels, 3);
  REQUIRE(pixels != nullptr);
  CHECK(w == image.width);
  CHECK(h == image.height);
  CHECK(std::equal(image.rgb.begin(), image.rgb.end(), pixels));
  stbi_image_free(pixels);
}

TEST_CASE("png: encode_png rejects an image whose buffer does not match its size") {
  Image bad;
  bad.width = 2;
  bad.height = 2;
  bad.rgb.assign(5, 0);
  CHECK_THROWS_AS(encode_png(bad), Error);
  CHECK_THROWS_AS(encode_png(Image{}), Error);
}

TEST_CASE("png: write_png writes the encoded bytes to the path") {
  const auto dir =
      std::filesystem::temp_directory_path() / ("attnviz_test_png_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto path = dir / "map.png";
  const Image image = heatmap_image(Matrix::Identity(3, 3), Mask{}, ColormapId::viridis, 0, 1, 9);
  write_png(path, image);
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(bytes == encode_png(image));
  std::filesystem::remove_all(dir);
}
