// UTF-8 validation, decoding and terminal display width (CJK wide characters count 2 columns).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attnviz {

// Byte offset of the first invalid UTF-8 sequence (overlong, surrogate, > U+10FFFF, truncated),
// or nullopt when text is valid.
std::optional<size_t> find_invalid_utf8(std::string_view text);

// The text without a leading UTF-8 byte order mark (EF BB BF), which editors on Windows add and
// which is not part of the first token.
std::string_view strip_utf8_bom(std::string_view text);

// Code points of valid UTF-8 text; throws Error naming the byte offset of an invalid sequence.
std::vector<char32_t> decode_utf8(std::string_view text);
// Appends the UTF-8 bytes of a code point (<= U+10FFFF, not a surrogate).
void append_utf8(std::string& out, char32_t cp);
// text with every invalid UTF-8 byte replaced by U+FFFD (token pieces of byte-level BPE may split
// a character) and control characters escaped (\n, \t, \r, \xNN, \u0085) so one label stays on
// one terminal line and its width is known; noncharacters (U+FDD0–FDEF, U+FFFE, …) escaped too.
std::string printable_text(std::string_view text);

// Columns a terminal uses for one code point: utf8proc's width (0 for non-spacing marks and
// format characters, 2 for East Asian Wide/Fullwidth: CJK ideographs, Hangul, kana, fullwidth
// forms, emoji; Unicode 15 in utf8proc 2.8), except where terminals draw otherwise (spacing
// marks 1, Hangul medial and final jamo 0: see unicode.cpp).
int codepoint_width(char32_t cp);
// Columns a terminal uses for UTF-8 text (each invalid byte counts 1, as printed as U+FFFD).
int display_width(std::string_view text);
// The display width of the widest line of text (lines split at '\n').
int widest_line(std::string_view text);
// The longest prefix of text whose display width is <= max_columns; appends "…" when it cut.
std::string truncate_to_width(std::string_view text, int max_columns);
// text padded with spaces to `columns` display columns (right-aligned when align_right); text
// already wider is returned unchanged.
std::string pad_to_width(std::string_view text, int columns, bool align_right = false);

}  // namespace attnviz
