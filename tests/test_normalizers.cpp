// The normalizers of tokenizer.json, each built from its JSON spec: text and origins expected by
// hand from Unicode's tables (UnicodeData.txt decompositions, combining classes, SpecialCasing)
// and tokenizers' rules, and every refusal with its message.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "attnviz/inputs/tokenizers/pipeline/text_pipeline.hpp"
#include "error_of.hpp"
#include "normalize_spec.hpp"

using namespace attnviz;
using attnviz::test::error_of;
using attnviz::test::normalize;
using attnviz::test::normalized;
using nlohmann::json;

namespace {

std::string refusal(const json& spec) {
  const SpecContext ctx{"tok.json"};
  return error_of([&] { make_normalizer(spec, SpecPlace{ctx, "normalizer"}); });
}

using Origins = std::vector<size_t>;

}  // namespace

TEST_CASE("normalizers: NFD decomposes, and both parts come from the composed character") {
  // U+00E9 = U+0065 U+0301 (UnicodeData.txt); the two bytes of é are input bytes 0..2.
  const NormalizedText t = normalize({{"type", "NFD"}}, "\u00e9!");
  CHECK(t.text == "e\u0301!");
  CHECK(t.origin == Origins{0, 0, 0, 2, 3});
  // Canonical order: U+0323 (class 220) goes before U+0301 (class 230).
  CHECK(normalized({{"type", "NFD"}}, "a\u0301\u0323") == "a\u0323\u0301");
  // Hangul syllables decompose algorithmically: 한 = ᄒ ᅡ ᆫ.
  CHECK(normalized({{"type", "NFD"}}, "\ud55c") == "\u1112\u1161\u11ab");
}

TEST_CASE("normalizers: NFC composes, the composed character covering its parts") {
  const NormalizedText t = normalize({{"type", "NFC"}}, "cafe\u0301!");
  CHECK(t.text == "caf\u00e9!");
  // c a f from bytes 0 1 2; é from e (byte 3) and U+0301 (bytes 4-5); ! from byte 6.
  CHECK(t.origin == Origins{0, 1, 2, 3, 3, 6, 7});
  // Already composed text is unchanged, origins and all.
  CHECK(normalize({{"type", "NFC"}}, "\u00e9").origin == Origins{0, 1, 2});
  CHECK(normalized({{"type", "NFC"}}, "\u1112\u1161\u11ab") == "\ud55c");
  // A singleton decomposition is never recomposed: Ω (U+2126 OHM SIGN) → Ω (U+03A9).
  CHECK(normalized({{"type", "NFC"}}, "\u2126") == "\u03a9");
}

TEST_CASE("normalizers: NFKC and NFKD apply compatibility decompositions") {
  const NormalizedText fi = normalize({{"type", "NFKC"}}, "\ufb01x");  // ﬁ ligature
  CHECK(fi.text == "fix");
  CHECK(fi.origin == Origins{0, 0, 3, 4});
  CHECK(normalized({{"type", "NFKD"}}, "\u2460") == "1");              // ① CIRCLED DIGIT ONE
  CHECK(normalized({{"type", "NFKD"}}, "\u00bd") == "1\u20442");       // ½ = 1 ⁄ 2
  CHECK(normalized({{"type", "NFKC"}}, "\uff21\u00e9") == "A\u00e9");  // fullwidth Ａ
  CHECK(normalized({{"type", "NFC"}}, "\ufb01") == "\ufb01");          // canonical forms keep it
}

TEST_CASE("normalizers: Lowercase is Rust's char-wise to_lowercase") {
  CHECK(normalized({{"type", "Lowercase"}}, "HeLLo WÖRLD") == "hello wörld");
  // İ (U+0130) lowercases to i + COMBINING DOT ABOVE (SpecialCasing.txt), both from its 2 bytes.
  const NormalizedText t = normalize({{"type", "Lowercase"}}, "\u0130x");
  CHECK(t.text == "i\u0307x");
  CHECK(t.origin == Origins{0, 0, 0, 2, 3});
  // No final-sigma rule: char-wise, Σ is σ at the end of a word too.
  CHECK(normalized({{"type", "Lowercase"}}, "\u039f\u03a3") == "\u03bf\u03c3");
}

