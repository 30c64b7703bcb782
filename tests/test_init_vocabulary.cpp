// init sizes a model's token table so the model can take text: from --tokenizer (copied beside the
// weights with its tokenizer_config.json), from --vocab, or for GPT-2 from a byte-level tokenizer
// of its own; what cannot work (BERT without a vocabulary, a tokenizer no table would use, two
// vocabularies) is refused at init time.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "attnviz/io/safetensors.hpp"
#include "run_cli.hpp"
#include "temp_dir.hpp"

using attnviz::SafetensorsFile;
using attnviz::test::contains;
using attnviz::test::run_attnviz;
using attnviz::test::slurp;
using attnviz::test::TempDir;

namespace {

const std::string k_small = " --d-model 8 --heads 2 --layers 1";

nlohmann::json saved_ids(const std::string& model, const std::string& text,
                         const std::filesystem::path& out) {
  const auto r = run_attnviz("run -m '" + model + "' --text '" + text +
                             "' --no-heatmap --table none --save '" + out.string() + "'");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  return nlohmann::json::parse(SafetensorsFile::open(out).metadata().at("ids"));
}

}  // namespace

TEST_CASE(
    "init vocabulary: gpt2 without --vocab gets a byte-level tokenizer and a table of its 257 "
    "ids") {
  TempDir dir;
  const std::string model = (dir / "g").string();
  const auto init = run_attnviz("init --arch gpt2 -o '" + model + "'" + k_small);
  REQUIRE_MESSAGE(init.exit_code == 0, init.err);
  // 256 bytes and <|endoftext|>, GPT-2's one special token.
  CHECK(nlohmann::json::parse(slurp(dir / "g" / "config.json"))["vocab_size"] == 257);
  CHECK(SafetensorsFile::open(dir / "g" / "model.safetensors").find("wte.weight")->shape ==
        std::vector<int64_t>{257, 8});
  CHECK(saved_ids(model, "hi", dir / "m.safetensors") ==
        nlohmann::json::array({104, 105}));  // 'h', 'i'; no BOS
}

TEST_CASE(
    "init vocabulary: --tokenizer sizes mha, decoder, gpt2 and bert tables and copies its config") {
  TempDir dir;
  // A tokenizer.json of 258 ids (256 bytes, then <|begin_of_text|> and <|end_of_text|>): Llama's
  // default.
  REQUIRE(run_attnviz("init --arch llama -o '" + (dir / "src").string() + "'" + k_small +
                      " --kv-heads 1")
              .exit_code == 0);
  std::ofstream(dir / "src" / "tokenizer_config.json")
      << R"({"add_bos_token": true, "bos_token": "<|begin_of_text|>"})";
  const std::string tokenizer = (dir / "src" / "tokenizer.json").string();
  const struct {
    const char* arch;
    const char* table;
  } cases[] = {{"mha", "embed.weight"},
               {"decoder", "transformer.wte.weight"},
               {"gpt2", "wte.weight"},
               {"bert", "embeddings.word_embeddings.weight"}};
  for (const auto& c : cases) {
    CAPTURE(c.arch);
    const std::string model = (dir / c.arch).string();
    const auto init = run_attnviz(std::string("init --arch ") + c.arch + " -o '" + model +
                                  "' --tokenizer '" + tokenizer + "'" + k_small);
    REQUIRE_MESSAGE(init.exit_code == 0, init.err);
    CHECK(SafetensorsFile::open(dir / c.arch / "model.safetensors").find(c.table)->shape ==
          std::vector<int64_t>{258, 8});
    CHECK(slurp(dir / c.arch / "tokenizer.json") == slurp(tokenizer));
    CHECK(slurp(dir / c.arch / "tokenizer_config.json") ==
          slurp(dir / "src" / "tokenizer_config.json"));
    // "hi" is bytes 104, 105 after the BOS (id 256) its post-processor adds.
    CHECK(saved_ids(model, "hi", dir / (std::string(c.arch) + ".safetensors")) ==
          nlohmann::json::array({256, 104, 105}));
  }
}

