// `attnviz init --arch llama|mistral|qwen2|qwen3|gemma|gemma2|phi3`: each family's Hugging Face
// checkpoint and tokenizer, loaded back as that family and run from text.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "attnviz/inputs/tokenizer.hpp"
#include "attnviz/inputs/tokenizers/find_tokenizer.hpp"
#include "attnviz/inputs/tokenizers/pipeline/tokenizer_writer.hpp"
#include "attnviz/model/model.hpp"
#include "run_cli.hpp"
#include "temp_dir.hpp"

using namespace attnviz;
using attnviz::test::contains;
using attnviz::test::run_attnviz;
using attnviz::test::TempDir;

TEST_CASE(
    "init: the byte-level tokenizer.json gives one id per UTF-8 byte, after the family's BOS") {
  TempDir dir;
  std::ofstream(dir / "tokenizer.json")
      << byte_level_tokenizer_json({"<|begin_of_text|>", "<|end_of_text|>"}, "<|begin_of_text|>");
  const auto tokenizer = find_tokenizer(dir.path());
  REQUIRE(tokenizer);
  CHECK(tokenizer->vocab_size() == 258);
  // "hé!" is 68 C3 A9 21: ids are the bytes; the BOS is the first special (256); specials in the
  // text are split out as themselves.
  std::vector<int64_t> ids;
  for (const auto& p : tokenizer->encode("hé!<|end_of_text|>", true)) ids.push_back(p.id);
  CHECK(ids == std::vector<int64_t>{256, 0x68, 0xC3, 0xA9, 0x21, 257});
  std::vector<int64_t> plain;
  for (const auto& p : tokenizer->encode("a b", false)) plain.push_back(p.id);
  CHECK(plain == std::vector<int64_t>{0x61, 0x20, 0x62});
}

TEST_CASE(
    "init: every Hugging Face family is written in its layout and loads back as that family") {
  struct Family {
    const char* arch;
    const char* first_label;  // the BOS its tokenizer adds, or the first byte
    bool tied;
  };
  for (const Family f :
       {Family{"llama", "<|begin_of_text|>", true}, Family{"mistral", "<s>", false},
        Family{"qwen2", "H", true}, Family{"qwen3", "H", true}, Family{"gemma", "<bos>", true},
        Family{"gemma2", "<bos>", true}, Family{"phi3", "<s>", false}}) {
    CAPTURE(f.arch);
    TempDir dir;
    const auto init = run_attnviz(fmt::format(
        "init --arch {} --d-model 32 --heads 4 --layers 2 -o {}", f.arch, dir.path().string()));
    REQUIRE_MESSAGE(init.exit_code == 0, init.err);
    const Model m = load_model(dir.path(), {});
    CHECK(m.config.layout == (std::string(f.arch) == "gemma2" ? "gemma2" : f.arch));
    CHECK(m.config.n_kv_heads == 2);  // half the heads by default: GQA
    CHECK(m.config.tied_embeddings == f.tied);
    CHECK(m.config.vocab_size == find_tokenizer(dir.path())->vocab_size());
    // From text to figures: the tokenizer beside the weights, every map of layer 1 as PNG.
    const auto run =
        run_attnviz(fmt::format("run -m {} --text Hi --layer 1 --format csv --no-heatmap --png {}",
                                dir.path().string(), (dir / "figs").string()));
    CHECK_MESSAGE(run.exit_code == 0, run.err);
    CHECK_MESSAGE(contains(run.out, f.first_label), run.out);
    CHECK(std::filesystem::exists(dir / "figs" / "layer1.self.head3.png"));
    CHECK(std::filesystem::exists(dir / "figs" / "self.grid.png"));
  }
}

TEST_CASE(
    "init: a Hugging Face family refuses --vocab and a tokenizer that is not tokenizer.json") {
  TempDir dir;
  std::ofstream(dir / "words.txt") << "a b c\n";
  const auto vocab = run_attnviz(fmt::format("init --arch llama -o {} --vocab {}",
                                             (dir / "m").string(), (dir / "words.txt").string()));
  CHECK(vocab.exit_code == 2);
  CHECK_MESSAGE(contains(vocab.err, "the vocabulary is its tokenizer's (--tokenizer), not --vocab"),
                vocab.err);
  const auto other = run_attnviz(fmt::format("init --arch llama -o {} --tokenizer {}",
                                             (dir / "m").string(), (dir / "words.txt").string()));
  CHECK(other.exit_code != 0);
  CHECK(!std::filesystem::exists(dir / "m" / "model.safetensors"));
}

TEST_CASE("init: under GQA each query head's map is labelled with the key/value head it reads") {
  TempDir dir;
  REQUIRE(run_attnviz(
              fmt::format("init --arch llama --d-model 32 --heads 4 --kv-heads 2 --layers 1 -o {}",
                          dir.path().string()))
              .exit_code == 0);
  // 4 query heads over 2 key/value heads: heads 0, 1 read kv 0 and heads 2, 3 read kv 1
  // (repeat_kv).
  for (const auto& [head, kv] : {std::pair{1, 0}, std::pair{2, 1}}) {
    const auto r = run_attnviz(
        fmt::format("run -m {} --text Hi --head {} --table none", dir.path().string(), head));
    CHECK_MESSAGE(contains(r.out, fmt::format("layer 0 · self · head {} · kv {}", head, kv)),
                  r.out);
  }
}
