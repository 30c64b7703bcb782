// NLLB's language codes (tests/fixtures/make_nllb_tokenizer_fixtures.py): each side's text read
// with its language's code around it, against Hugging Face tokenizers' Rust core with the template
// NllbTokenizerFast sets for that language (also under legacy_behaviour); what the folder's
// tokenizer_config.json says (the default source language, the codes); and the CLI's
// --source-lang / --target-lang, with NLLB's generation started as forced_bos_token_id starts it.
#include <doctest/doctest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "attnviz/inputs/tokenizers/find_tokenizer.hpp"
#include "attnviz/inputs/tokenizers/language_codes.hpp"
#include "attnviz/inputs/tokens.hpp"
#include "attnviz/io/safetensors.hpp"
#include "error_of.hpp"
#include "run_cli.hpp"
#include "temp_dir.hpp"
#include "torch_fixtures.hpp"

using namespace attnviz;
using attnviz::test::contains;
using attnviz::test::error_of;
using attnviz::test::run_attnviz;
using attnviz::test::TempDir;

namespace {

const std::filesystem::path k_dir =
    std::filesystem::path(ATTNVIZ_SOURCE_DIR) / "tests/fixtures/nllb_tokenizer";

nlohmann::json read_json(const std::filesystem::path& file) {
  std::ifstream in(file);
  return nlohmann::json::parse(in);
}

// The fixture folder with tokenizer_config.json's keys replaced by `changes`.
struct EditedFolder {
  TempDir dir;
  explicit EditedFolder(const nlohmann::json& changes) {
    std::filesystem::copy_file(k_dir / "tokenizer.json", dir / "tokenizer.json");
    nlohmann::json config = read_json(k_dir / "tokenizer_config.json");
    config.update(changes);
    std::ofstream(dir / "tokenizer_config.json") << config.dump(1);
  }
};

std::vector<int64_t> ids_of(const Tokenizer& t, const std::string& text) {
  std::vector<int64_t> ids;
  for (const TokenPiece& p : t.encode(text, true)) ids.push_back(p.id);
  return ids;
}

}  // namespace

TEST_CASE("nllb tokenizer: each language's code around the text, as tokenizers gives it") {
  EditedFolder legacy(nlohmann::json{{"legacy_behaviour", true}});
  const auto cases = read_json(k_dir / "expected.json").at("cases");
  REQUIRE(cases.size() == 7);
  for (const auto& c : cases) {
    const bool is_legacy = c.at("legacy").get<bool>();
    const std::filesystem::path folder = is_legacy ? legacy.dir.path() : k_dir;
    const auto codes = language_codes(folder);
    REQUIRE(codes);
    CHECK(codes->code_first == !is_legacy);
    const std::shared_ptr<const Tokenizer> inner = find_tokenizer(folder);
    const auto t = with_language(inner, *codes, c.at("lang"), "--source-lang");
    CAPTURE(c.at("text").get<std::string>());
    CAPTURE(c.at("lang").get<std::string>());
    CHECK(ids_of(*t, c.at("text")) == c.at("ids").get<std::vector<int64_t>>());
    // Without special tokens, the text's own pieces: the saved template's eng_Latn is not added.
    CHECK(t->encode(c.at("text").get<std::string>(), false).size() == c.at("ids").size() - 2);
  }
}

TEST_CASE(
    "mbart tokenizers: mBART-50's code first, mBART's after </s>, as their classes set them") {
  // MBart50TokenizerFast.set_src_lang_special_tokens: prefix [code], suffix [</s>] — NLLB's
  // template; MBartTokenizerFast's: prefix [], suffix [</s>, code] — NLLB's legacy one. So the
  // expected ids of tokenizers' Rust core with those templates are theirs too, and
  // legacy_behaviour (NLLB's key) changes neither class.
  const auto cases = read_json(k_dir / "expected.json").at("cases");
  for (const char* cls :
       {"MBart50TokenizerFast", "MBart50Tokenizer", "MBartTokenizerFast", "MBartTokenizer"}) {
    CAPTURE(cls);
    const bool code_first = std::string(cls).starts_with("MBart50");
    EditedFolder folder(nlohmann::json{{"tokenizer_class", cls}, {"legacy_behaviour", code_first}});
    const auto codes = language_codes(folder.dir.path());
    REQUIRE(codes);
    CHECK(codes->code_first == code_first);
    CHECK(codes->default_source == "en_XX");  // both classes' default src_lang
    const std::shared_ptr<const Tokenizer> inner = find_tokenizer(folder.dir.path());
    for (const auto& c : cases) {
      if (c.at("legacy").get<bool>() == code_first) continue;
      const auto t = with_language(inner, *codes, c.at("lang"), "--source-lang");
      CAPTURE(c.at("text").get<std::string>());
      CHECK(ids_of(*t, c.at("text")) == c.at("ids").get<std::vector<int64_t>>());
    }
  }
}

