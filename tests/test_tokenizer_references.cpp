// Real vocabularies (scripts/fetch-vocabularies.sh) against independent reference tokenizers: every
// tests/fixtures/tokenizers/<name>.json (tests/fixtures/make_tokenizer_references.mjs) gives, for
// its vocabulary folder, the ids of a reference implementation on each text of the corpus, with and
// without the special tokens the tokenizer adds, and the count and sha256 of its ids on
// tests/fixtures/corpus/long.txt (1 MB). A vocabulary that is missing, or that find_tokenizer does
// not read, is a failure: never a skip.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "attnviz/core/unicode.hpp"
#include "attnviz/inputs/tokenizer.hpp"
#include "attnviz/inputs/tokenizers/find_tokenizer.hpp"
#include "attnviz/io/json.hpp"
#include "attnviz/io/text_file.hpp"
#include "sha256.hpp"

using namespace attnviz;
namespace fs = std::filesystem;

namespace {

const fs::path k_fixtures = fs::path(ATTNVIZ_SOURCE_DIR) / "tests/fixtures";

// Every fixture make_tokenizer_references.mjs writes.
const std::set<std::string> k_names = {"gpt2",    "gpt2-json", "llama3",       "llama2",
                                       "qwen2_5", "gemma",     "bert-uncased", "bert-uncased-json"};

std::string ids_text(const std::vector<int64_t>& ids) {
  std::string text;
  for (const int64_t id : ids) text += (text.empty() ? "" : ",") + std::to_string(id);
  return text;
}

// "at 3: attnviz 1234 '␣cat' (bytes 4..8), reference 5678 'Ġcats'" for the first position the ids
// differ at (or where one list ends).
std::string first_difference(std::string_view text, const std::vector<TokenPiece>& pieces,
                             const std::vector<int64_t>& ids,
                             const std::vector<std::string>& tokens) {
  size_t at = 0;
  while (at < pieces.size() && at < ids.size() && pieces[at].id == ids[at]) ++at;
  const std::string ours =
      at < pieces.size()
          ? fmt::format(
                "{} '{}' (bytes {}..{}: '{}')", pieces[at].id, pieces[at].label, pieces[at].begin,
                pieces[at].end,
                printable_text(text.substr(pieces[at].begin, pieces[at].end - pieces[at].begin)))
          : std::string("nothing (attnviz's ids end here)");
  const std::string theirs = at < ids.size()
                                 ? fmt::format("{} '{}'", ids[at], printable_text(tokens.at(at)))
                                 : std::string("nothing (the reference's ids end here)");
  return fmt::format(
      "first difference at position {}: attnviz {}, reference {}; attnviz's ids [{}], "
      "reference's [{}]",
      at, ours, theirs, ids_text([&] {
        std::vector<int64_t> got;
        for (const auto& piece : pieces) got.push_back(piece.id);
        return got;
      }()),
      ids_text(ids));
}

void check_fixture(const std::string& name) {
  const auto fixture = read_json_file(k_fixtures / "tokenizers" / (name + ".json"));
  const auto folder = fixture.at("tokenizer").get<std::string>();
  const auto reference = fixture.at("reference").get<std::string>();
  const fs::path dir = k_fixtures / "vocab" / folder;
  INFO("vocabulary ", dir.string(), ", reference ", reference);
  if (!fs::is_directory(dir)) {
    FAIL("the vocabulary " << dir.string() << " is missing: run scripts/fetch-vocabularies.sh");
  }
  const auto tokenizer = find_tokenizer(dir);
  if (!tokenizer) FAIL("find_tokenizer(" << dir.string() << ") found no tokenizer it reads there");

  const auto& cases = fixture.at("cases");
  REQUIRE(cases.size() >= 100);
  for (const auto& item : cases) {
    const auto text = item.at("text").get<std::string>();
    const bool add_special = item.at("add_special").get<bool>();
    const auto ids = item.at("ids").get<std::vector<int64_t>>();
    const auto tokens = item.at("tokens").get<std::vector<std::string>>();
    CAPTURE(text);
    CAPTURE(add_special);
    const auto pieces = tokenizer->encode(text, add_special);
    const bool same =
        std::equal(pieces.begin(), pieces.end(), ids.begin(), ids.end(),
                   [](const TokenPiece& piece, int64_t id) { return piece.id == id; });
    if (!same) FAIL_CHECK(first_difference(text, pieces, ids, tokens));
    // The pieces the post-processor adds are marked, and they are all it adds.
    const auto added = static_cast<size_t>(
        std::count_if(pieces.begin(), pieces.end(), [](const TokenPiece& p) { return p.added; }));
    CHECK(added == (add_special ? pieces.size() - tokenizer->encode(text, false).size() : 0));
  }

  const auto& long_text = fixture.at("long");
  const auto file = long_text.at("file").get<std::string>();
  INFO("the long text ", file);
  const std::string text = read_text_file((k_fixtures / file).string());
  std::vector<int64_t> ids;
  for (const auto& piece : tokenizer->encode(text, long_text.at("add_special").get<bool>()))
    ids.push_back(piece.id);
  CHECK(ids.size() == long_text.at("count").get<size_t>());
  CHECK(test::sha256_hex(ids_text(ids)) == long_text.at("sha256").get<std::string>());
}

}  // namespace

TEST_CASE("sha256: FIPS 180-4's examples") {
  CHECK(test::sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(test::sha256_hex("abc") ==
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(test::sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  CHECK(test::sha256_hex(std::string(1000000, 'a')) ==
        "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST_CASE("tokenizer references: every fixture file is one this test checks") {
  std::set<std::string> found;
  for (const auto& entry : fs::directory_iterator(k_fixtures / "tokenizers")) {
    if (entry.path().extension() == ".json") found.insert(entry.path().stem().string());
  }
  CHECK(found == k_names);
}

TEST_CASE("tokenizer references: gpt2 (vocab.json + merges.txt)") {
  check_fixture("gpt2");
}
TEST_CASE("tokenizer references: gpt2-json (tokenizer.json alone)") {
  check_fixture("gpt2-json");
}
TEST_CASE("tokenizer references: llama3") {
  check_fixture("llama3");
}
TEST_CASE("tokenizer references: llama2") {
  check_fixture("llama2");
}
TEST_CASE("tokenizer references: qwen2_5") {
  check_fixture("qwen2_5");
}
TEST_CASE("tokenizer references: gemma") {
  check_fixture("gemma");
}
TEST_CASE("tokenizer references: bert-uncased (vocab.txt)") {
  check_fixture("bert-uncased");
}
TEST_CASE("tokenizer references: bert-uncased-json (tokenizer.json)") {
  check_fixture("bert-uncased-json");
}
