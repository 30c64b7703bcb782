// M2M100's tokenizer (tests/fixtures/make_m2m100_tokenizer_fixtures.py): sentencepiece.bpe.model's
// pieces through vocab.json and each side's language token first, against a reference written from
// transformers' tokenization_m2m_100.py over libsentencepiece's Python binding, on 54 texts in five
// languages; what the folder says (the codes, the vocabulary size), and what is refused.
#include <doctest/doctest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "attnviz/inputs/tokenizers/find_tokenizer.hpp"
#include "attnviz/inputs/tokenizers/language_codes.hpp"
#include "error_of.hpp"
#include "run_cli.hpp"
#include "temp_dir.hpp"

using namespace attnviz;
using attnviz::test::error_of;
using attnviz::test::TempDir;

namespace {

const std::filesystem::path k_dir =
    std::filesystem::path(ATTNVIZ_SOURCE_DIR) / "tests/fixtures/m2m100_tokenizer";

nlohmann::json read_json(const std::filesystem::path& file) {
  std::ifstream in(file);
  return nlohmann::json::parse(in);
}

std::vector<int64_t> ids_of(const Tokenizer& t, const std::string& text, bool special = true) {
  std::vector<int64_t> ids;
  for (const TokenPiece& p : t.encode(text, special)) ids.push_back(p.id);
  return ids;
}

}  // namespace

TEST_CASE("m2m100 tokenizer: each language's token first, the pieces through vocab.json") {
  const auto expected = read_json(k_dir / "expected.json");
  const std::shared_ptr<const Tokenizer> inner = find_tokenizer(k_dir);
  REQUIRE(inner);
  CHECK(inner->vocab_size() == expected.at("vocab_size").get<int64_t>());
  const auto codes = language_codes(k_dir);
  REQUIRE(codes);
  CHECK(codes->codes.size() == 100);
  CHECK(codes->default_source == "en");
  CHECK(codes->default_target == "fr");
  REQUIRE(expected.at("cases").size() >= 50);
  for (const auto& c : expected.at("cases")) {
    const std::string text = c.at("text"), lang = c.at("lang");
    CAPTURE(text);
    CAPTURE(lang);
    const auto t = with_language(inner, *codes, lang, "--source-lang");
    CHECK(ids_of(*t, text) == c.at("ids").get<std::vector<int64_t>>());
    if (lang == "en") CHECK(ids_of(*inner, text) == c.at("ids").get<std::vector<int64_t>>());
  }
  // The language token of "zu", the last code: len(vocab.json) + 99.
  const int64_t size = expected.at("vocab_json_size").get<int64_t>();
  CHECK(inner->token(size + 99) == "__zu__");
  CHECK(ids_of(*inner, "__zu__", false) == std::vector<int64_t>{size + 99});
  // Either file stands for the folder.
  for (const char* file : {"vocab.json", "sentencepiece.bpe.model"}) {
    CAPTURE(file);
    CHECK(find_tokenizer(k_dir / file)->description() == inner->description());
  }
}

TEST_CASE("m2m100 tokenizer: what it refuses") {
  const auto inner = find_tokenizer(k_dir);
  CHECK(error_of([&] { inner->encode("a __fr__ b", false); }).find("__fr__") != std::string::npos);
  TempDir dir;
  for (const char* f : {"vocab.json", "sentencepiece.bpe.model"})
    std::filesystem::copy_file(k_dir / f, dir / f);
  nlohmann::json config = read_json(k_dir / "tokenizer_config.json");
  config["language_codes"] = "m2m200";
  std::ofstream(dir / "tokenizer_config.json") << config.dump();
  CHECK(error_of([&] {
          find_tokenizer(dir.path());
        }).find("language_codes 'm2m200': expected m2m100 or wmt21") != std::string::npos);
  config["language_codes"] = "wmt21";
  config["src_lang"] = "fr";  // not a wmt21 code
  std::ofstream(dir / "tokenizer_config.json") << config.dump();
  CHECK(error_of([&] {
          find_tokenizer(dir.path());
        }).find("src_lang 'fr' is not one of the tokenizer's language codes") != std::string::npos);
  const auto r = test::run_attnviz("tokenize --tokenizer '" + k_dir.string() +
                                   "' --text 'The cat' --format json");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
}
