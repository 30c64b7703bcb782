// GPT-2's byte-level alphabet: every byte as one printable character, so BPE tokens are text
// (private to inputs/).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace attnviz {

// bytes_to_unicode of GPT-2's encoder.py: the 188 printable bytes ('!'..'~', '¡'..'¬', '®'..'ÿ')
// are their own code point, the other 68 (controls, space, 0x7F..0xA0, 0xAD) U+0100, U+0101, … in
// byte order; so a space is 'Ġ' (U+0120) and a newline 'Ċ' (U+010A).
char32_t byte_to_unicode(uint8_t byte);

// A token of the byte-level alphabet (UTF-8 text of those code points) → the bytes it stands
// for; nullopt when it holds a character outside the alphabet (such a token is never produced
// from text) or is not valid UTF-8.
std::optional<std::string> byte_level_decode(std::string_view token);

// A readable label of a piece's bytes: valid UTF-8 as text with a leading space shown as "␣"
// (U+2423) and control characters escaped (printable_text); each byte of an invalid or
// incomplete sequence (a piece holding part of a character) as "<0xE6>".
std::string byte_label(std::string_view bytes);

}  // namespace attnviz
