// Translation models' own traits beyond the PyTorch fixtures' maps (hf_marian, hf_marian_text in
// tests/test_pytorch_fixtures.cpp): Marian's logits with final_logits_bias against PyTorch, the
// half-split sinusoid by hand, and what a Marian folder may not hold — tied copies or stored
// sinusoid tables that differ, encoder and decoder settings that disagree, separate embeddings.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "attnviz/compute/embedding.hpp"
#include "attnviz/compute/forward.hpp"
#include "attnviz/compute/logits.hpp"
#include "attnviz/compute/positional.hpp"
#include "attnviz/inputs/tokens.hpp"
#include "attnviz/io/safetensors.hpp"
#include "attnviz/model/model.hpp"
#include "check_close.hpp"
#include "edited_fixture.hpp"
#include "error_of.hpp"
#include "run_cli.hpp"
#include "temp_dir.hpp"
#include "top5_fixture.hpp"
#include "torch_fixtures.hpp"

using namespace attnviz;
using attnviz::test::EditedFixture;
using attnviz::test::error_of;
using attnviz::test::k_torch;
using attnviz::test::run_attnviz;
using attnviz::test::TempDir;

namespace fs = std::filesystem;

namespace {

// hf_marian's files in a temporary folder, with `edit` applied to its tensors and `config` keys
// merged into its config.json.
struct EditedMarian : test::EditedFixture {
  explicit EditedMarian(const std::function<void(std::map<std::string, Tensor>&)>& edit,
                        const nlohmann::json& config = nlohmann::json::object())
      : EditedFixture("hf_marian", edit, config) {}
};

std::string load_error(const fs::path& dir) {
  return error_of([&] { (void)load_model(dir, {}); });
}

}  // namespace

TEST_CASE("marian: logits are lm_head + final_logits_bias, as PyTorch computes them") {
  const Model m = load_model(k_torch / "hf_marian", {});
  CHECK(m.config.layout == "marian");
  CHECK(m.config.decoder_start_id == 39);
  CHECK(m.config.sinusoid == SinusoidLayout::halves);
  REQUIRE(m.weights.embed.unembed_bias.size() == 40);
  const auto read_ids = [](const char* file) {
    return parse_ids(test::slurp(k_torch / "hf_marian" / file), file);
  };
  const auto src = read_ids("source_ids.txt"), tgt = read_ids("ids.txt");
  ForwardInputs in{embed_ids(m, tgt, std::vector<std::string>(tgt.size(), "t")),
                   embed_ids(m, src, std::vector<std::string>(src.size(), "s"), true),
                   {},
                   {}};
  in.source_mask.n_pad_keys = 1;
  const Matrix hidden = forward(m, in, {}, nullptr).hidden;
  const auto top = top_predictions(*unembedding(m), hidden, 5, 0, m.weights.embed.unembed_bias);
  test::check_top5(top, "hf_marian");
  // Without the bias the ranking moves: the bias is no zero buffer here.
  const auto unbiased = top_predictions(*unembedding(m), hidden, 5, 0);
  bool moved = false;
  for (size_t p = 0; p < top.size(); ++p) moved |= unbiased[p][0].logit != top[p][0].logit;
  CHECK(moved);
}

TEST_CASE("marian: the half-split sinusoid by hand, and positions says which layout") {
  // d = 5: sines in columns 0..2 (ω_i = 10000^(−2i/5), i = 0, 1, 2), cosines in 3..4 (i = 0, 1).
  const Matrix pe = sinusoidal_encoding(3, 5, 10000.0f, SinusoidLayout::halves);
  for (int p = 0; p < 3; ++p) {
    for (int i = 0; i < 3; ++i) {
      const double w = std::pow(10000.0, -2.0 * i / 5);
      CHECK(pe(p, i) == doctest::Approx(std::sin(p * w)).epsilon(1e-6));
      if (i < 2) CHECK(pe(p, 3 + i) == doctest::Approx(std::cos(p * w)).epsilon(1e-6));
    }
  }
  const auto r = run_attnviz("positions -m tests/fixtures/torch/hf_marian --positions 4");
  CHECK(r.exit_code == 0);
  // BART: the encoder's own table, from row 2.
  const auto bart = run_attnviz("positions -m tests/fixtures/torch/hf_bart --positions 4");
  CHECK(bart.exit_code == 0);
  CHECK(bart.out.find("the learned position table's rows (the encoder's) from row 2, d = 32") !=
        std::string::npos);
  CHECK(r.out.find("PE(p, i) = sin(p / 10000^(2i/d)), PE(p, 16 + i) = cos(p / 10000^(2i/d)), "
                   "d = 32 (sines, then cosines)") != std::string::npos);
}

