// GPT-2 byte-level BPE on a tiny hand-written vocab.json + merges.txt: merge order, repeated
// pairs, leading spaces, byte pieces, offsets, and every refusal with its message.
#include <doctest/doctest.h>

#include <fstream>

#include "attnviz/core/error.hpp"
#include "attnviz/inputs/tokenizer.hpp"
#include "attnviz/inputs/tokenizers/find_tokenizer.hpp"
#include "error_of.hpp"
#include "temp_dir.hpp"

using namespace attnviz;
using attnviz::test::error_of;
using attnviz::test::TempDir;

namespace {

void write(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// Byte-level tokens: 'Ġ' is a space, 'Ċ' a newline, 'æ' 'Ī' 'ĳ' the bytes E6 88 91 of "我".
const char* const k_vocab = R"({"a": 0, "b": 1, "c": 2, "d": 3, "Ġ": 4, "ab": 5, "Ġab": 6, "aa": 7,
  "abc": 8, "Ċ": 9, "æ": 10, "Ī": 11, "ĳ": 12, "<|endoftext|>": 13})";
// Ranks by line: a b (0), Ġ ab (1), a a (2), ab c (3), c d (4: "cd" is not in the vocabulary).
const char* const k_merges = "#version: 0.2\na b\nĠ ab\n\na a\nab c\nc d\n";

struct Tiny {
  TempDir dir;
  std::unique_ptr<Tokenizer> tokenizer;
  explicit Tiny(const std::string& vocab = k_vocab, const std::string& merges = k_merges) {
    write(dir / "vocab.json", vocab);
    write(dir / "merges.txt", merges);
    tokenizer = find_tokenizer(dir.path());
  }
};

std::vector<int64_t> ids_of(const Tokenizer& t, std::string_view text) {
  std::vector<int64_t> ids;
  for (const auto& piece : t.encode(text, false)) ids.push_back(piece.id);
  return ids;
}

std::vector<std::string> labels_of(const Tokenizer& t, std::string_view text) {
  std::vector<std::string> labels;
  for (const auto& piece : t.encode(text, false)) labels.push_back(piece.label);
  return labels;
}

}  // namespace

TEST_CASE("tokenizer: the lowest-ranked pair merges first, wherever it is") {
  Tiny t;
  REQUIRE(t.tokenizer);
  CHECK(ids_of(*t.tokenizer, "ab") == std::vector<int64_t>{5});
  CHECK(ids_of(*t.tokenizer, "abc") == std::vector<int64_t>{8});  // a b → ab, then ab c → abc
  // (a a) has rank 2 but (a b) rank 0: "aab" is a + ab, not aa + b; (a, ab) is no merge.
  CHECK(labels_of(*t.tokenizer, "aab") == std::vector<std::string>{"a", "ab"});
  // (c d) ranks after (ab c), so "abcd" is abc + d and the unlisted "cd" never forms.
  CHECK(labels_of(*t.tokenizer, "abcd") == std::vector<std::string>{"abc", "d"});
}

TEST_CASE("tokenizer: every occurrence of a pair merges left to right, overlaps skipped") {
  Tiny t;
  CHECK(labels_of(*t.tokenizer, "aaa") == std::vector<std::string>{"aa", "a"});
  CHECK(labels_of(*t.tokenizer, "aaaa") == std::vector<std::string>{"aa", "aa"});
  CHECK(labels_of(*t.tokenizer, "aaaaa") == std::vector<std::string>{"aa", "aa", "a"});
  CHECK(labels_of(*t.tokenizer, "abab") == std::vector<std::string>{"ab", "ab"});
}

TEST_CASE("tokenizer: a leading space joins the word and is labelled ␣, offsets cover the text") {
  Tiny t;
  const auto pieces = t.tokenizer->encode("ab ab  a", false);
  // Pre-tokens "ab", " ab", " " (of two spaces, the last goes with the word after them) and " a";
  // there is no (Ġ a) merge, so " a" is two pieces.
  CHECK(labels_of(*t.tokenizer, "ab ab  a") ==
        std::vector<std::string>{"ab", "\u2423ab", "\u2423", "\u2423", "a"});
  CHECK(ids_of(*t.tokenizer, "ab ab  a") == std::vector<int64_t>{5, 6, 4, 4, 0});
  const std::vector<std::pair<size_t, size_t>> offsets = {{0, 2}, {2, 5}, {5, 6}, {6, 7}, {7, 8}};
  REQUIRE(pieces.size() == offsets.size());
  for (size_t i = 0; i < offsets.size(); ++i) {
    CHECK(pieces[i].begin == offsets[i].first);
    CHECK(pieces[i].end == offsets[i].second);
  }
}

