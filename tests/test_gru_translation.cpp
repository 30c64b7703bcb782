// The translation tutorial's GRU model (samples/gru-translation, trained by its committed
// train_gru_translation.py with the tutorial's own modules): attnviz's greedy translations, their
// attention, the teacher-forced map and logits equal the script's forward passes; both sides'
// tokenizer.json give the ids of the tutorial's normalizeString and word lists, and of tokenizers'
// Rust core reading the same files (add_tokenizers_reference.js); and every file the
// family cannot compute is refused with the tensor or key it names.
#include <doctest/doctest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "attnviz/compute/forward.hpp"
#include "attnviz/compute/logits.hpp"
#include "attnviz/core/error.hpp"
#include "attnviz/inputs/tokenizers/find_tokenizer.hpp"
#include "attnviz/io/safetensors.hpp"
#include "attnviz/model/model.hpp"
#include "check_close.hpp"
#include "edited_fixture.hpp"
#include "run_cli.hpp"
#include "temp_dir.hpp"

using namespace attnviz;

namespace {

const std::string k_sample = std::string(ATTNVIZ_SOURCE_DIR) + "/samples/gru-translation";

nlohmann::json reference() {
  std::ifstream in(k_sample + "/reference.json");
  return nlohmann::json::parse(in);
}

std::vector<float> flat(const nlohmann::json& rows, size_t n_rows) {
  std::vector<float> out;
  for (size_t i = 0; i < n_rows; ++i)
    for (const auto& v : rows.at(i)) out.push_back(v.get<float>());
  return out;
}

void check_map(const std::vector<float>& got, const std::vector<float>& expected, float tol) {
  REQUIRE(got.size() == expected.size());
  const auto c =
      test::compare_close(got, expected, tol, [](size_t i) { return std::to_string(i); });
  CHECK_MESSAGE(c.mismatches == 0, c.mismatches << " differ, max " << c.worst << "\n" << c.first);
}

}  // namespace

TEST_CASE("gru translation: greedy translations and their attention are the tutorial's") {
  test::TempDir dir;
  const auto ref = reference();  // kept: a range-for over a temporary's member would dangle
  for (const auto& t : ref.at("translations")) {
    const std::string source = t.at("source_text");
    CAPTURE(source);
    const auto r = test::run_attnviz("run -m samples/gru-translation --source-text '" + source +
                                     "' --generate 12 --no-heatmap --table none --save '" +
                                     (dir / "g.safetensors").string() + "'");
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    CHECK(r.err.find("\"" + t.at("translation").get<std::string>() + " EOS\"") !=
          std::string::npos);
    const SafetensorsFile saved = SafetensorsFile::open(dir / "g.safetensors");
    CHECK(nlohmann::json::parse(saved.metadata().at("encoder.ids")) == t.at("source_ids"));
    auto decoder_ids = nlohmann::json::array({0});
    for (const auto& id : t.at("generated_ids")) decoder_ids.push_back(id);
    CHECK(nlohmann::json::parse(saved.metadata().at("decoder.ids")) == decoder_ids);
    CHECK(saved.metadata().at("decoder.layer0.cross.score").starts_with("additive"));
    // The only map: no self-attention in either GRU.
    CHECK_THROWS(saved.load("decoder.layer0.self.probs"));
    CHECK_THROWS(saved.load("encoder.layer0.self.probs"));
    const Tensor map = saved.load("decoder.layer0.cross.probs");  // [1, steps + 1, sources]
    const auto& expected = t.at("generated_attention");           // the steps up to EOS
    const size_t n = expected.size(), s = t.at("source_ids").size();
    REQUIRE(map.shape == std::vector<int64_t>{1, int64_t(n + 1), int64_t(s)});
    check_map(std::vector<float>(map.data.begin(), map.data.begin() + long(n * s)),
              flat(expected, n), 1e-5f);
  }
}