TEST_CASE("marian: a folder whose copies, tables or settings disagree is refused") {
  EditedMarian copy([](auto& t) { t.at("model.decoder.embed_tokens.weight").data[7] += 1.0f; });
  CHECK(load_error(copy.dir.path())
            .find("tensors 'model.shared.weight' [40, 32] and 'model.decoder.embed_tokens.weight' "
                  "[40, 32] are both embed.token (tied copies in this family), but they differ") !=
        std::string::npos);
  EditedMarian positions([](auto& t) {  // both stacks' copies alike, unlike the sinusoid
    for (const char* stack : {"encoder", "decoder"})
      t.at(std::string("model.") + stack + ".embed_positions.weight").data[3 * 32 + 20] = 0.5f;
  });
  const Model m = load_model(positions.dir.path(), {});
  CHECK(error_of([&] { (void)embed_ids(m, {1, 2}, {"a", "b"}); }) == "(no error)");
  CHECK(error_of([&] {
          (void)embed_ids(m, {1, 2, 3, 4}, {"a", "b", "c", "d"});
        })
            .find("the stored sinusoidal table 'model.encoder.embed_positions.weight' holds 0.5 "
                  "at position 3, column 20") != std::string::npos);
  EditedMarian heads([](auto&) {}, {{"decoder_attention_heads", 2}});
  CHECK(load_error(heads.dir.path())
            .find("decoder_attention_heads = 2 contradicts encoder_attention_heads = 4") !=
        std::string::npos);
  EditedMarian separate([](auto&) {}, {{"share_encoder_decoder_embeddings", false}});
  CHECK(load_error(separate.dir.path()) ==
        "config share_encoder_decoder_embeddings = false: separate source and target embeddings "
        "(a target vocabulary of its own) is not supported");
  EditedMarian bias([](auto& t) { t.at("final_logits_bias").shape = {2, 20}; });
  CHECK(load_error(bias.dir.path()) ==
        "tensor 'final_logits_bias' has shape [2, 20], expected [40] or [1, 40] (vocab)");
  TempDir bare;  // the names alone fit three families: config.json's model_type decides
  fs::copy_file(k_torch / "hf_marian/model.safetensors", bare / "model.safetensors");
  CHECK(load_error(bare.path())
            .find("these tensor names are those of several families (marian, "
                  "bart, mbart, m2m_100), and no config.json says which") != std::string::npos);
  EditedMarian stray([](auto& t) {
    t.emplace("model.encoder.layernorm_embedding.weight", t.at("model.encoder.layers.0.fc2.bias"));
  });
  CHECK(load_error(stray.dir.path()).find("belong to no role of layout marian") !=
        std::string::npos);
}

