// tokenizer.json's ByteLevel, Split and Metaspace pre-tokenizers and the split behaviours, on
// hand-worked examples (tokenizers' documented outputs), with the input offsets of every piece.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "attnviz/core/error.hpp"
#include "attnviz/inputs/tokenizers/pipeline/text_pipeline.hpp"
#include "attnviz/inputs/tokenizers/pipeline/unicode_regex.hpp"
#include "error_of.hpp"
#include "inputs/tokenizers/pipeline/split_behavior.hpp"

using namespace attnviz;
using attnviz::test::error_of;

namespace {

struct Piece {
  std::string text;
  size_t begin, end;
  bool operator==(const Piece&) const = default;
};

std::ostream& operator<<(std::ostream& os, const Piece& p) {
  return os << "'" << p.text << "'@" << p.begin << ".." << p.end;
}

std::vector<Piece> run(const std::string& spec, const std::string& input) {
  const SpecContext ctx{"tokenizer.json"};
  const auto pre = make_pre_tokenizer(nlohmann::json::parse(spec), SpecPlace{ctx, "pre_tokenizer"});
  std::vector<Piece> out;
  for (const NormalizedText& t : pre->split({NormalizedText::of_input(input)})) {
    out.push_back({t.text, t.input_begin(), t.input_end()});
  }
  return out;
}

std::vector<std::string> texts(const std::vector<Piece>& pieces) {
  std::vector<std::string> out;
  for (const Piece& p : pieces) out.push_back(p.text);
  return out;
}

std::vector<std::string> split_texts(const std::string& input, char delimiter,
                                     SplitBehavior behavior, bool invert = false) {
  std::vector<std::pair<size_t, size_t>> matches;
  for (size_t i = 0; i < input.size(); ++i) {
    if (input[i] == delimiter) matches.emplace_back(i, i + 1);
  }
  std::vector<std::string> out;
  for (const NormalizedText& t :
       split_at(NormalizedText::of_input(input), matches, behavior, invert))
    out.push_back(t.text);
  return out;
}

using V = std::vector<std::string>;

}  // namespace

TEST_CASE("split behaviours are tokenizers' SplitDelimiterBehavior on \"a--b-\"") {
  // The examples of tokenizers' normalizer.rs documentation, worked by hand.
  CHECK(split_texts("a--b-", '-', SplitBehavior::removed) == V{"a", "b"});
  CHECK(split_texts("a--b-", '-', SplitBehavior::isolated) == V{"a", "-", "-", "b", "-"});
  CHECK(split_texts("a--b-", '-', SplitBehavior::merged_with_previous) == V{"a-", "-", "b-"});
  CHECK(split_texts("a--b-", '-', SplitBehavior::merged_with_next) == V{"a", "-", "-b", "-"});
  CHECK(split_texts("a--b-", '-', SplitBehavior::contiguous) == V{"a", "--", "b", "-"});
  CHECK(split_texts("-a", '-', SplitBehavior::merged_with_previous) == V{"-", "a"});
  // invert: the matches (each '-') are the pieces, what lies between them ("a", "b") is removed.
  CHECK(split_texts("a--b-", '-', SplitBehavior::removed, true) == V{"-", "-", "-"});
  CHECK(split_texts("", '-', SplitBehavior::isolated).empty());
}

TEST_CASE(
    "ByteLevel: a leading space, GPT-2's regex, bytes as GPT-2's alphabet, offsets into the "
    "input") {
  const auto pieces =
      run(R"({"type":"ByteLevel","add_prefix_space":true,"trim_offsets":true,"use_regex":true})",
          "Hi there, 日本");
  // " Hi" → "ĠHi" (space is U+0120), "日" is E6 97 A5 → "æĹ¥" (0xE6 'æ', 0x97 → U+0139, 0xA5 '¥').
  CHECK(texts(pieces) ==
        V{"\u0120Hi", "\u0120there", ",", "\u0120\u00e6\u0139\u00a5\u00e6\u013e\u00ac"});
  CHECK(pieces[0] == Piece{"\u0120Hi", 0, 2});  // the inserted space covers no input byte
  CHECK(pieces[1].begin == 2);
  CHECK(pieces[1].end == 8);
  CHECK(pieces[3].begin == 9);
  CHECK(pieces[3].end == 16);
  // No prefix space when asked not to, and none added before a text that starts with one.
  CHECK(texts(run(R"({"type":"ByteLevel","add_prefix_space":false})", "Hi")) == V{"Hi"});
  CHECK(texts(run(R"({"type":"ByteLevel","add_prefix_space":true})", " Hi")) == V{"\u0120Hi"});
  // use_regex false (Llama 3 splits with its own regex first): one piece, mapped.
  CHECK(texts(run(R"({"type":"ByteLevel","add_prefix_space":false,"use_regex":false})", "a b")) ==
        V{"a\u0120b"});
}

