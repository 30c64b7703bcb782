// Tests of UTF-8 validation/decoding and display width: each malformed class rejected at its
// offset, East Asian Wide characters 2 columns, combining marks 0, truncation with "…".
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "attnviz/core/error.hpp"
#include "attnviz/core/unicode.hpp"

using namespace attnviz;

TEST_CASE("unicode: valid UTF-8 is accepted, including the boundaries of each length") {
  for (const std::string text :
       {"", "plain ascii", "h\xC3\xA9llo", "\xE4\xBD\xA0\xE5\xA5\xBD", "\xF0\x9F\x98\x80",
        "\xC2\x80", "\xDF\xBF", "\xE0\xA0\x80", "\xED\x9F\xBF", "\xEE\x80\x80", "\xEF\xBF\xBF",
        "\xF0\x90\x80\x80", "\xF4\x8F\xBF\xBF"}) {
    CAPTURE(text);
    CHECK_FALSE(find_invalid_utf8(text).has_value());
  }
}

TEST_CASE("unicode: each malformed class is rejected at its byte offset") {
  struct Case {
    const char* what;
    std::string text;
    size_t offset;
  };
  const std::vector<Case> cases = {
      {"overlong 2-byte /", "\xC0\xAF", 0},
      {"overlong 2-byte C1", "a\xC1\xBF", 1},
      {"overlong 3-byte", "\xE0\x80\xAF", 0},
      {"overlong 3-byte just below U+0800", "ab\xE0\x9F\xBF", 2},
      {"overlong 4-byte", "\xF0\x80\x80\xAF", 0},
      {"overlong 4-byte just below U+10000", "\xF0\x8F\xBF\xBF", 0},
      {"high surrogate U+D800", "\xED\xA0\x80", 0},
      {"low surrogate U+DFFF", "xy\xED\xBF\xBF", 2},
      {"above U+10FFFF (F4 90)", "\xF4\x90\x80\x80", 0},
      {"lead byte F5", "\xF5\x80\x80\x80", 0},
      {"lead byte FF", "ok\xFF", 2},
      {"truncated 3-byte", "abc\xE4\xBD", 3},
      {"truncated 4-byte", "\xF0\x9F\x98", 0},
      {"stray continuation", "\x80", 0},
      {"stray continuation after a character", "\xC3\xA9\xBF", 2},
      {"missing continuation",
       "\xC3"
       "A",
       0},
      {"bad third byte",
       "\xE4\xBD"
       "A",
       0},
  };
  for (const auto& c : cases) {
    CAPTURE(c.what);
    const auto offset = find_invalid_utf8(c.text);
    REQUIRE(offset.has_value());
    CHECK(*offset == c.offset);
    CHECK_THROWS_AS(decode_utf8(c.text), Error);
  }
}

TEST_CASE("unicode: decode_utf8 gives code points and names the offset of a bad byte") {
  CHECK(decode_utf8("a\xC3\xA9\xE4\xBD\xA0\xF0\x9F\x98\x80") ==
        std::vector<char32_t>{0x61, 0xE9, 0x4F60, 0x1F600});
  CHECK(decode_utf8("\xF4\x8F\xBF\xBF") == std::vector<char32_t>{0x10FFFF});
  CHECK_THROWS_WITH(decode_utf8("ab\xED\xA0\x80"), doctest::Contains("byte 2"));
}

