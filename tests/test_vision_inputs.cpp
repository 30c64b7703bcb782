// A vision model's input through the CLI: --pixels read as the processor's array, its patches
// labelled, and every input it cannot take refused with its own message and exit code.
#include <doctest/doctest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "edited_fixture.hpp"
#include "run_cli.hpp"
#include "temp_dir.hpp"

using attnviz::test::contains;
using attnviz::test::EditedFixture;
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
    "vision: --seed, --overlay - beside CSV tables, and ViT off its grid are refused; DINOv2 with "
    "registers resizes its positions") {
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
  // ViT does not resize its positions: an image off its grid is refused.
  TempDir tmp;
  write_npy(tmp / "wide.npy", "<f4", {3, 16, 20}, zeros(3 * 16 * 20));
  r = run_attnviz("run -m " + k_vit + " --pixels '" + (tmp / "wide.npy").string() + "'");
  CHECK(r.exit_code == 1);
  CHECK_MESSAGE(contains(r.err, "and the family does not resize them"), r.err);
  r = run_attnviz("run -m " + k_dinov2 + " --pixels '" + (tmp / "wide.npy").string() +
                  "' --table none --no-heatmap");
  CHECK_MESSAGE(r.exit_code == 0, r.err);
}

TEST_CASE("vision: --overlay DIR draws the layer × head grid; --panel the chosen heads in a row") {
  TempDir tmp;
  const std::string dir = (tmp / "o").string();
  auto r = run_attnviz("run -m " + k_vit + " --pixels " + k_vit + "/pixels.npy --overlay '" + dir +
                       "' --head 0,1 --panel L1H3,L0H2 --table none --no-heatmap");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  namespace fs = std::filesystem;
  for (const char* f : {"layer0.self.head0.overlay.png", "layer1.self.head1.overlay.png",
                        "overlays.png", "panel.overlay.png"})
    CHECK_MESSAGE(fs::exists(fs::path(dir) / f), f);
  // The panel's heads are drawn in it only: head 3 was not selected.
  CHECK_FALSE(fs::exists(fs::path(dir) / "layer1.self.head3.overlay.png"));
  r = run_attnviz("run -m " + k_vit + " --pixels " + k_vit + "/pixels.npy --overlay '" + dir +
                  "2' --panel L5H0 --table none");
  CHECK(r.exit_code == 2);
  CHECK_MESSAGE(contains(r.err, "L5H0"), r.err);
  CHECK_FALSE(fs::exists(dir + "2"));
  r = run_attnviz("run -m " + k_vit + " --pixels " + k_vit +
                  "/pixels.npy --overlay - --panel L0H0 --table none");
  CHECK(r.exit_code == 2);
  CHECK_MESSAGE(contains(r.err, "give --png DIR or --overlay DIR too"), r.err);
}

TEST_CASE("vision: a whole CLIPModel folder runs its vision tower; its text tower is named") {
  const std::string clip = "tests/fixtures/torch/hf_clip_model";
  auto r = run_attnviz("run -m " + clip + " --pixels " + clip + "/pixels.npy --layer 0 --head 0 " +
                       "--table none --no-heatmap");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK_MESSAGE(contains(r.err, "not run: the text tower (text_model."), r.err);
  CHECK_MESSAGE(contains(r.err, "not run: the text projection and the logit scale"), r.err);
  // vision_config must be an object, and may name no other part.
  EditedFixture bad("hf_clip_model", [](auto&) {}, {{"vision_config", "x"}});
  r = run_attnviz("run -m '" + bad.dir.path().string() + "' --pixels " + clip + "/pixels.npy");
  CHECK(r.exit_code == 1);
  CHECK_MESSAGE(contains(r.err,
                         "\"vision_config\" = \"x\": expected an object, the config of "
                         "the clip_vision_model part"),
                r.err);
  // Without the legacy vision_config_dict (whose class names its own model_type, whatever
  // vision_config says), vision_config's model_type must be the tower's.
  EditedFixture other(
      "hf_clip_model", [](auto&) {},
      {{"vision_config", {{"model_type", "clip_text_model"}}}, {"vision_config_dict", nullptr}});
  r = run_attnviz("run -m '" + other.dir.path().string() + "' --pixels " + clip + "/pixels.npy");
  CHECK(r.exit_code == 1);
  CHECK_MESSAGE(contains(r.err,
                         "vision_config.model_type = \"clip_text_model\", expected "
                         "\"clip_vision_model\" inside a \"clip\" folder"),
                r.err);
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

TEST_CASE(
    "vision: init --arch vit writes ViT-B/16's grid and processor, which --image then reads") {
  TempDir tmp;
  const std::string m = (tmp / "vit").string();
  auto r = run_attnviz("init --arch vit --d-model 32 --heads 4 --layers 1 --seed 3 -o '" + m + "'");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  namespace fs = std::filesystem;
  CHECK(fs::exists(fs::path(m) / "preprocessor_config.json"));
  r = run_attnviz("run -m '" + m +
                  "' --image tests/fixtures/images/clip_png_bicubic_crop/image.png "
                  "--table probs --format csv --no-heatmap --head 0");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  // 224 / 16 = 14 patches a side after the class token: the last row is p(13,13)'s.
  CHECK_MESSAGE(contains(r.out, "\n\"p(13,13)\","), r.out.substr(0, 200));
  CHECK_MESSAGE(contains(r.err, "resized (bilinear) to 224×224"), r.err);
  CHECK_MESSAGE(contains(r.err, "(ViTImageProcessor)"), r.err);
  r = run_attnviz("init --arch vit --max-positions 64 -o '" + (tmp / "x").string() + "'");
  CHECK(r.exit_code == 2);
  CHECK_MESSAGE(contains(r.err, "a vision model's is its patch grid"), r.err);
}

TEST_CASE("multimodal: a Gemma 3 folder runs its text model and names the vision tower it skips") {
  for (const std::string name : {"hf_gemma3_mm", "hf_gemma3_mm_new"}) {
    const std::string m = "tests/fixtures/torch/" + name;
    const auto r =
        run_attnviz("run -m " + m + " --ids " + m + "/ids.txt --table none --no-heatmap");
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    const std::string tower = name == "hf_gemma3_mm" ? "vision_tower." : "model.vision_tower.";
    CHECK_MESSAGE(contains(r.err,
                           "not run: the vision tower (SigLIP; the image is not an input "
                           "yet) (" +
                               tower),
                  r.err);
    CHECK_MESSAGE(contains(r.err, "not run: the image projector ("), r.err);
    CHECK_MESSAGE(contains(r.err, "attnviz shows the text model's attention"), r.err);
  }
}
