// --save carries the input's token ids and tokens (as the vocabulary spells them) beside the maps,
// so NumPy users can join the maps with their data. Read back from the file's own JSON header, as
// NumPy would, not through attnviz's reader.
#include <doctest/doctest.h>

#include <cstdint>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "run_cli.hpp"
#include "temp_dir.hpp"
#include "tiny_bpe.hpp"

using attnviz::test::make_tiny_bpe_model;
using attnviz::test::run_attnviz;
using attnviz::test::slurp;
using attnviz::test::TempDir;

namespace {

// The __metadata__ of a safetensors file: 8 bytes of little-endian header length, then the JSON.
nlohmann::json saved_metadata(const std::filesystem::path& file) {
  const std::string raw = slurp(file);
  REQUIRE(raw.size() >= 8);
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i)
    n = n * 256 + static_cast<unsigned char>(raw[static_cast<size_t>(i)]);
  REQUIRE(raw.size() >= 8 + n);
  return nlohmann::json::parse(raw.substr(8, n)).at("__metadata__");
}

}  // namespace

TEST_CASE(
    "save tokens: --text saves its ids and the vocabulary's tokens, the labels stay for display") {
  TempDir dir;
  const std::string model = make_tiny_bpe_model(dir);
  const auto r =
      run_attnviz("run -m '" + model + "' --text 'ab abc' --no-heatmap --table none --save '" +
                  (dir / "m.safetensors").string() + "'");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const nlohmann::json meta = saved_metadata(dir / "m.safetensors");
  // Worked out in tiny_bpe.hpp: "ab abc" is ab (4), Ġ (3), abc (6).
  CHECK(nlohmann::json::parse(meta.at("ids").get<std::string>()) ==
        nlohmann::json::array({4, 3, 6}));
  CHECK(nlohmann::json::parse(meta.at("tokens").get<std::string>()) ==
        nlohmann::json::array({"ab", "\u0120", "abc"}));
  CHECK(nlohmann::json::parse(meta.at("layer0.self.query_labels").get<std::string>()) ==
        nlohmann::json::array({"ab", "\u2423", "abc"}));
}

TEST_CASE("save tokens: a lone module given a source saves both sequences, embeddings save none") {
  TempDir dir;
  std::ofstream(dir / "vocab.txt") << "the cat sat on mat\n";
  const std::string model = (dir / "mha").string();
  REQUIRE(run_attnviz("init -o '" + model + "' --d-model 8 --heads 2 --vocab '" +
                      (dir / "vocab.txt").string() + "'")
              .exit_code == 0);
  const auto r = run_attnviz(
      "run -m '" + model + "' --ids '0 1' --source-ids '4 2 3' --no-heatmap --table none --save '" +
      (dir / "x.safetensors").string() + "'");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const nlohmann::json meta = saved_metadata(dir / "x.safetensors");
  CHECK(meta.at("ids") == "[0,1]");
  CHECK(meta.at("tokens") == R"(["the","cat"])");  // vocab.txt's lines 0 and 1
  CHECK(meta.at("source.ids") == "[4,2,3]");
  CHECK(meta.at("source.tokens") == R"(["mat","sat","on"])");
  // An encoder-decoder: each stack's own sequence, the encoder's the source. Without a tokenizer
  // or vocab.txt no id has a token: none are written.
  const auto stacks = run_attnviz(
      "run -m samples/transformer --ids '1 2 3' --source-ids '4 5' --no-heatmap "
      "--table none --save '" +
      (dir / "s.safetensors").string() + "'");
  REQUIRE_MESSAGE(stacks.exit_code == 0, stacks.err);
  const nlohmann::json both = saved_metadata(dir / "s.safetensors");
  CHECK(both.at("encoder.ids") == "[4,5]");
  CHECK(both.at("decoder.ids") == "[1,2,3]");
  CHECK(!both.contains("decoder.tokens"));
  CHECK(!both.contains("ids"));
  // samples/mha reads --tokens as hash vectors: there are no ids to save, and none are made up.
  const auto hashed =
      run_attnviz("run -m samples/mha -t samples/english.txt --no-heatmap --table none --save '" +
                  (dir / "h.safetensors").string() + "'");
  REQUIRE(hashed.exit_code == 0);
  CHECK(!saved_metadata(dir / "h.safetensors").contains("ids"));
}