TEST_CASE("tokenizer: a piece holding part of a character is labelled by its bytes") {
  Tiny t;
  const auto pieces = t.tokenizer->encode("我", false);
  REQUIRE(pieces.size() == 3);
  CHECK(pieces[0].label == "<0xE6>");
  CHECK(pieces[1].label == "<0x88>");
  CHECK(pieces[2].label == "<0x91>");
  CHECK(pieces[2].id == 12);
  CHECK(pieces[1].begin == 1);
  CHECK(pieces[1].end == 2);
  CHECK(t.tokenizer->label(10) == "<0xE6>");
  // Control characters are escaped, so a label stays on one line.
  CHECK(labels_of(*t.tokenizer, "\n") == std::vector<std::string>{"\\n"});
  CHECK(t.tokenizer->label(9) == "\\n");
}

TEST_CASE("tokenizer: labels of ids, vocabulary size and description") {
  Tiny t;
  CHECK(t.tokenizer->label(6) == "\u2423ab");
  CHECK(t.tokenizer->label(4) == "\u2423");
  CHECK(t.tokenizer->label(13) == "<|endoftext|>");
  CHECK(t.tokenizer->label(99) == "#99");
  CHECK(t.tokenizer->label(-1) == "#-1");
  CHECK(t.tokenizer->vocab_size() == 14);
  CHECK(t.tokenizer->description() ==
        "GPT-2 byte-level BPE (vocab.json + merges.txt, 14 tokens, 5 merges)");
  // GPT-2 adds no special tokens, and nothing in the text is read as one.
  CHECK(ids_of(*t.tokenizer, "ab") == std::vector<int64_t>{5});
  CHECK(t.tokenizer->encode("ab", true).size() == 1);
  CHECK(t.tokenizer->encode("", false).empty());
}

TEST_CASE(
    "tokenizer: CRLF and BOM merges files read like plain ones, a later duplicate merge takes its "
    "rank") {
  Tiny crlf(k_vocab, "#version: 0.2\r\na b\r\nĠ ab\r\n");
  CHECK(crlf.tokenizer->description() ==
        "GPT-2 byte-level BPE (vocab.json + merges.txt, 14 tokens, 2 merges)");
  CHECK(ids_of(*crlf.tokenizer, " ab") == std::vector<int64_t>{6});
  // (a a) listed first and again after (a b): its rank is the later one, so "aab" is a + ab.
  Tiny dup(k_vocab, "a a\na b\na a\n");
  CHECK(labels_of(*dup.tokenizer, "aab") == std::vector<std::string>{"a", "ab"});
  Tiny bom(k_vocab, "\xEF\xBB\xBF#version: 0.2\na b\n");
  CHECK(bom.tokenizer->description() ==
        "GPT-2 byte-level BPE (vocab.json + merges.txt, 14 tokens, 1 merge)");
  Tiny first(k_vocab, "a a\na b\n");
  CHECK(labels_of(*first.tokenizer, "aab") == std::vector<std::string>{"aa", "b"});
}

TEST_CASE("tokenizer: a folder without the files has none, one without the other is an error") {
  TempDir dir;
  CHECK(find_tokenizer(dir.path()) == nullptr);
  write(dir / "vocab.json", k_vocab);
  CHECK(error_of([&] { find_tokenizer(dir.path()); }) ==
        (dir / "merges.txt").string() +
            ": no such file, but vocab.json is beside it (GPT-2's byte-level BPE needs vocab.json "
            "and merges.txt)");
  std::filesystem::remove(dir / "vocab.json");
  write(dir / "merges.txt", k_merges);
  CHECK(error_of([&] { find_tokenizer(dir.path()); }) ==
        (dir / "vocab.json").string() +
            ": no such file, but merges.txt is beside it (GPT-2's byte-level BPE needs vocab.json "
            "and merges.txt)");
}