TEST_CASE("Split with Llama 3's regex, behavior Isolated") {
  const std::string spec =
      R"({"type":"Split","pattern":{"Regex":"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"},"behavior":"Isolated","invert":false})";
  // Numbers in groups of at most three; "'S" matched case-insensitively; a space joins the word
  // after it.
  CHECK(texts(run(spec, "IT'S 1234567 cats!\n\n  ok")) ==
        V{"IT", "'S", " ", "123", "456", "7", " cats", "!\n\n", " ", " ok"});
  // Offsets of a split piece are the input's.
  const auto pieces = run(spec, "ab cd");
  CHECK(pieces == std::vector<Piece>{{"ab", 0, 2}, {" cd", 2, 5}});
}

TEST_CASE("Split with a literal string and each behaviour name") {
  CHECK(
      texts(run(R"({"type":"Split","pattern":{"String":" "},"behavior":"Removed","invert":false})",
                "a b  c")) == V{"a", "b", "c"});
  CHECK(texts(run(R"({"type":"Split","pattern":{"String":"-"},"behavior":"MergedWithNext"})",
                  "a-b")) == V{"a", "-b"});
  CHECK(error_of([] {
          run(R"({"type":"Split","pattern":{"String":"-"},"behavior":"Sideways"})", "a");
        }) ==
        "tokenizer.json: pre_tokenizer.behavior: expected Removed, Isolated, MergedWithPrevious, "
        "MergedWithNext or "
        "Contiguous, got \"Sideways\"");
  CHECK(
      error_of([] { run(R"({"type":"Split","pattern":{"Glob":"*"},"behavior":"Isolated"})", "a"); })
          .starts_with(
              "tokenizer.json: pre_tokenizer.pattern: expected {\"String\": …} or {\"Regex\": …}"));
  CHECK(error_of([] {
          run(R"({"type":"Split","pattern":{"Regex":"(unclosed"},"behavior":"Isolated"})", "a");
        })
            .starts_with("tokenizer.json: pre_tokenizer.pattern.Regex: the regex '(unclosed' does "
                         "not compile"));
}

TEST_CASE("Metaspace: spaces become ▁, one is prepended, pieces start at each ▁") {
  const std::string always =
      R"({"type":"Metaspace","replacement":"▁","prepend_scheme":"always","split":true})";
  // "Hello▁▁world" with "▁" prepended splits before every "▁": tokenizers' own test gives these.
  const auto pieces = run(always, "Hello  world");
  CHECK(texts(pieces) == V{"\u2581Hello", "\u2581", "\u2581world"});
  CHECK(pieces[0] == Piece{"\u2581Hello", 0, 5});
  CHECK(pieces[2] == Piece{"\u2581world", 6, 12});
  // split false keeps one piece; prepend_scheme never adds nothing.
  CHECK(
      texts(run(R"({"type":"Metaspace","replacement":"▁","prepend_scheme":"always","split":false})",
                "a b")) == V{"\u2581a\u2581b"});
  CHECK(texts(run(R"({"type":"Metaspace","replacement":"▁","prepend_scheme":"never","split":true})",
                  "a b")) == V{"a", "\u2581b"});
  // Old files: add_prefix_space instead of prepend_scheme.
  CHECK(texts(run(R"({"type":"Metaspace","replacement":"▁","add_prefix_space":false})", "a")) ==
        V{"a"});
  CHECK(error_of([] {
          run(R"({"type":"Metaspace","replacement":"▁","prepend_scheme":"sometimes"})", "a");
        }) ==
        "tokenizer.json: pre_tokenizer.prepend_scheme: 'sometimes' is not one of always, first, "
        "never");
  // tokenizers' replacement is one char: two (or none) is a file it does not load.
  CHECK(error_of([] {
          run(R"({"type":"Metaspace","replacement":"▁▁","prepend_scheme":"always"})", "a");
        }) ==
        "tokenizer.json: pre_tokenizer.replacement: expected one character, got '\u2581\u2581' (2 "
        "characters)");
  CHECK(error_of([] {
          run(R"({"type":"Metaspace","replacement":"","prepend_scheme":"always"})", "a");
        }) ==
        "tokenizer.json: pre_tokenizer.replacement: expected one character, got '' (0 characters)");
}

TEST_CASE("Sequence of pre-tokenizers, and refusals") {
  CHECK(
      texts(run(
          R"({"type":"Sequence","pretokenizers":[{"type":"Split","pattern":{"String":" "},"behavior":"Removed"},)"
          R"({"type":"ByteLevel","add_prefix_space":false,"use_regex":false}]})",
          "a é")) == V{"a", "\u00c3\u00a9"});
  CHECK(error_of([] { run(R"({"type":"UnicodeScripts"})", "a"); })
            .starts_with("tokenizer.json: pre_tokenizer.type: the pre-tokenizer 'UnicodeScripts' "
                         "is not one attnviz implements"));
  CHECK(error_of([] { run(R"({"type":"Sequence","pretokenizers":[{"type":"Nope"}]})", "a"); })
            .starts_with(
                "tokenizer.json: pre_tokenizer.pretokenizers[0].type: the pre-tokenizer 'Nope'"));
  CHECK(error_of([] { run(R"({"kind":"ByteLevel"})", "a"); }) ==
        "tokenizer.json: pre_tokenizer.type: missing");
}

TEST_CASE("\\s in tokenizers' regexes is Unicode White_Space, not PCRE2's (which takes U+180E)") {
  const UnicodeRegex space(R"(\s+)", "test");
  // U+180E MONGOLIAN VOWEL SEPARATOR left White_Space in Unicode 6.3.
  CHECK(space.find_all("a\u180eb").empty());
  CHECK(space.find_all("a\u3000\u00a0b") == std::vector<std::pair<size_t, size_t>>{{1, 6}});
  const UnicodeRegex not_space(R"(\S+)", "test");
  CHECK(not_space.find_all("a\u180e b") == std::vector<std::pair<size_t, size_t>>{{0, 4}, {5, 6}});
  CHECK(error_of([] { UnicodeRegex("[\\S]", "x"); }) ==
        "x: the regex '[\\S]': \\S inside a character class is not supported (attnviz runs "
        "tokenizers' Oniguruma "
        "patterns on PCRE2)");
  // A literal ']' first in a class, and an escaped backslash before 's', are left alone.
  CHECK(with_white_space_classes(R"([]a]\\s)", "x") == R"([]a]\\s)");
  // A POSIX class inside a class does not end it: \s after it is still White_Space.
  CHECK(UnicodeRegex(R"([[:alpha:]\s]+)", "x").find_all("a1 b") ==
        std::vector<std::pair<size_t, size_t>>{{0, 1}, {2, 4}});
}

TEST_CASE("\\w in tokenizers' regexes is Oniguruma's word (marks and decimal digits, not ² or ½)") {
  const UnicodeRegex word(R"(\w+)", "test");
  // e + U+0301 COMBINING ACUTE: one word; "²" and "½" (No) are not Oniguruma word characters
  // (UTS #18: Alphabetic, which takes Nl as Ⅻ, marks, Nd, Pc, joiners).
  CHECK(word.find_all("e\u0301x") == std::vector<std::pair<size_t, size_t>>{{0, 4}});
  CHECK(word.find_all("a\u00b2b") == std::vector<std::pair<size_t, size_t>>{{0, 1}, {3, 4}});
  CHECK(UnicodeRegex(R"(\W)", "test").find_all("a\u00bd\u216bb") ==
        std::vector<std::pair<size_t, size_t>>{{1, 3}});
  // What the two engines read differently is refused by name.
  const auto refusal = [](const char* pattern) {
    return error_of([&] { UnicodeRegex(pattern, "x"); });
  };
  CHECK(refusal(R"(\h+)").find(
            "\\h is a hexadecimal digit in Oniguruma and horizontal space in PCRE2") !=
        std::string::npos);
  CHECK(refusal(R"(\bx)").find("\\b (a word boundary) follows each engine's own word characters") !=
        std::string::npos);
  CHECK(refusal(R"([a[bc]])").find("a character class inside a class") != std::string::npos);
  CHECK(refusal(R"([a-z&&[^b]])").find("&& (Oniguruma's class intersection) is not supported") !=
        std::string::npos);
  CHECK(refusal(R"([\W])").find("\\W inside a character class is not supported") !=
        std::string::npos);
}

TEST_CASE(
    "Split: a regex that backtracks at every position runs out of its budget, not for hours") {
  // Three stars over "a" then a class no byte matches: each start position in a 60-letter word
  // backtracks through O(60²) splits before the word ends (about 30 µs a byte; an 8 MiB text took
  // hours). The budget, 2048 steps a byte, is spent long before the end of these 61,000 bytes.
  const std::string spec =
      R"({"type":"Split","pattern":{"Regex":"(?:a|b)*(?:a|b)*(?:a|b)*(?:c|d)| "},"behavior":"Isolated","invert":false})";
  std::string text;
  for (int i = 0; i < 1000; ++i) text += std::string(60, 'a') + " ";
  // The message's count is the proof that the budget stopped the search (no wall clock: a timed
  // check fails on a loaded machine).
  CHECK(error_of([&] { run(spec, text); }) ==
        "tokenizer.json: pre_tokenizer.pattern.Regex: the regex needs more than its budget of "
        "124960768 matching steps for "
        "61000 bytes of text (attnviz allows 2048 per byte: the pattern backtracks at every "
        "position)");
  // Short words backtrack little: within the budget, the same pattern splits as before.
  CHECK(texts(run(spec, "aaa aac")) == V{"aaa", " ", "aac"});
}