namespace {

struct Refusal {
  std::string args, message;
};

// Each case's init exits 2 with its message and writes nothing.
void check_refused(const TempDir& dir, const std::vector<Refusal>& cases) {
  for (const auto& c : cases) {
    CAPTURE(c.args);
    const auto r = run_attnviz("init -o '" + (dir / "out").string() + "' " + c.args + k_small);
    CHECK(r.exit_code == 2);
    CHECK_MESSAGE(contains(r.err, c.message), r.err);
    CHECK(!std::filesystem::exists(dir / "out"));
  }
}

}  // namespace

TEST_CASE(
    "init vocabulary: what no table can use is refused at init time, exit 2, with nothing "
    "written") {
  TempDir dir;
  REQUIRE(run_attnviz("init --arch llama -o '" + (dir / "src").string() + "'" + k_small +
                      " --kv-heads 1")
              .exit_code == 0);
  const std::string tokenizer = " --tokenizer '" + (dir / "src" / "tokenizer.json").string() + "'";
  std::ofstream(dir / "v.txt") << "a b c\n";
  const std::vector<Refusal> cases = {
      {"--arch bert",
       "init --arch bert: its embedding table needs a vocabulary to size it: give --tokenizer "
       "tokenizer.json or --vocab FILE"},
      {"--arch encoder" + tokenizer,
       "init --tokenizer: --arch encoder (layout torch-encoder) holds no embedding table to size "
       "from it; use --arch gpt2, decoder, bert, llama,"},
      {"--arch encoder-decoder" + tokenizer, "holds no embedding table"},
      {"--arch gpt2 --vocab '" + (dir / "v.txt").string() + "'" + tokenizer,
       "init: --vocab and --tokenizer both give the vocabulary: give one"},
      {"--arch encoder --vocab '" + (dir / "v.txt").string() + "'",
       "init --vocab: --arch encoder (layout torch-encoder) holds no embedding table; use "
       "--arch gpt2, decoder, bert or mha"},
      {"--arch llama --vocab '" + (dir / "v.txt").string() + "'",
       "init --arch llama: the vocabulary is its tokenizer's (--tokenizer), not --vocab"},
  };
  check_refused(dir, cases);
}

TEST_CASE("init flags: a flag that shapes another kind of model is refused, exit 2, not ignored") {
  TempDir dir;
  const std::vector<Refusal> cases = {
      {"--arch gpt2 --kv-heads 2",
       "init --kv-heads: --arch gpt2 has no use for it (it shapes llama, mistral"},
      {"--arch encoder --kv-heads 2", "init --kv-heads: --arch encoder has no use for it"},
      {"--arch llama --no-out-proj",
       "init --no-out-proj: --arch llama has no use for it (it "
       "shapes mha only)"},
      {"--arch decoder --d-qk 8", "init --d-qk: --arch decoder has no use for it"},
      {"--arch bert --d-v 8", "init --d-v: --arch bert has no use for it"},
      {"--arch mha --d-ff 8",
       "init --d-ff: --arch mha has no use for it (it shapes a "
       "feed-forward layer, which mha has not)"},
      {"--arch gpt2 --norm-first",
       "init --norm-first: --arch gpt2 has no use for it (it shapes "
       "encoder-decoder or encoder only)"},
  };
  check_refused(dir, cases);
  // Where they apply they shape the model: --max-positions is the Llama line's
  // max_position_embeddings, the longest input the model then takes.
  REQUIRE(
      run_attnviz("init --arch llama --max-positions 3 -o '" + (dir / "m").string() + "'" + k_small)
          .exit_code == 0);
  CHECK(nlohmann::json::parse(attnviz::test::slurp(dir / "m" / "config.json"))
            .at("max_position_embeddings") == 3);
  const auto r = run_attnviz("run --model '" + (dir / "m").string() + "' --text 'abcdef'");
  CHECK(r.exit_code == 1);
  CHECK_MESSAGE(
      contains(r.err, "ids: 7 tokens, but the model accepts at most 3 (" + (dir / "m").string() +
                          "/config.json: max_position_embeddings = 3)"),
      r.err);
}