TEST_CASE("unicode: codepoint_width follows East Asian Width and marks combining characters 0") {
  CHECK(codepoint_width(U'a') == 1);
  CHECK(codepoint_width(0xE9) == 1);    // é precomposed
  CHECK(codepoint_width(0x301) == 0);   // COMBINING ACUTE ACCENT
  CHECK(codepoint_width(0x20DD) == 0);  // COMBINING ENCLOSING CIRCLE (Me)
  CHECK(codepoint_width(0x200B) == 0);  // ZERO WIDTH SPACE
  CHECK(codepoint_width(0x200D) == 0);  // ZERO WIDTH JOINER
  CHECK(codepoint_width(0x1160) == 0);  // Hangul Jamo medial vowel
  CHECK(codepoint_width(0x4E00) == 2);  // CJK Unified Ideographs
  CHECK(codepoint_width(0x9FFF) == 2);
  CHECK(codepoint_width(0x3400) == 2);   // Extension A
  CHECK(codepoint_width(0x20000) == 2);  // Extension B
  CHECK(codepoint_width(0x30000) == 2);  // Extension G
  CHECK(codepoint_width(0xAC00) == 2);   // Hangul syllable
  CHECK(codepoint_width(0x1100) == 2);   // Hangul Jamo leading consonant
  CHECK(codepoint_width(0x3042) == 2);   // Hiragana あ
  CHECK(codepoint_width(0x30A2) == 2);   // Katakana ア
  CHECK(codepoint_width(0x3000) == 2);   // IDEOGRAPHIC SPACE
  CHECK(codepoint_width(0x3002) == 2);   // IDEOGRAPHIC FULL STOP
  CHECK(codepoint_width(0x302A) == 0);   // a combining tone mark inside CJK punctuation
  CHECK(codepoint_width(0xFF01) == 2);   // FULLWIDTH EXCLAMATION MARK
  CHECK(codepoint_width(0xFF21) == 2);   // FULLWIDTH LATIN CAPITAL A
  CHECK(codepoint_width(0xFF60) == 2);
  CHECK(codepoint_width(0xFF61) == 1);  // HALFWIDTH IDEOGRAPHIC FULL STOP
  CHECK(codepoint_width(0xFFE0) == 2);  // FULLWIDTH CENT SIGN
  CHECK(codepoint_width(0xFFE6) == 2);
  CHECK(codepoint_width(0xFFE8) == 1);   // halfwidth form
  CHECK(codepoint_width(0x1F300) == 2);  // CYCLONE
  CHECK(codepoint_width(0x1F600) == 2);  // GRINNING FACE
  CHECK(codepoint_width(0x1F64F) == 2);
  CHECK(codepoint_width(0x1F914) == 2);  // THINKING FACE
  CHECK(codepoint_width(0x1F9FF) == 2);
  CHECK(codepoint_width(0x2014) == 1);  // EM DASH (ambiguous: narrow outside CJK locales)
  CHECK(codepoint_width(0x0A) == 0);    // control characters print nothing
}

// utf8proc 2.8 gives the widths, except where it differs from what terminals draw; the expected
// values are glibc 2.36's wcwidth() in C.UTF-8 (what most terminals use) unless noted.
TEST_CASE("unicode: where utf8proc and terminals differ, the terminal's width") {
  CHECK(codepoint_width(0x93F) == 1);    // DEVANAGARI VOWEL SIGN I (Mc; utf8proc 0)
  CHECK(codepoint_width(0x903) == 1);    // DEVANAGARI SIGN VISARGA (Mc)
  CHECK(codepoint_width(0x302E) == 2);   // HANGUL SINGLE DOT TONE MARK (Mc, East Asian Wide)
  CHECK(codepoint_width(0x16FF0) == 2);  // VIETNAMESE ALTERNATE READING MARK CA (Mc, Wide)
  CHECK(codepoint_width(0x11FF) == 0);   // HANGUL JONGSEONG SSANGNIEUN (utf8proc 1)
  CHECK(codepoint_width(0xD7B0) == 0);   // HANGUL JUNGSEONG O-YEO (utf8proc 1)
  CHECK(codepoint_width(0x600) == 1);    // ARABIC NUMBER SIGN (Cf, drawn; utf8proc 0)
  CHECK(codepoint_width(0x110BD) == 1);  // KAITHI NUMBER SIGN
  // Unassigned code points EastAsianWidth.txt reserves as Wide: 2, as VTE draws them (glibc
  // prints nothing for unassigned code points; utf8proc 1).
  CHECK(codepoint_width(0x2A6E0) == 2);
  CHECK(codepoint_width(0x3FFFD) == 2);
  // Unicode 15, newer than glibc 2.36's tables: utf8proc's widths (EastAsianWidth-15.0.0.txt).
  CHECK(codepoint_width(0x1FA75) == 2);  // LIGHT BLUE HEART (W)
  CHECK(codepoint_width(0x1B132) == 2);  // HIRAGANA LETTER SMALL KO (W)
  CHECK(codepoint_width(0xECE) == 0);    // LAO YAMAKKAN (Mn)
  // Line and paragraph separators break lines or print nothing: escaped like controls.
  CHECK(codepoint_width(0x2028) == 0);
  CHECK(printable_text("a\xE2\x80\xA8"
                       "b\xE2\x80\xA9") == "a\\u2028b\\u2029");
  CHECK(codepoint_width(0xAD) == 1);    // SOFT HYPHEN (Cf, drawn)
  CHECK(codepoint_width(0x200B) == 0);  // ZERO WIDTH SPACE
}

