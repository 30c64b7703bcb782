// T5's tokenizer on a real SentencePiece vocabulary with the nmt_nfkc rules
// (tests/fixtures/make_t5_tokenizer_fixtures.py): the folder's tokenizer.json, whose Precompiled
// normalizer carries the rules, against Hugging Face tokenizers' Rust core (npm tokenizers 0.23.2)
// on every text; its spiece.model against libsentencepiece with </s> appended (T5Tokenizer); and
// the charsmap's rules against NFKC worked out by hand.
#include <doctest/doctest.h>

#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "attnviz/core/base64.hpp"
#include "attnviz/inputs/tokenizers/find_tokenizer.hpp"
#include "attnviz/inputs/tokenizers/pipeline/precompiled_charsmap.hpp"
#include "error_of.hpp"

using namespace attnviz;
using attnviz::test::error_of;

namespace {

const std::filesystem::path k_dir =
    std::filesystem::path(ATTNVIZ_SOURCE_DIR) / "tests/fixtures/t5_tokenizer";

nlohmann::json read_json(const std::string& name) {
  std::ifstream in(k_dir / name);
  return nlohmann::json::parse(in);
}

std::vector<int64_t> ids_of(const Tokenizer& t, const std::string& text) {
  std::vector<int64_t> ids;
  for (const TokenPiece& p : t.encode(text, true)) ids.push_back(p.id);
  return ids;
}

bool writes_special(const std::string& text) {
  return text.find("</s>") != std::string::npos || text.find("<extra_id_") != std::string::npos ||
         text.find("<unk>") != std::string::npos;
}

}  // namespace

TEST_CASE("t5 tokenizer: tokenizer.json with its Precompiled rules gives tokenizers' ids") {
  const auto tokenizer = find_tokenizer(k_dir);  // tokenizer.json first, as transformers does
  const auto expected = read_json("expected.json");
  REQUIRE(expected.at("cases").size() == 42);
  int nfkc_changed = 0;
  for (const auto& c : expected.at("cases")) {
    const auto text = c.at("text").get<std::string>();
    CAPTURE(text);
    CHECK(ids_of(*tokenizer, text) == c.at("tokenizer_json").get<std::vector<int64_t>>());
    nfkc_changed += c.at("tokenizer_json") != c.at("spiece");
  }
  // The two references differ where tokenizers reads the rules per grapheme cluster and
  // libsentencepiece by longest match (half-width katakana with its voiced mark, stacked marks),
  // and where the fast tokenizer splits out special tokens written in the text.
  CHECK(nfkc_changed == 5);
}

TEST_CASE(
    "t5 tokenizer: spiece.model gives libsentencepiece's ids with </s>, special text refused") {
  const auto tokenizer = find_tokenizer(k_dir / "spiece.model");
  int compared = 0;
  const auto expected = read_json("expected.json");
  for (const auto& c : expected.at("cases")) {
    const auto text = c.at("text").get<std::string>();
    CAPTURE(text);
    if (writes_special(text)) {
      CHECK(error_of([&] { (void)tokenizer->encode(text, true); }) != "(no error)");
      continue;
    }
    CHECK(ids_of(*tokenizer, text) == c.at("spiece").get<std::vector<int64_t>>());
    ++compared;
  }
  CHECK(compared == 39);
}

TEST_CASE("t5 tokenizer: four rules by hand, clusters as tokenizers reads them") {
  // rules.tsv: Ａ → A, ﬁ → fi, A + U+0301 → Á, U+3000 → space, compiled by spm_train.
  std::ifstream in(k_dir / "rules.charsmap", std::ios::binary);
  const std::string blob((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const PrecompiledCharsmap map(blob, "rules.charsmap");
  CHECK(map.transform("\uff21") == "A");
  CHECK(map.transform("A\u0301") == "\u00c1");
  CHECK(map.transform("A") == std::nullopt);  // only the pair has a rule
  CHECK(map.transform("\ufb01") == "fi");
  // What tokenizers 0.23.2 made of each text with this charsmap (expected.json's "rules"): a
  // cluster under 6 bytes takes its shortest rule whole, so Ａ + U+0301 loses its accent.
  const auto rules = read_json("expected.json").at("rules");
  REQUIRE(rules.size() == 6);
  for (const auto& r : rules) {
    const auto text = r.at("text").get<std::string>();
    CAPTURE(text);
    CHECK(map.normalize(NormalizedText::of_input(text)).text ==
          r.at("normalized").get<std::string>());
  }
  CHECK(rules[0].at("normalized") == "Ax");
}

TEST_CASE("t5 tokenizer: the charsmap's rules are NFKC's, the shortest rule of a cluster wins") {
  const auto spec = read_json("tokenizer.json").at("normalizer").at("normalizers").at(0);
  REQUIRE(spec.at("type") == "Precompiled");
  const auto bytes = base64_decode(spec.at("precompiled_charsmap").get<std::string>());
  REQUIRE(bytes);
  const PrecompiledCharsmap map(*bytes, "t5");
  CHECK(map.transform("\uff21") == "A");      // FULLWIDTH LATIN CAPITAL LETTER A
  CHECK(map.transform("\ufb01") == "fi");     // LATIN SMALL LIGATURE FI
  CHECK(map.transform("\u2460") == "1");      // CIRCLED DIGIT ONE
  CHECK(map.transform("\u3000") == " ");      // IDEOGRAPHIC SPACE
  CHECK(map.transform("a") == std::nullopt);  // no rule
  CHECK(map.transform("\uff21b") == "A");     // a prefix's rule: "b" is left to the caller
  const auto normalize = [&](const std::string& s) {
    return map.normalize(NormalizedText::of_input(s)).text;
  };
  CHECK(normalize("ＡＢＣ ﬁ ½") == "ABC fi 1⁄2");
  CHECK(normalize("plain text") == "plain text");
  // Origins: "ﬁ" (3 bytes) became "fi", both bytes from input bytes [0, 3).
  const NormalizedText t = map.normalize(NormalizedText::of_input("\ufb01x"));
  CHECK(t.text == "fix");
  CHECK(t.origin == std::vector<size_t>{0, 0, 3, 4});
  // A damaged blob: a trie announced larger than the blob, or replacements that are not UTF-8.
  CHECK(error_of([&] { PrecompiledCharsmap(std::string("\x10\0\0\0", 4), "f"); }) ==
        "f: SentencePiece's precompiled charsmap: its trie is 16 bytes, expected a positive "
        "multiple of 4 within the 0 bytes after the size");
  std::string broken = bytes->substr(0, 4 + 4 * 8);
  broken.replace(0, 4, std::string("\x20\0\0\0", 4));
  CHECK(error_of([&] { PrecompiledCharsmap(broken + "\xff", "f"); }) ==
        "f: SentencePiece's precompiled charsmap: its replacements are not valid UTF-8 (byte 0 of "
        "1)");
}
