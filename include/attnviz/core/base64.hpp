// Base64 (RFC 4648 §4, padded): encoding for the --html page's blobs, strict decoding for the blobs
// files hold (tokenizer.json's precompiled_charsmap).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace attnviz {

std::string base64_encode(std::string_view bytes);
// The bytes `text` spells, or nullopt unless it is canonical base64: a multiple of 4 characters of
// the alphabet, '=' only as one or two final pads, the bits a pad leaves unused zero.
std::optional<std::string> base64_decode(std::string_view text);

}  // namespace attnviz