TEST_CASE("normalizers: StripAccents removes every combining mark, after NFD") {
  const json nfd_strip = {{"type", "Sequence"},
                          {"normalizers", {{{"type", "NFD"}}, {{"type", "StripAccents"}}}}};
  const NormalizedText t = normalize(nfd_strip, "Cr\u00e8me");
  CHECK(t.text == "Creme");
  CHECK(t.origin == Origins{0, 1, 2, 4, 5, 6});  // è (bytes 2-3) is e from byte 2
  // Spacing marks (Mc) too: DEVANAGARI SIGN VISARGA U+0903 after क.
  CHECK(normalized({{"type", "StripAccents"}}, "\u0915\u0903") == "\u0915");
  // Without NFD a precomposed letter has no mark to remove.
  CHECK(normalized({{"type", "StripAccents"}}, "\u00e8") == "\u00e8");
}

TEST_CASE("normalizers: Strip removes white space at the chosen ends") {
  const NormalizedText left =
      normalize({{"type", "Strip"}, {"strip_left", true}, {"strip_right", false}}, " \u3000a b \n");
  CHECK(left.text == "a b \n");
  CHECK(left.origin.front() == 4);  // after ' ' and the 3-byte ideographic space
  CHECK(normalized({{"type", "Strip"}, {"strip_left", false}, {"strip_right", true}}, " a \t") ==
        " a");
  CHECK(normalized({{"type", "Strip"}, {"strip_left", true}, {"strip_right", true}}, "  ") == "");
  CHECK(refusal({{"type", "Strip"}, {"strip_right", true}}) ==
        "tok.json: normalizer.strip_left: missing");
}

TEST_CASE("normalizers: Replace a string or a regex, the replacement from the matched bytes") {
  const NormalizedText t = normalize(
      {{"type", "Replace"}, {"pattern", {{"String", " "}}}, {"content", "\u2581"}}, "a b");
  CHECK(t.text == "a\u2581b");
  CHECK(t.origin == Origins{0, 1, 1, 1, 2, 3});
  // A string pattern is literal: "." matches only dots, "\E" is no regex escape.
  CHECK(normalized({{"type", "Replace"}, {"pattern", {{"String", "."}}}, {"content", "!"}},
                   "a.b") == "a!b");
  CHECK(normalized({{"type", "Replace"}, {"pattern", {{"String", "\\E."}}}, {"content", "-"}},
                   "x\\E.y") == "x-y");
  const NormalizedText r = normalize(
      {{"type", "Replace"}, {"pattern", {{"Regex", "\\s+"}}}, {"content", " "}}, "a \t b");
  CHECK(r.text == "a b");
  CHECK(r.origin == Origins{0, 1, 4, 5});
  CHECK(normalized({{"type", "Replace"}, {"pattern", {{"String", "x"}}}, {"content", ""}},
                   "axbx") == "ab");
  CHECK(refusal({{"type", "Replace"}, {"pattern", {{"Glob", "*"}}}, {"content", ""}}) ==
        "tok.json: normalizer.pattern: expected {\"String\": …} or {\"Regex\": …}, got "
        "{\"Glob\":\"*\"}");
  CHECK(refusal({{"type", "Replace"}, {"pattern", {{"Regex", "("}}}, {"content", ""}})
            .find("tok.json: normalizer.pattern: the regex '(' does not compile (at 1)") == 0);
  // A string's "\s" is a backslash and an s, not white space.
  CHECK(normalized({{"type", "Replace"}, {"pattern", {{"String", "\\s"}}}, {"content", "_"}},
                   "a\\s b") == "a_ b");
  CHECK(refusal({{"type", "Replace"}, {"pattern", {{"String", "a"}}}}) ==
        "tok.json: normalizer.content: missing");
}

TEST_CASE("normalizers: Prepend adds its string before text that is not empty") {
  const NormalizedText t = normalize({{"type", "Prepend"}, {"prepend", "\u2581"}}, "ab");
  CHECK(t.text == "\u2581ab");
  CHECK(t.origin == Origins{0, 0, 0, 0, 1, 2});
  CHECK(normalized({{"type", "Prepend"}, {"prepend", "\u2581"}}, "") == "");
}

