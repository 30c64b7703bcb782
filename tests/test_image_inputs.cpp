// --image against transformers' image processors: each case of tests/fixtures/images/cases.json
// (make_image_fixtures.py: Pillow's decoding and resizing, the processors' crop, rescale and
// normalise) run through the binary, whose --save must hold the same pixel_values bit for bit.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "attnviz/core/tensor.hpp"
#include "attnviz/io/safetensors.hpp"
#include "run_cli.hpp"
#include "temp_dir.hpp"

using attnviz::SafetensorsFile;
using attnviz::test::contains;
using attnviz::test::run_attnviz;
using attnviz::test::TempDir;

namespace {

const std::filesystem::path k_root = ATTNVIZ_SOURCE_DIR;

// A model folder in `dir`: the fixture model's weights and config beside the case's processor.
void model_with_processor(const std::filesystem::path& dir, const std::string& model,
                          const std::string& processor) {
  std::filesystem::create_directories(dir);
  for (const char* file : {"model.safetensors", "config.json"})
    std::filesystem::create_symlink(k_root / model / file, dir / file);
  std::filesystem::copy_file(k_root / processor / "preprocessor_config.json",
                             dir / "preprocessor_config.json");
}

}  // namespace

TEST_CASE(
    "--image: pixel_values equal transformers' processors (Pillow's decode and resize), bit for "
    "bit") {
  std::ifstream in(k_root / "tests/fixtures/images/cases.json");
  REQUIRE(in.good());
  const auto cases = nlohmann::json::parse(in);
  REQUIRE(cases.size() >= 10);
  for (const auto& c : cases) {
    const std::string name = c.at("name");
    CAPTURE(name);
    TempDir tmp;
    model_with_processor(tmp / "m", c.at("model"), c.at("processor"));
    const auto out = tmp / "out.safetensors";
    const auto r = run_attnviz("run -m '" + (tmp / "m").string() + "' --image '" +
                               c.at("image").get<std::string>() +
                               "' --no-heatmap --table none --save '" + out.string() + "'");
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    CHECK_MESSAGE(contains(r.err, "preprocessor_config.json"), r.err);  // the note of what was done
    const auto actual = SafetensorsFile::open(out).load("pixel_values");
    const auto expected =
        SafetensorsFile::open(k_root / c.at("expected").get<std::string>()).load("pixel_values");
    REQUIRE(actual.shape == expected.shape);
    size_t differing = 0, first = 0;
    for (size_t i = 0; i < expected.data.size(); ++i) {
      if (actual.data[i] != expected.data[i] && differing++ == 0) first = i;
    }
    CHECK_MESSAGE(differing == 0, c.at("what").get<std::string>()
                                      << ": " << differing << " values differ; the first at "
                                      << first << ": " << actual.data[first] << " vs "
                                      << expected.data[first]);
  }
}