TEST_CASE("gru translation: teacher-forced map and logits are the tutorial's forward_step's") {
  const Model m = load_model(k_sample, {});
  const Config& c = m.config;
  CHECK(c.layout == "gru-bahdanau");
  CHECK(c.recurrent);
  CHECK(c.arch == Arch::encoder_decoder);
  CHECK(c.d_model == 64);
  CHECK(c.decoder_start_id == 0);
  const auto ref = reference();
  CHECK(c.vocab_size == 28);
  CHECK(m.weights.encoder.token->rows() == 55);
  for (const auto& t : ref.at("translations")) {
    const auto src = t.at("source_ids").get<std::vector<int64_t>>();
    const auto tgt = t.at("decoder_ids").get<std::vector<int64_t>>();
    CAPTURE(t.at("source_text").get<std::string>());
    ForwardInputs in{embed_ids(m, tgt, std::vector<std::string>(tgt.size(), "t")),
                     embed_ids(m, src, std::vector<std::string>(src.size(), "s"), true),
                     {},
                     {}};
    struct Probs final : AttentionSink {
      std::vector<float> values;
      int maps = 0;
      void begin_map(const MapInfo& info) override {
        ++maps;
        CHECK(info.additive != nullptr);
        CHECK(info.id.map_name() == "decoder.layer0.cross");
      }
      void on_block(const AttentionBlock& b) override {
        for (Eigen::Index i = 0; i < b.probs.rows(); ++i)
          for (Eigen::Index j = 0; j < b.probs.cols(); ++j) values.push_back(b.probs(i, j));
      }
    } probs;
    const ForwardResult r = forward(m, in, {}, &probs);
    CHECK(probs.maps == 1);
    check_map(probs.values, flat(t.at("teacher_forced_attention"), tgt.size()), 1e-5f);
    const auto top = model_predictions(m, r.hidden, 3);
    for (size_t i = 0; i < tgt.size(); ++i) {
      for (size_t k = 0; k < 3; ++k)
        CHECK(top[i][k].id == t.at("teacher_forced_logits_top").at(i).at(k).get<int64_t>());
    }
    Matrix logits = m.weights.embed.unembed->times_transposed(r.hidden.bottomRows(1));
    logits += m.weights.embed.unembed_bias;
    std::vector<float> last(logits.data(), logits.data() + logits.size());
    check_map(last, t.at("teacher_forced_logits_last").get<std::vector<float>>(), 1e-4f);
  }
}

TEST_CASE("gru translation: each side's tokenizer.json gives the tutorial's ids") {
  const auto ref = reference().at("texts");
  const auto source = find_tokenizer(k_sample);
  const auto target = find_target_tokenizer(k_sample);
  REQUIRE(source);
  REQUIRE(target);
  for (const auto& [side, tokenizer] :
       {std::pair{"source", source.get()}, std::pair{"target", target.get()}}) {
    CHECK(ref.at(side).size() >= 50);
    for (const auto& t : ref.at(side)) {
      const std::string text = t.at("text");
      CAPTURE(text);
      std::vector<int64_t> ids;
      for (const TokenPiece& piece : tokenizer->encode(text, true)) ids.push_back(piece.id);
      CHECK(ids == t.at("ids").get<std::vector<int64_t>>());             // the tutorial's functions
      CHECK(ids == t.at("tokenizers_ids").get<std::vector<int64_t>>());  // tokenizers' Rust core
    }
  }
  // Either file names the folder's two sides; one without the other is refused.
  CHECK(find_target_tokenizer(k_sample + "/source_tokenizer.json") != nullptr);
  test::TempDir dir;
  std::filesystem::copy_file(k_sample + "/source_tokenizer.json", dir / "source_tokenizer.json");
  const auto r =
      test::run_attnviz("tokenize --tokenizer '" + dir.path().string() + "' --text 'je'");
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("holds source_tokenizer.json but no target_tokenizer.json") !=
        std::string::npos);
}