TEST_CASE(
    "marian: a target text starts from decoder_start_token_id, each side's own .spm; mBART's is "
    "refused") {
  // The ids make_marian_fixtures.py's reference gives "Hello world" on each side.
  std::ifstream in(fs::path(ATTNVIZ_SOURCE_DIR) / "tests/fixtures/marian/expected.json");
  const nlohmann::json expected = nlohmann::json::parse(in);
  const nlohmann::json& hello = expected["cases"][1];
  REQUIRE(hello["text"] == "Hello world");
  nlohmann::json target = nlohmann::json::array({1599});  // <pad>, decoder_start_token_id
  for (const auto& id : hello["target"]["ids"]) target.push_back(id);
  TempDir dir;
  const auto r = run_attnviz(
      "run -m tests/fixtures/torch/hf_marian_text --tokenizer tests/fixtures/marian "
      "--source-text 'Hello world' --text 'Hello world' --no-heatmap --table none --save '" +
      (dir / "m.safetensors").string() + "'");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const SafetensorsFile saved = SafetensorsFile::open(dir / "m.safetensors");
  const auto& meta = saved.metadata();
  CHECK(nlohmann::json::parse(meta.at("encoder.ids")) == hello["source"]["ids"]);
  CHECK(nlohmann::json::parse(meta.at("decoder.ids")) == target);
  CHECK(hello["source"]["ids"] != hello["target"]["ids"]);  // the two .spm files differ here
  const auto labels = nlohmann::json::parse(meta.at("decoder.layer0.cross.query_labels"));
  CHECK(labels.front() == "<pad>");
  CHECK(labels.back() == "</s>");

  // mBART's decoder reads a target text's labels after their own last token, as
  // shift_tokens_right moves it first (not after decoder_start_token_id); the maps are PyTorch's
  // in the hf_mbart_text case.
  const auto nllb =
      nlohmann::json::parse(test::slurp(std::filesystem::path(ATTNVIZ_SOURCE_DIR) /
                                        "tests/fixtures/nllb_tokenizer/" / "expected.json"))
          .at("cases");
  const auto mbart = run_attnviz(
      "run -m tests/fixtures/torch/hf_mbart_text --tokenizer tests/fixtures/nllb_tokenizer "
      "--source-text 'x' --target-lang fra_Latn --text '" +
      nllb[1].at("text").get<std::string>() + "' --no-heatmap --table none --save '" +
      (dir / "b.safetensors").string() + "'");
  REQUIRE_MESSAGE(mbart.exit_code == 0, mbart.err);
  const auto mbart_labels = nllb[1].at("ids");  // fra_Latn … </s>
  auto decoder = nlohmann::json::array({mbart_labels.back()});
  for (const auto& id : mbart_labels) decoder.push_back(id);
  CHECK(mbart_labels.front() != mbart_labels.back());
  CHECK(nlohmann::json::parse(
            SafetensorsFile::open(dir / "b.safetensors").metadata().at("decoder.ids")) == decoder);
  // MBartTokenizer's models (mbart-large-cc25, -en-ro) start generating from
  // decoder_start_token_id, their target's code: --target-lang cannot start it after it.
  const auto cc25 = dir / "cc25";
  std::filesystem::create_directory(cc25);
  const auto nllb_dir = std::filesystem::path(ATTNVIZ_SOURCE_DIR) / "tests/fixtures/nllb_tokenizer";
  std::filesystem::copy_file(nllb_dir / "tokenizer.json", cc25 / "tokenizer.json");
  auto config = nlohmann::json::parse(test::slurp(nllb_dir / "tokenizer_config.json"));
  config["tokenizer_class"] = "MBartTokenizerFast";
  std::ofstream(cc25 / "tokenizer_config.json") << config.dump();
  const auto refused =
      run_attnviz("run -m tests/fixtures/torch/hf_mbart_text --tokenizer '" + cc25.string() +
                  "' --source-text 'x' --source-lang eng_Latn --target-lang fra_Latn --generate 2");
  CHECK(refused.exit_code == 2);
  CHECK(refused.err.find("--target-lang with --generate: MBartTokenizerFast puts a target's code "
                         "after its text") != std::string::npos);
  // The class's default source language, which this file's codes lack, is named as a default.
  const auto no_default = run_attnviz("run -m tests/fixtures/torch/hf_mbart_text --tokenizer '" +
                                      cc25.string() + "' --source-text 'x' --ids '2 0 7'");
  CHECK(no_default.exit_code == 2);
  CHECK(no_default.err.find("en_XX, MBartTokenizerFast's default source language (give "
                            "--source-lang), is not a language code of") != std::string::npos);
}

TEST_CASE("generate: Marian's greedy translation equals PyTorch's, and stops at the model's EOS") {
  TempDir dir;
  const std::string base =
      "run -m tests/fixtures/torch/hf_marian_text --tokenizer tests/fixtures/marian "
      "--source-text 'The cat sat on the mat.' --no-heatmap --table none ";
  const auto r =
      run_attnviz(base + "--generate 6 --save '" + (dir / "g.safetensors").string() + "'");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const auto expected =
      parse_ids(test::slurp(k_torch / "hf_marian_generate/generated_ids.txt"), "ids");
  const SafetensorsFile saved = SafetensorsFile::open(dir / "g.safetensors");
  CHECK(nlohmann::json::parse(saved.metadata().at("decoder.ids")).get<std::vector<int64_t>>() ==
        expected);
  CHECK(saved.metadata().at("decoder.generated_from") == "1");  // after decoder_start_token_id
  CHECK(r.err.find("note: generated 6 tokens (greedy): ") != std::string::npos);

  // A copy whose generation_config.json makes the first generated token its EOS, and asks for
  // what greedy decoding does not do.
  TempDir copy;
  for (const char* f : {"model.safetensors", "config.json"})
    fs::copy_file(k_torch / "hf_marian_text" / f, copy / f);
  std::ofstream(copy / "generation_config.json")
      << R"({"eos_token_id": )" << expected.at(1)
      << R"(, "num_beams": 4, "bad_words_ids": [[1599]], "max_length": 512})";
  const auto eos =
      run_attnviz("run -m '" + copy.path().string() +
                  "' --tokenizer tests/fixtures/marian --source-text 'The cat sat on the mat.' "
                  "--no-heatmap --table none --generate 5 --save '" +
                  (dir / "e.safetensors").string() + "'");
  REQUIRE_MESSAGE(eos.exit_code == 0, eos.err);
  CHECK(eos.err.find("generated 1 token (greedy, stopped at EOS)") != std::string::npos);
  CHECK(eos.err.find("generation_config.json asks for num_beams = 4, bad_words_ids = [[1599]]: "
                     "attnviz decodes greedily (one beam, the argmax at each step) and applies "
                     "none of them") != std::string::npos);

  // Refused: a model without an unembedding, and padding the target it appends to.
  CHECK(run_attnviz("run -m samples/transformer --source-ids '1 2' --ids '3' --generate 2")
            .exit_code == 2);
  CHECK(run_attnviz(base + "--text 'Die' --pad 1 --generate 2").exit_code == 2);
}