TEST_CASE("tokenizer: malformed vocab.json is an error naming the file and the token") {
  auto error = [](const std::string& vocab) {
    std::string message;
    TempDir dir;
    write(dir / "vocab.json", vocab);
    write(dir / "merges.txt", "a b\n");
    message = error_of([&] { find_tokenizer(dir.path()); });
    const std::string prefix = (dir / "vocab.json").string() + ": ";
    return message.starts_with(prefix) ? message.substr(prefix.size()) : message;
  };
  CHECK(error("[1, 2]") == "expected a JSON object mapping tokens to ids, got array");
  CHECK(error(R"({"a": -1})") == "token 'a' has id -1, expected a non-negative integer below 2^31");
  CHECK(error(R"({"a": 2147483648})") ==
        "token 'a' has id 2147483648, expected a non-negative integer below 2^31");
  CHECK(error(R"({"a": 18446744073709551615})") ==
        "token 'a' has id 18446744073709551615, expected a non-negative integer below 2^31");
  CHECK(error(R"({"a": 1.5})") ==
        "token 'a' has id 1.5, expected a non-negative integer below 2^31");
  CHECK(error(R"({"a": "1"})") ==
        "token 'a' has id \"1\", expected a non-negative integer below 2^31");
  CHECK(error(R"({"a": 0, "b": 0})") == "tokens 'a' and 'b' both have id 0 (ids must be unique)");
  CHECK(error(R"({"a\n": 0, "b": 0})") ==
        "tokens 'a\\n' and 'b' both have id 0 (ids must be unique)");
  CHECK(error("{\"a\": 0").find("not valid JSON") != std::string::npos);
}

TEST_CASE("tokenizer: malformed merges.txt is an error naming the file and the line") {
  auto error = [](const std::string& merges) {
    TempDir dir;
    write(dir / "vocab.json", k_vocab);
    write(dir / "merges.txt", merges);
    const std::string message = error_of([&] { find_tokenizer(dir.path()); });
    const std::string prefix = (dir / "merges.txt").string() + ": ";
    return message.starts_with(prefix) ? message.substr(prefix.size()) : message;
  };
  CHECK(error("#version: 0.2\na b\nab\n") ==
        "line 3: expected two tokens separated by one space, got 'ab'");
  CHECK(error("a  b\n") == "line 1: expected two tokens separated by one space, got 'a  b'");
  CHECK(error("a b c\n") == "line 1: expected two tokens separated by one space, got 'a b c'");
  CHECK(error("a b\n a\n") == "line 2: expected two tokens separated by one space, got ' a'");
  // Only the first line may be a "#version" header; later, "#version: 0.2" is the merge
  // ("#version:", "0.2").
  CHECK(error("a b\n#version: 0.2 x\n") ==
        "line 2: expected two tokens separated by one space, got '#version: 0.2 x'");
  CHECK(error("a \xE2\x82\xAC\n") ==
        "line 1: 'a €' has a character outside GPT-2's byte-level alphabet");
}

TEST_CASE("tokenizer: a piece the vocabulary lacks and invalid UTF-8 are errors, never [UNK]") {
  Tiny t;
  const std::string vocab = (t.dir / "vocab.json").string();
  CHECK(error_of([&] { t.tokenizer->encode("cd", false); }) ==
        vocab +
            ": the piece 'cd' (bytes 0..2 of the text, token 'cd') is not in the vocabulary, which "
            "has "
            "no unknown token");
  CHECK(error_of([&] { t.tokenizer->encode("ab e", false); }) ==
        vocab +
            ": the piece 'e' (bytes 3..4 of the text, token 'e') is not in the vocabulary, which "
            "has no "
            "unknown token");
  CHECK(error_of([&] { t.tokenizer->encode("\t", false); }) ==
        vocab +
            ": the piece '\\t' (bytes 0..1 of the text, token 'ĉ') is not in the vocabulary, which "
            "has no "
            "unknown token");
  CHECK(error_of([&] { t.tokenizer->encode("ab\xFF", false); }) == "text: invalid UTF-8 at byte 2");
  CHECK(error_of([&] { t.tokenizer->encode("a\xE6\x88", false); }) ==
        "text: invalid UTF-8 at byte 1");
}