TEST_CASE("normalizers: BertNormalizer cleans, spaces CJK, strips accents and lowercases") {
  const json uncased = {{"type", "BertNormalizer"},
                        {"clean_text", true},
                        {"handle_chinese_chars", true},
                        {"strip_accents", nullptr},
                        {"lowercase", true}};
  CHECK(normalized(uncased, "H\u00e9llo, WORLD!") == "hello, world!");
  // \t and \n become spaces; BEL (Cc), SOFT HYPHEN (Cf), NUL and U+FFFD are removed.
  using namespace std::string_view_literals;
  const NormalizedText clean = normalize(uncased, "a\tb\x07\u00ad\0\ufffdc"sv);
  CHECK(clean.text == "a bc");
  CHECK(clean.origin == Origins{0, 1, 2, 10, 11});  // b takes the removed bytes 3..10 up to c
  // Private use (Co) goes too; an unassigned code point (U+0378) stays, as in tokenizers (whose
  // is_other is Cc, Cf, Co), though BERT's Python tokenizer would remove it.
  CHECK(normalized(uncased, "a\ue000b\u0378") == "ab\u0378");
  // Each ideograph gets a space before and after; the spaces cover no input.
  const NormalizedText cjk = normalize(uncased, "\u6211\u4eec");  // 我们
  CHECK(cjk.text == " \u6211  \u4eec ");
  CHECK(cjk.origin == Origins{0, 0, 0, 0, 3, 3, 3, 3, 3, 6, 6});
  // strip_accents null follows lowercase: a cased normalizer keeps accents unless told.
  const json cased = {{"type", "BertNormalizer"}, {"strip_accents", nullptr}, {"lowercase", false}};
  CHECK(normalized(cased, "H\u00e9llo") == "H\u00e9llo");
  CHECK(normalized({{"type", "BertNormalizer"}, {"strip_accents", true}, {"lowercase", false}},
                   "H\u00e9llo") == "Hello");
  CHECK(normalized({{"type", "BertNormalizer"}, {"strip_accents", false}, {"lowercase", true}},
                   "H\u00c9") == "h\u00e9");
  CHECK(normalized({{"type", "BertNormalizer"}, {"handle_chinese_chars", false}}, "\u6211") ==
        "\u6211");
  CHECK(refusal({{"type", "BertNormalizer"}, {"lowercase", "yes"}}) ==
        "tok.json: normalizer.lowercase: expected true or false, got \"yes\"");
}

TEST_CASE(
    "normalizers: Sequence, Precompiled without rules or with a broken blob, and the refused "
    "ones") {
  const json seq = {{"type", "Sequence"},
                    {"normalizers", {{{"type", "NFKC"}}, {{"type", "Lowercase"}}}}};
  CHECK(normalized(seq, "\uff21B") == "ab");
  CHECK(normalized({{"type", "Precompiled"}, {"precompiled_charsmap", ""}}, "Ab") == "Ab");
  // tokenizers cannot load a Precompiled normalizer without its charsmap (serde: a base64 string).
  CHECK(refusal({{"type", "Precompiled"}, {"precompiled_charsmap", nullptr}}) ==
        "tok.json: normalizer.precompiled_charsmap: missing");
  CHECK(refusal({{"type", "Precompiled"}, {"precompiled_charsmap", 3}}) ==
        "tok.json: normalizer.precompiled_charsmap: expected a base64 string, got 3");
  // The first 9 bytes of T5's charsmap: a trie of 0x2B400 = 177152 bytes announced, 5 there.
  CHECK(refusal({{"type", "Precompiled"}, {"precompiled_charsmap", "ALQCAACEAAAA"}}) ==
        "tok.json: normalizer.precompiled_charsmap: SentencePiece's precompiled charsmap: its trie "
        "is 177152 bytes, expected a positive multiple of 4 within the 5 bytes after the size");
  CHECK(refusal({{"type", "Precompiled"}, {"precompiled_charsmap", "ALQCAAC=A"}}) ==
        "tok.json: normalizer.precompiled_charsmap: not base64 (9 characters; expected a multiple "
        "of 4 of A–Z, a–z, 0–9, '+', '/', then up to two '=')");
  CHECK(refusal({{"type", "Nmt"}})
            .find("tok.json: normalizer.type: the normalizer 'Nmt' is not one attnviz "
                  "implements") == 0);
  CHECK(
      refusal({{"type", "Sequence"}, {"normalizers", {{{"type", "NFC"}}, {{"type", "ByteLevel"}}}}})
          .find("tok.json: normalizer.normalizers[1].type: the normalizer 'ByteLevel'") == 0);
  CHECK(refusal({{"type", "Sequence"}, {"normalizers", "NFC"}}) ==
        "tok.json: normalizer.normalizers: expected a list of normalizers");
}

TEST_CASE("normalizers: Replace with a repeated group over a long text") {
  // 200,000 repetitions of a group: the JIT needs more than its default stack for them.
  const std::string text = std::string(200000, 'a') + "b";
  CHECK(normalized({{"type", "Replace"}, {"pattern", {{"Regex", "(a|c)+b"}}}, {"content", "x"}},
                   text) == "x");
}
