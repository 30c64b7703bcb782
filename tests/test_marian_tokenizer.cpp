// Marian's tokenizer (source.spm / target.spm + vocab.json): ids, labels and byte offsets of both
// sides against tests/fixtures/make_marian_fixtures.py (a reference written from transformers'
// tokenization_marian.py over libsentencepiece's Python binding, on two models trained by Debian's
// spm_train), how find_tokenizer picks the sides, and every refusal with its message.
#include <doctest/doctest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "attnviz/core/unicode.hpp"
#include "attnviz/inputs/tokenizers/find_tokenizer.hpp"
#include "attnviz/inputs/tokenizers/sentencepiece/marian_tokenizer.hpp"
#include "error_of.hpp"
#include "temp_dir.hpp"

using namespace attnviz;
using attnviz::test::error_of;
using attnviz::test::TempDir;

namespace fs = std::filesystem;

namespace {

const fs::path k_dir = fs::path(ATTNVIZ_SOURCE_DIR) / "tests/fixtures/marian";

nlohmann::json read_json(const fs::path& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

void write(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// The fixture folder copied, with `file` replaced by `text` (when given).
struct MarianCopy {
  TempDir dir;
  explicit MarianCopy(const std::string& file = "", const std::string& text = "") {
    for (const char* f : {"source.spm", "target.spm", "vocab.json", "tokenizer_config.json"})
      fs::copy_file(k_dir / f, dir / f);
    if (!file.empty()) {
      fs::remove(dir / file);
      write(dir / file, text);
    }
  }
};

std::string shown(const std::string& piece) {
  std::string s = piece;
  for (size_t at = s.find("\u2581"); at != std::string::npos; at = s.find("\u2581", at))
    s.replace(at, 3, "\u2423");
  return printable_text(s);
}

}  // namespace

TEST_CASE("marian tokenizer: both sides give the reference's ids, labels and offsets") {
  const nlohmann::json expected = read_json(k_dir / "expected.json");
  const auto source = make_marian_tokenizer(k_dir, MarianSide::source);
  const auto target = make_marian_tokenizer(k_dir, MarianSide::target);
  CHECK(source->vocab_size() == expected["vocab_size"].get<int64_t>());
  CHECK(source->unknown_id() == 1);
  CHECK(source->bos_id() == std::nullopt);  // Marian has no BOS: the decoder starts from pad
  REQUIRE(expected["cases"].size() >= 50);
  int unknown = 0, coded = 0;
  for (const auto& c : expected["cases"]) {
    const auto text = c["text"].get<std::string>();
    CAPTURE(text);
    const auto& s = c["source"];
    const auto pieces = source->encode(text, true);
    REQUIRE(pieces.size() == s["ids"].size());
    for (size_t i = 0; i + 1 < pieces.size(); ++i) {
      CAPTURE(i);
      const int64_t id = s["ids"][i].get<int64_t>();
      CHECK(pieces[i].id == id);
      CHECK(pieces[i].begin == s["begin"][i].get<size_t>());
      CHECK(pieces[i].end == s["end"][i].get<size_t>());
      CHECK(pieces[i].label == (id == 1 ? "<unk>" : shown(s["pieces"][i].get<std::string>())));
      CHECK(!pieces[i].added);
      unknown += id == 1;
      coded += pieces[i].label.starts_with(">>");
    }
    CHECK(pieces.back().id == 0);  // </s>, appended
    CHECK(pieces.back().label == "</s>");
    CHECK(pieces.back().added);
    CHECK(source->encode(text, false).size() + 1 == pieces.size());
    std::vector<int64_t> ids;
    for (const auto& p : target->encode(text, true)) ids.push_back(p.id);
    CHECK(ids == c["target"]["ids"].get<std::vector<int64_t>>());
  }
  CHECK(unknown > 0);  // the corpus reaches characters neither model knows
  CHECK(coded == 3);   // ">>deu<<", ">>fra<<", ">>spa<<" at the start of a text
}

TEST_CASE("marian tokenizer: a folder reads as the source side, its target side apart") {
  const auto source = find_tokenizer(k_dir);
  const auto target = find_target_tokenizer(k_dir);
  REQUIRE(source);
  REQUIRE(target);
  CHECK(source->description() ==
        "Marian SentencePiece (source.spm + vocab.json, 1600 tokens; the source side)");
  CHECK(target->description() ==
        "Marian SentencePiece (target.spm + vocab.json, 1600 tokens; the target side)");
  // Either .spm file stands for its folder: the source side, and the target side apart.
  CHECK(find_tokenizer(k_dir / "target.spm")->description() == source->description());
  CHECK(find_target_tokenizer(k_dir / "source.spm")->description() == target->description());
  CHECK(is_tokenizer_file_name("source.spm"));
  // A folder of another kind has no target side of its own.
  CHECK(find_target_tokenizer(fs::path(ATTNVIZ_SOURCE_DIR) / "tests/fixtures/sentencepiece") ==
        nullptr);
  // Labels and tokens of ids come from vocab.json, on either side.
  CHECK(source->label(3) == target->label(3));
  CHECK(source->token(1599) == "<pad>");
  CHECK(source->label(1600) == "#1600");
  CHECK(source->token(-1) == std::nullopt);
}

TEST_CASE("marian tokenizer: what it refuses, each with its reason") {
  const auto source = make_marian_tokenizer(k_dir, MarianSide::source);
  const std::string vocab = (k_dir / "vocab.json").string();
  CHECK(error_of([&] { source->encode(">>xyz<< hello", true); }) ==
        vocab +
            ": the text starts with the language code '>>xyz<<', which is not in it "
            "(transformers versions give it <unk> or an unrelated id)");
  CHECK(error_of([&] { source->encode("one </s> two", true); }) ==
        (k_dir / "source.spm").string() +
            ": the text holds '</s>' at byte 4, which transformers' tokenizer reads as a special "
            "token and SentencePiece as plain text; attnviz does not split special tokens out of "
            "text for Marian's .spm files: give --ids");

  // A piece the .spm knows that vocab.json lacks: transformers versions disagree on its id.
  nlohmann::json v = read_json(k_dir / "vocab.json");
  v.erase("\u2581the");
  v["\u2581the_gone"] = 1598;  // ids stay unique
  v.erase(">>spa<<");
  MarianCopy lacking("vocab.json", v.dump());
  CHECK(error_of([&] {
          make_marian_tokenizer(lacking.dir.path(), MarianSide::source)->encode("on the mat", true);
        }).find("the piece '\u2581the' of ") != std::string::npos);

  MarianCopy separate("tokenizer_config.json", R"({"separate_vocabs": true})");
  CHECK(error_of([&] {
          make_marian_tokenizer(separate.dir.path(), MarianSide::target);
        }).find("separate_vocabs") != std::string::npos);
  MarianCopy no_unk("vocab.json", R"({"</s>": 0, "<pad>": 1})");
  CHECK(error_of([&] { make_marian_tokenizer(no_unk.dir.path(), MarianSide::source); }) ==
        (no_unk.dir / "tokenizer_config.json").string() + ": the unk_token '<unk>' is not in " +
            (no_unk.dir / "vocab.json").string());
  MarianCopy twice("vocab.json", R"({"</s>": 0, "<unk>": 1, "a": 1})");
  CHECK(error_of([&] { make_marian_tokenizer(twice.dir.path(), MarianSide::source); }) ==
        (twice.dir / "vocab.json").string() + ": id 1 is given to both \"<unk>\" and \"a\"");
  MarianCopy negative("vocab.json", R"({"</s>": 0, "<unk>": -1})");
  CHECK(error_of([&] { make_marian_tokenizer(negative.dir.path(), MarianSide::source); }) ==
        (negative.dir / "vocab.json").string() +
            ": \"<unk>\": expected an id in [0, 16777216), got -1");
  MarianCopy list("vocab.json", "[1, 2]");
  CHECK(error_of([&] { make_marian_tokenizer(list.dir.path(), MarianSide::source); }) ==
        (list.dir / "vocab.json").string() + ": expected an object of piece → id, got array");
  MarianCopy broken("source.spm", "not a model");
  CHECK(error_of([&] { make_marian_tokenizer(broken.dir.path(), MarianSide::source); }) ==
        (broken.dir / "source.spm").string() +
            ": cannot load the SentencePiece model: not a serialized ModelProto");
}
