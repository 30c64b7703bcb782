// A vision model's input through the CLI: --pixels read as the processor's array, its patches
// labelled, and every input it cannot take refused with its own message and exit code.
#include <doctest/doctest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "run_cli.hpp"
#include "temp_dir.hpp"

using attnviz::test::contains;
using attnviz::test::run_attnviz;
using attnviz::test::TempDir;

namespace {

const std::string k_vit = "tests/fixtures/torch/hf_vit";
const std::string k_dinov2 = "tests/fixtures/torch/hf_dinov2_registers";

// A little-endian .npy (version 1.0) of `descr` with this shape and raw bytes.
void write_npy(const std::filesystem::path& path, const std::string& descr,
               const std::vector<int64_t>& shape, const std::string& bytes) {
  std::string dims;
  for (int64_t d : shape) dims += std::to_string(d) + ", ";
  if (shape.size() > 1) dims.resize(dims.size() - 2);
  std::string header =
      "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" + dims + "), }";
  header.append(63 - (10 + header.size()) % 64, ' ');
  header += '\n';
  std::ofstream out(path, std::ios::binary);
  const uint16_t n = static_cast<uint16_t>(header.size());
  out << "\x93NUMPY" << char(1) << char(0) << char(n & 0xff) << char(n >> 8) << header << bytes;
}

std::string zeros(size_t n_floats) {
  return std::string(n_floats * 4, '\0');
}

}  // namespace

TEST_CASE(
    "vision: --pixels labels the tokens CLS and p(row,col); the classifier is named as not run") {
  const auto r = run_attnviz("run -m " + k_vit + " --pixels " + k_vit +
                             "/pixels.npy --layer 0 --head 0 --table probs --format csv");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  // CSV quotes the labels with a comma in them.
  CHECK_MESSAGE(contains(r.out, "query,CLS,\"p(0,0)\",\"p(0,1)\","), r.out);
  CHECK(contains(r.out, "\n\"p(3,3)\","));
  CHECK_MESSAGE(
      contains(r.err, "not run: the classification head (classifier.bias, classifier.weight)"),
      r.err);
}

TEST_CASE("vision: DINOv2's registers come after CLS, before the patches") {
  const auto r = run_attnviz("run -m " + k_dinov2 + " --pixels " + k_dinov2 +
                             "/pixels.npy --layer 0 --head 0 --table probs --format csv");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK_MESSAGE(contains(r.out, "query,CLS,reg0,reg1,reg2,\"p(0,0)\","), r.out);
}

TEST_CASE("vision: inputs a vision model cannot take, each refused with its reason") {
  TempDir tmp;
  // Text to a vision model: a usage error naming --pixels.
  auto r = run_attnviz("run -m " + k_vit + " --ids '1 2 3'");
  CHECK(r.exit_code == 2);
  CHECK_MESSAGE(
      contains(r.err, "is a vision model: its input is an image, --image FILE or --pixels"), r.err);
  // --pixels with another input.
  r = run_attnviz("run -m " + k_vit + " --pixels " + k_vit + "/pixels.npy --ids '1 2'");
  CHECK(r.exit_code == 2);
  CHECK_MESSAGE(contains(r.err, "--pixels is the whole input: give no other input"), r.err);
  // --pixels to a text model.
  r = run_attnviz("run -m tests/fixtures/torch/hf_bert --pixels " + k_vit + "/pixels.npy");
  CHECK(r.exit_code == 2);
  CHECK_MESSAGE(contains(r.err, "is not a vision model"), r.err);
  // ViT's positions are its 16 × 16 pixels' grid: a 20 × 16 image is refused (exit 1).
  write_npy(tmp / "tall.npy", "<f4", {3, 20, 16}, zeros(3 * 20 * 16));
  r = run_attnviz("run -m " + k_vit + " --pixels '" + (tmp / "tall.npy").string() + "'");
  CHECK(r.exit_code == 1);
  CHECK_MESSAGE(contains(r.err, "an image of 20×16 pixels gives 5×4 patches"), r.err);
  CHECK(contains(r.err, "the family does not resize them"));
  // One channel for an RGB model.
  write_npy(tmp / "grey.npy", "<f4", {1, 16, 16}, zeros(16 * 16));
  r = run_attnviz("run -m " + k_vit + " --pixels '" + (tmp / "grey.npy").string() + "'");
  CHECK(r.exit_code == 1);
  CHECK_MESSAGE(contains(r.err, "pixels of shape [1, 16, 16], expected [3, height, width]"), r.err);
  // A batch of two, integers, and a NaN.
  write_npy(tmp / "two.npy", "<f4", {2, 3, 16, 16}, zeros(2 * 3 * 16 * 16));
  r = run_attnviz("run -m " + k_vit + " --pixels '" + (tmp / "two.npy").string() + "'");
  CHECK(r.exit_code == 1);
  CHECK_MESSAGE(contains(r.err, "holds 2 images: give one"), r.err);
  write_npy(tmp / "bytes.npy", "|u1", {3, 16, 16}, std::string(3 * 16 * 16, '\x7f'));
  r = run_attnviz("run -m " + k_vit + " --pixels '" + (tmp / "bytes.npy").string() + "'");
  CHECK(r.exit_code == 1);
  CHECK_MESSAGE(
      contains(r.err, "--pixels holds integers or booleans ('u' dtype): expected float32"), r.err);
  std::string nan = zeros(3 * 16 * 16);
  nan.replace(4, 4, std::string("\x00\x00\xc0\x7f", 4));
  write_npy(tmp / "nan.npy", "<f4", {3, 16, 16}, nan);
  r = run_attnviz("run -m " + k_vit + " --pixels '" + (tmp / "nan.npy").string() + "'");
  CHECK(r.exit_code == 1);
  CHECK_MESSAGE(contains(r.err, "holds a non-finite value"), r.err);
}

