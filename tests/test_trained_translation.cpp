// The trained translation sample (samples/translation, trained by train_translation.py): for each
// of the docs' sentences, attnviz's greedy translation equals the script's own forward pass, token
// for token, and so does its cross-attention map (decoder layer 1, head 0) over the whole sequence;
// the script's held-out accuracy says the model learned the language.
#include <doctest/doctest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "attnviz/io/safetensors.hpp"
#include "check_close.hpp"
#include "run_cli.hpp"
#include "temp_dir.hpp"

using namespace attnviz;

TEST_CASE(
    "trained translation: attnviz's greedy translation and cross-attention are the script's") {
  std::ifstream in(std::string(ATTNVIZ_SOURCE_DIR) + "/samples/translation/reference.json");
  const auto reference = nlohmann::json::parse(in);
  CHECK(reference.at("training").at("held_out_exact").get<int>() >= 195);  // of 200
  test::TempDir dir;
  for (const auto& s : reference.at("sentences")) {
    const std::string source = s.at("source");
    CAPTURE(source);
    const auto r = test::run_attnviz(
        "run -m samples/translation --source-text '" + source +
        "' --generate 16 --layer 1 --site cross --head 0 --no-heatmap --table none --save '" +
        (dir / "t.safetensors").string() + "'");
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    const SafetensorsFile saved = SafetensorsFile::open(dir / "t.safetensors");
    CHECK(nlohmann::json::parse(saved.metadata().at("encoder.ids")) == s.at("source_ids"));
    CHECK(nlohmann::json::parse(saved.metadata().at("decoder.ids")) == s.at("greedy_ids"));
    const Tensor map = saved.load("decoder.layer1.cross.probs");  // [1 head, targets, sources]
    const auto& expected = s.at("cross_layer1_head0");
    REQUIRE(map.shape ==
            std::vector<int64_t>{1, int64_t(expected.size()), int64_t(expected.at(0).size())});
    std::vector<float> flat;
    for (const auto& row : expected)
      for (const auto& v : row) flat.push_back(v.get<float>());
    const auto c =
        test::compare_close(map.data, flat, 1e-5f, [](size_t i) { return std::to_string(i); });
    CHECK_MESSAGE(c.mismatches == 0, c.mismatches << " differ, max " << c.worst << "\n" << c.first);
  }
}