TEST_CASE("gru translation: what the family cannot compute is refused, naming it") {
  const std::string src = "--source-text 'je suis content .' --text 'i am happy'";
  SUBCASE("a word the vocabulary lacks") {
    const auto r = test::run_attnviz(
        "run -m samples/gru-translation --source-text 'je suis bleu' "
        "--text 'i am'");
    CHECK(r.exit_code == 1);
    CHECK(r.err.find("source_tokenizer.json: the word 'bleu' is not in the vocabulary") !=
          std::string::npos);
  }
  SUBCASE("flags of the dot product or of masks") {
    for (const std::string flag : {"--qk-scale 0.5", "--source-pad 1", "--window 2", "--causal"}) {
      CAPTURE(flag);
      const auto r = test::run_attnviz("run -m samples/gru-translation " + src + " " + flag);
      CHECK(r.exit_code == 2);
      CHECK(r.err.find("attnviz: error:") != std::string::npos);
    }
    // The transformer flags, refused as the model loads (in process: the CLI passes them there).
    ConfigOverrides o[5];
    o[0].n_heads = 4;
    o[1].norm_first = true;
    o[2].activation = "gelu";
    o[3].layer_norm_eps = 1e-6f;
    o[4].pe_base = 100.0f;
    for (const auto& flags : o) {
      try {
        load_model(k_sample, flags);
        FAIL("the flag was not refused");
      } catch (const Error& e) {
        CHECK(e.exit_code() == 2);
        CHECK(std::string(e.what()).find("it has no heads, norms, feed-forward layers or "
                                         "positional encoding") != std::string::npos);
      }
    }
  }
  SUBCASE("tensors and keys") {
    const auto copy = [](std::map<std::string, Tensor>&) {};
    struct Case {
      std::string what;
      std::function<void(std::map<std::string, Tensor>&)> edit;
      nlohmann::json config;
      std::string message;
    };
    const std::vector<Case> cases = {
        {"missing Ua.bias", [](auto& t) { t.erase("decoder.attention.Ua.bias"); },
         nlohmann::json::object(), "decoder.attention.Ua.bias"},
        {"a second GRU layer",
         [](auto& t) { t.emplace("encoder.gru.weight_ih_l1", t.at("encoder.gru.weight_ih_l0")); },
         nlohmann::json::object(), "encoder.gru.weight_ih_l1"},
        {"a narrower Ua",
         [](auto& t) {
           Tensor& u = t.at("decoder.attention.Ua.weight");
           u.shape = {64, 32};
           u.data.resize(64 * 32);
         },
         nlohmann::json::object(), "decoder.attention.Ua.weight"},
        {"a declared hidden size", copy, {{"hidden_size", 128}}, "hidden_size"},
        {"bidirectional", copy, {{"bidirectional", true}}, "bidirectional"},
        {"num_layers", copy, {{"num_layers", 2}}, "num_layers"},
        {"a start id past the vocabulary",
         copy,
         {{"decoder_start_token_id", 99}},
         "decoder_start_token_id"},
    };
    for (const auto& c : cases) {
      CAPTURE(c.what);
      const test::EditedFixture f(k_sample, c.edit, c.config);
      try {
        load_model(f.dir.path(), {});
        FAIL("the file was not refused");
      } catch (const Error& e) {
        CHECK(e.exit_code() == 1);
        CHECK_MESSAGE(std::string(e.what()).find(c.message) != std::string::npos, e.what());
      }
    }
  }
}

TEST_CASE("gru translation: generation continues a target text, not its EOS; stats has no q·k") {
  const auto r = test::run_attnviz(
      "run -m samples/gru-translation --source-text 'je ne suis pas très fatigué .' --text 'i am' "
      "--generate 5 --no-heatmap --table none");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.err.find("continues the target text without the EOS") != std::string::npos);
  CHECK(r.err.find("\"not very tired EOS\"") != std::string::npos);
  const auto stats = test::run_attnviz(
      "stats -m samples/gru-translation --source-text 'je suis content .' --text 'i am happy' "
      "--format json");
  REQUIRE_MESSAGE(stats.exit_code == 0, stats.err);
  const auto head = nlohmann::json::parse(stats.out).at("heads").at(0);
  CHECK(head.at("score") == "additive");
  CHECK(head.at("scale").is_null());
  CHECK(head.at("logits").at("raw_mean") == "nan");  // no q·k: JSON's non-finite spelling
  CHECK(head.at("logits").at("raw_variance") == "nan");
  CHECK(head.at("unscaled").at("choice_rows") == 0);
}

TEST_CASE("gru translation: explain works the additive score out to the model's") {
  const auto r = test::run_attnviz(
      "explain -m samples/gru-translation --source-text 'je ne suis pas très fatigué .' --text "
      "'i am not very tired' --site cross --head 0 --cell 2,3 --format json");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j.at("score") == "additive");
  const auto& cell = j.at("cell");
  CHECK(cell.at("score").get<double>() ==
        doctest::Approx(cell.at("model_score").get<double>()).epsilon(1e-5));
  CHECK(cell.at("weight").get<double>() ==
        doctest::Approx(cell.at("model_weight").get<double>()).epsilon(1e-5));
  // The model's weight is the tutorial's forward_step's (the step that reads "am" looks at "pas").
  const auto ref = reference();
  const auto& t = ref.at("translations").at(0);
  REQUIRE(t.at("source_text") == "je ne suis pas très fatigué .");
  CHECK(cell.at("model_weight").get<double>() ==
        doctest::Approx(t.at("teacher_forced_attention").at(2).at(3).get<double>()).epsilon(1e-5));
  const auto text = test::run_attnviz(
      "explain -m samples/gru-translation --source-text 'je suis content .' --text 'i am happy' "
      "--site cross --head 0 --cell 1,1");
  REQUIRE(text.exit_code == 0);
  CHECK(text.out.find("v·tanh(q_i + k_j) + b") != std::string::npos);
  CHECK(text.out.find("Beside the dot product") != std::string::npos);
}