TEST_CASE("unicode: display_width of CJK, precomposed and combining text") {
  CHECK(display_width("") == 0);
  CHECK(display_width("\xE4\xBD\xA0\xE5\xA5\xBD") == 4);  // 你好
  CHECK(display_width("h\xC3\xA9llo") == 5);              // héllo, é precomposed
  CHECK(display_width("he\xCC\x81llo") == 5);             // héllo, e + U+0301
  CHECK(display_width("a\xE4\xBD\xA0"
                      "b") == 4);                         // a你b
  CHECK(display_width("\xF0\x9F\x98\x80x") == 3);         // 😀x
  CHECK(display_width("\xEF\xBC\xA1\xEF\xBD\xA1") == 3);  // Ａ (fullwidth) ｡ (halfwidth)
  CHECK(display_width("a\xFF"
                      "b") == 3);  // an invalid byte counts as U+FFFD
}

TEST_CASE("unicode: truncate_to_width keeps the widest prefix that fits with the ellipsis") {
  CHECK(truncate_to_width("hello", 5) == "hello");
  CHECK(truncate_to_width("hello world", 6) == "hello\xE2\x80\xA6");
  CHECK(truncate_to_width("\xE4\xBD\xA0\xE5\xA5\xBD\xE4\xB8\x96\xE7\x95\x8C", 5) ==
        "\xE4\xBD\xA0\xE5\xA5\xBD\xE2\x80\xA6");  // 你好世界 → 你好…
  CHECK(truncate_to_width("\xE4\xBD\xA0\xE5\xA5\xBD\xE4\xB8\x96\xE7\x95\x8C", 4) ==
        "\xE4\xBD\xA0\xE2\x80\xA6");  // 你… (你好… would be 5 columns)
  CHECK(truncate_to_width("he\xCC\x81llo", 3) == "he\xCC\x81\xE2\x80\xA6");  // the accent stays
  CHECK(truncate_to_width("ab", 1) == "\xE2\x80\xA6");
  CHECK(truncate_to_width("ab", 0).empty());
  for (int w = 0; w <= 12; ++w) {
    CHECK(display_width(truncate_to_width("\xE4\xBD\xA0"
                                          "abc\xE5\xA5\xBD"
                                          "def",
                                          w)) <= w);
  }
}

TEST_CASE("unicode: pad_to_width pads by display columns") {
  CHECK(pad_to_width("\xE4\xBD\xA0", 4) == "\xE4\xBD\xA0  ");
  CHECK(pad_to_width("\xE4\xBD\xA0", 4, true) == "  \xE4\xBD\xA0");
  CHECK(pad_to_width("he\xCC\x81", 3) == "he\xCC\x81 ");
  CHECK(pad_to_width("toolong", 3) == "toolong");
}

TEST_CASE("unicode: printable_text escapes controls and replaces invalid bytes") {
  CHECK(printable_text("a\nb\tc\r") == "a\\nb\\tc\\r");
  CHECK(printable_text("\x1b[31m") == "\\x1b[31m");
  CHECK(printable_text("\xC2\x85") == "\\u0085");
  CHECK(printable_text("x\xFFy") == "x\xEF\xBF\xBDy");
  CHECK(printable_text("\xE4\xBD") == "\xEF\xBF\xBD\xEF\xBF\xBD");  // one U+FFFD per bad byte
  CHECK(printable_text("\xC4\xA0the \xE4\xBD\xA0") == "\xC4\xA0the \xE4\xBD\xA0");
  // Noncharacters (cairo refuses them in a figure's text): U+FFFF, U+FDD0, U+1FFFE.
  CHECK(printable_text("a\xEF\xBF\xBF"
                       "b") == "a\\uffffb");
  CHECK(printable_text("\xEF\xB7\x90") == "\\ufdd0");
  CHECK(printable_text("\xF0\x9F\xBF\xBE") == "\\u1fffe");
  CHECK(printable_text("\xEF\xB7\xB0") == "\xEF\xB7\xB0");  // U+FDF0 is a character
}