TEST_CASE("--image: files and processors it cannot read, each refused with its reason") {
  TempDir tmp;
  model_with_processor(tmp / "m", "tests/fixtures/torch/hf_vit",
                       "tests/fixtures/images/vit_jpeg_bilinear");
  const std::string m = "run -m '" + (tmp / "m").string() + "' --image ";
  // Not an image.
  std::ofstream(tmp / "text.png") << "hello";
  auto r = run_attnviz(m + "'" + (tmp / "text.png").string() + "'");
  CHECK(r.exit_code == 1);
  CHECK_MESSAGE(contains(r.err, "neither a PNG nor a JPEG file"), r.err);
  // A JPEG cut short, and a PNG cut short.
  for (const char* image : {"tests/fixtures/images/vit_jpeg_bilinear/image.jpg",
                            "tests/fixtures/images/clip_png_bicubic_crop/image.png"}) {
    std::ifstream file(k_root / image, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(file)), {});
    std::ofstream(tmp / "cut", std::ios::binary) << bytes.substr(0, bytes.size() / 3);
    r = run_attnviz(m + "'" + (tmp / "cut").string() + "'");
    CHECK(r.exit_code == 1);
    CHECK_MESSAGE(contains(r.err, "cannot be decoded"), r.err);
  }
  // A JPEG whose headers are whole but whose data stops early: libjpeg would fill the rest with
  // grey and only warn; Pillow refuses it, and so does attnviz.
  {
    std::ifstream file(k_root / "tests/fixtures/images/vit_jpeg_bilinear/image.jpg",
                       std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(file)), {});
    std::ofstream(tmp / "short.jpg", std::ios::binary) << bytes.substr(0, bytes.size() * 9 / 10);
    r = run_attnviz(m + "'" + (tmp / "short.jpg").string() + "'");
    CHECK(r.exit_code == 1);
    CHECK_MESSAGE(contains(r.err, "its data ends before the image does"), r.err);
  }
  // A folder without preprocessor_config.json.
  std::filesystem::remove(tmp / "m/preprocessor_config.json");
  r = run_attnviz(m + "tests/fixtures/images/vit_jpeg_bilinear/image.jpg");
  CHECK(r.exit_code == 1);
  CHECK_MESSAGE(contains(r.err, "no preprocessor_config.json"), r.err);
  // A processor step attnviz does not apply, and a nearest-neighbour resize.
  std::ofstream(tmp / "m/preprocessor_config.json")
      << R"({"image_processor_type": "ViTImageProcessor", "do_resize": true,
             "size": {"height": 16, "width": 16}, "resample": 2, "do_pad": true})";
  r = run_attnviz(m + "tests/fixtures/images/vit_jpeg_bilinear/image.jpg");
  CHECK(r.exit_code == 1);
  CHECK_MESSAGE(contains(r.err, "do_pad = true: expected false"), r.err);
  std::ofstream(tmp / "m/preprocessor_config.json")
      << R"({"image_processor_type": "ViTImageProcessor", "do_resize": true,
             "size": {"height": 16, "width": 16}, "resample": 0})";
  r = run_attnviz(m + "tests/fixtures/images/vit_jpeg_bilinear/image.jpg");
  CHECK(r.exit_code == 1);
  CHECK_MESSAGE(contains(r.err, "resample = 0: expected 1 (lanczos)"), r.err);
  // A number past int's range (found by fuzz_image_processor: converting it was undefined).
  std::ofstream(tmp / "m/preprocessor_config.json")
      << R"({"image_processor_type": "ViTImageProcessor", "size": 16, "resample": 2.68627e10})";
  r = run_attnviz(m + "tests/fixtures/images/vit_jpeg_bilinear/image.jpg");
  CHECK(r.exit_code == 1);
  CHECK_MESSAGE(contains(r.err, "resample = 26862700000.0: expected 1 (lanczos)"), r.err);
  // A processor class whose steps attnviz does not know, and a file that names none.
  std::ofstream(tmp / "m/preprocessor_config.json")
      << R"({"image_processor_type": "LlavaNextImageProcessor", "size": 16, "resample": 3})";
  r = run_attnviz(m + "tests/fixtures/images/vit_jpeg_bilinear/image.jpg");
  CHECK(r.exit_code == 1);
  CHECK_MESSAGE(contains(r.err, "image_processor_type 'LlavaNextImageProcessor': expected"), r.err);
  std::ofstream(tmp / "m/preprocessor_config.json") << R"({"size": 16, "resample": 3})";
  r = run_attnviz(m + "tests/fixtures/images/vit_jpeg_bilinear/image.jpg");
  CHECK(r.exit_code == 1);
  CHECK_MESSAGE(contains(r.err, "image_processor_type (missing)"), r.err);
  // --image with another input, and on a text model.
  r = run_attnviz(m + "tests/fixtures/images/vit_jpeg_bilinear/image.jpg --ids '1 2'");
  CHECK(r.exit_code == 2);
  CHECK_MESSAGE(contains(r.err, "--image is the whole input"), r.err);
  r = run_attnviz(
      "run -m tests/fixtures/torch/hf_bert --image "
      "tests/fixtures/images/vit_jpeg_bilinear/image.jpg");
  CHECK(r.exit_code == 2);
  CHECK_MESSAGE(contains(r.err, "is not a vision model"), r.err);
}