TEST_CASE("m2m100: fairseq's sinusoid by hand, pads at its zero row, and logits as PyTorch's") {
  // d = 7: h = 3, ω_i = 10000^(−i/2) = 1, 0.01, 0.0001; sines in columns 0–2, cosines in 3–5, a
  // zero column 6.
  const Matrix pe = sinusoidal_encoding(4, 7, 10000.0f, SinusoidLayout::fairseq);
  for (int p = 0; p < 4; ++p) {
    for (int i = 0; i < 3; ++i) {
      const double w = std::pow(10000.0, -i / 2.0);
      CHECK(pe(p, i) == doctest::Approx(std::sin(p * w)).epsilon(1e-6));
      CHECK(pe(p, 3 + i) == doctest::Approx(std::cos(p * w)).epsilon(1e-6));
    }
    CHECK(pe(p, 6) == 0.0f);
  }
  CHECK(error_of([] { (void)sinusoidal_encoding(2, 3, 10000.0f, SinusoidLayout::fairseq); }) ==
        "fairseq's sinusoid divides by ⌊d/2⌋ − 1: d_model 3 is too narrow");

  const Model m = load_model(k_torch / "hf_m2m100", {});
  CHECK(m.config.layout == "m2m100");
  CHECK(m.config.position_offset == 2);  // pad_token_id 1, then 1
  CHECK(m.config.position_pad_id == 1);
  CHECK(m.config.max_positions == 0);  // max_position_embeddings 16: the sinusoid grows
  CHECK(m.weights.embed.unembed_bias.size() == 0);
  // A pad token's row is its scaled embedding alone; the next token takes the position after the
  // last counted one.
  const Sequence s = embed_ids(m, {5, 1, 7}, {"a", "pad", "b"}, true);
  const float scale = std::sqrt(32.0f);
  const Matrix table = sinusoidal_encoding(4, 32, 10000.0f, SinusoidLayout::fairseq);
  test::check_close(Matrix(s.x.row(1)), Matrix(m.weights.embed.token->row(1) * scale), 1e-6f,
                    "pad row");
  test::check_close(Matrix(s.x.row(2)),
                    Matrix(m.weights.embed.token->row(7) * scale + table.row(3)), 1e-5f, "b");

  const auto read_ids = [](const char* file) {
    return parse_ids(test::slurp(k_torch / "hf_m2m100" / file), file);
  };
  const auto src = read_ids("source_ids.txt"), tgt = read_ids("ids.txt");
  ForwardInputs in{embed_ids(m, tgt, std::vector<std::string>(tgt.size(), "t")),
                   embed_ids(m, src, std::vector<std::string>(src.size(), "s"), true),
                   {},
                   {}};
  in.source_mask.n_pad_keys = 2;
  const Matrix hidden = forward(m, in, {}, nullptr).hidden;
  test::check_top5(model_predictions(m, hidden, 5), "hf_m2m100");
  const auto positions = run_attnviz("positions -m tests/fixtures/torch/hf_m2m100 --positions 3");
  REQUIRE_MESSAGE(positions.exit_code == 0, positions.err);
  CHECK(positions.out.find("ω_i = 10000^(−i/(16−1)), d = 32 (fairseq: sines, then cosines), "
                           "token k at p = 2 + k") != std::string::npos);
  EditedFixture stray("hf_m2m100", [](auto& t) {
    t.emplace("final_logits_bias", t.at("model.encoder.layers.0.fc2.bias"));
  });
  CHECK(error_of([&] { (void)load_model(stray.dir.path(), {}); }).find("final_logits_bias") !=
        std::string::npos);
  EditedFixture pad("hf_m2m100", [](auto&) {}, {{"pad_token_id", 40}});
  CHECK(error_of([&] {
          (void)load_model(pad.dir.path(), {});
        }).find("pad_token_id = 40: expected an id below the vocabulary's 40") !=
        std::string::npos);
}