TEST_CASE("nllb tokenizer: tokenizer_config.json's codes and defaults, and what is refused") {
  const auto codes = language_codes(k_dir);
  REQUIRE(codes);
  CHECK(codes->tokenizer_class == "NllbTokenizer");
  CHECK(codes->codes == std::vector<std::string>{"eng_Latn", "fra_Latn", "deu_Latn", "zho_Hans"});
  CHECK(codes->default_source == "eng_Latn");  // no src_lang: NllbTokenizerFast's default
  CHECK(codes->source_is_default);
  CHECK(codes->default_target.empty());  // tgt_lang null
  const std::shared_ptr<const Tokenizer> inner = find_tokenizer(k_dir);
  CHECK(error_of([&] { (void)with_language(inner, *codes, "spa_Latn", "--target-lang"); }) ==
        "--target-lang spa_Latn: not a language code of " +
            (k_dir / "tokenizer_config.json").string() +
            " (it knows eng_Latn, fra_Latn, deu_Latn, zho_Hans)");
  const auto none = with_language(inner, *codes, "", "--target-lang");
  CHECK(contains(error_of([&] { (void)none->encode("Hallo", true); }),
                 "(NllbTokenizer) marks each side's language with a code: give --target-lang (one "
                 "of eng_Latn, fra_Latn, deu_Latn, zho_Hans)"));
  EditedFolder src(nlohmann::json{{"src_lang", "fra_Latn"}});
  CHECK(language_codes(src.dir.path())->default_source == "fra_Latn");
  EditedFolder unknown(nlohmann::json{{"src_lang", "xxx_Latn"}});
  CHECK(contains(error_of([&] { (void)language_codes(unknown.dir.path()); }),
                 "src_lang 'xxx_Latn' is not among its additional_special_tokens"));
  EditedFolder empty(nlohmann::json{{"additional_special_tokens", nlohmann::json::array()}});
  CHECK(contains(
      error_of([&] { (void)language_codes(empty.dir.path()); }),
      "additional_special_tokens: expected the list of the NllbTokenizer's language codes"));
  EditedFolder other(nlohmann::json{{"tokenizer_class", "T5Tokenizer"}});
  CHECK_FALSE(language_codes(other.dir.path()));
}

TEST_CASE("nllb: --source-lang and --target-lang on the command line") {
  const std::string base =
      "run -m tests/fixtures/torch/hf_nllb_text --tokenizer tests/fixtures/nllb_tokenizer "
      "--source-text 'The cat sat on the mat.' --no-heatmap --table none ";
  TempDir dir;
  const auto saved = [&](const std::string& flags, const char* file) {
    const auto r = run_attnviz(base + flags + " --save '" + (dir / file).string() + "'");
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    return std::pair{SafetensorsFile::open(dir / file), r.err};
  };
  const auto cases = read_json(k_dir / "expected.json").at("cases");
  const auto [text, text_err] =
      saved("--target-lang fra_Latn --text 'Le chat est assis sur le tapis.'", "t.safetensors");
  CHECK(nlohmann::json::parse(text.metadata().at("encoder.ids")) == cases[0].at("ids"));
  nlohmann::json decoder = nlohmann::json::array({2});
  for (const auto& id : cases[1].at("ids")) decoder.push_back(id);
  CHECK(nlohmann::json::parse(text.metadata().at("decoder.ids")) == decoder);
  CHECK(contains(text_err,
                 "the source is read as eng_Latn (NllbTokenizer's default; --source-lang "
                 "chooses)"));
  // Generation into deu_Latn starts from </s>, deu_Latn; the ids are PyTorch's greedy ones.
  const auto [gen, gen_err] = saved("--target-lang deu_Latn --generate 5", "g.safetensors");
  const auto expected = parse_ids(test::slurp(test::k_torch / "hf_nllb_generate/generated_ids.txt"),
                                  "generated_ids.txt");
  CHECK(nlohmann::json::parse(gen.metadata().at("decoder.ids")).get<std::vector<int64_t>>() ==
        expected);
  CHECK(gen.metadata().at("decoder.generated_from") == "2");

  const auto refused = [&](const std::string& flags) {
    const auto r = run_attnviz(base + flags);
    CHECK(r.exit_code == 2);
    return r.err;
  };
  CHECK(contains(refused("--target-lang spa_Latn --text 'x'"),
                 "--target-lang spa_Latn: not a language code of"));
  CHECK(contains(refused("--text 'Le chat.'"), "give --target-lang"));
  CHECK(contains(refused("--target-lang fra_Latn --ids '2 5'"),
                 "--target-lang marks the target text's language, or starts --generate"));
  const auto marian = run_attnviz(
      "run -m tests/fixtures/torch/hf_marian_text --tokenizer tests/fixtures/marian "
      "--source-text 'Hello' --source-lang eng_Latn --text 'Hallo'");
  CHECK(marian.exit_code == 2);
  CHECK(contains(marian.err, "--source-lang: "));
  CHECK(contains(
      marian.err,
      "marks no language (attnviz reads the codes of NLLB's and mBART's tokenizer_class)"));
}