TEST_CASE(
    "vision: --seed, --overlay - beside CSV tables, and a registers model off its grid are "
    "refused") {
  auto r = run_attnviz("run -m " + k_vit + " --pixels " + k_vit + "/pixels.npy --seed 3");
  CHECK(r.exit_code == 2);
  CHECK_MESSAGE(contains(r.err, "--pixels is the whole input"), r.err);
  r = run_attnviz("run -m " + k_vit + " --pixels " + k_vit +
                  "/pixels.npy --overlay - --format json");
  CHECK(r.exit_code == 2);
  CHECK_MESSAGE(
      contains(r.err, "--overlay - draws in the terminal, which --format json tables fill"), r.err);
  r = run_attnviz("run -m " + k_vit + " --pixels " + k_vit + "/pixels.npy --query CLS");
  CHECK(r.exit_code == 2);
  CHECK_MESSAGE(contains(r.err, "--query names whose attention --overlay draws"), r.err);
  r = run_attnviz("run -m " + k_vit + " --pixels " + k_vit +
                  "/pixels.npy --overlay - --query 'p(9,9)'");
  CHECK(r.exit_code == 2);
  CHECK_MESSAGE(contains(r.err, "this image's tokens are CLS, p(0,0) … p(3,3), or mean"), r.err);
  // DINOv2 with registers resizes its positions with an antialiased kernel attnviz lacks.
  TempDir tmp;
  write_npy(tmp / "wide.npy", "<f4", {3, 16, 20}, zeros(3 * 16 * 20));
  r = run_attnviz("run -m " + k_dinov2 + " --pixels '" + (tmp / "wide.npy").string() + "'");
  CHECK(r.exit_code == 1);
  CHECK_MESSAGE(
      contains(r.err, "torch's antialiased bicubic, which attnviz does not reproduce yet"), r.err);
}

TEST_CASE(
    "vision: SAGAN's block over --features labels its pixels (row,col); overlays draw any pixel") {
  const std::string sagan = "tests/fixtures/torch/sagan_block";
  auto r = run_attnviz("run -m " + sagan + " --features " + sagan +
                       "/features.npy --table probs --format csv --no-heatmap");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK_MESSAGE(contains(r.out, "query,\"(0,0)\",\"(0,1)\","), r.out);
  CHECK(contains(r.out, "\n\"(4,5)\","));
  r = run_attnviz("run -m " + sagan + " --features " + sagan +
                  "/features.npy --overlay - --query '(2,3)' --table none");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK_MESSAGE(contains(r.out, "layer 0 · self · head 0 · query (2,3)"), r.out);
  // A vision transformer reads an image, not a feature map; SAGAN's block reads no image.
  r = run_attnviz("run -m " + k_vit + " --features " + sagan + "/features.npy");
  CHECK(r.exit_code == 2);
  CHECK_MESSAGE(contains(r.err, "is a vision transformer, which reads an image"), r.err);
  r = run_attnviz("run -m " + sagan + " --pixels " + k_vit + "/pixels.npy");
  CHECK(r.exit_code == 2);
  CHECK_MESSAGE(contains(r.err, "is not a vision model"), r.err);
}

TEST_CASE("vision: --batch lines give images and pixel files; a line with two inputs is refused") {
  TempDir tmp;
  std::ofstream(tmp / "images.jsonl")
      << R"({"id": "a", "pixels": "tests/fixtures/torch/hf_vit/pixels.npy"})"
      << "\n"
      << R"({"id": "b", "pixels": "tests/fixtures/torch/hf_vit/pixels.npy"})"
      << "\n";
  auto r = run_attnviz("stats -m " + k_vit + " --batch '" + (tmp / "images.jsonl").string() +
                       "' --format json");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK_MESSAGE(contains(r.out, "\"inputs\": 2"), r.out);
  std::ofstream(tmp / "two.jsonl") << R"({"pixels": "x.npy", "text": "a cat"})"
                                   << "\n";
  r = run_attnviz("stats -m " + k_vit + " --batch '" + (tmp / "two.jsonl").string() + "'");
  CHECK(r.exit_code == 1);
  CHECK_MESSAGE(contains(r.err, "line 1: give one of \"text\", \"ids\", \"image\" or \"pixels\""),
                r.err);
}
