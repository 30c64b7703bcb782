// Loading SentencePiece models, labelling their pieces, refusing special-token text.
#include "spm_files.hpp"

#include <fmt/format.h>

#include "attnviz/core/error.hpp"
#include "attnviz/core/unicode.hpp"
#include "attnviz/io/text_file.hpp"

namespace attnviz::detail {

namespace {

// Gemma's tokenizer.model is 4 MiB; a cap keeps /dev/zero and huge files out.
constexpr size_t k_max_model_bytes = size_t{64} << 20;

}  // namespace

std::string load_sentencepiece(const std::string& file, sentencepiece::SentencePieceProcessor& sp) {
  std::string bytes = read_regular_file(file, k_max_model_bytes);
  if (const auto status = sp.LoadFromSerializedProto(bytes); !status.ok()) {
    // A file that is not a ModelProto at all fails in ParseFromArray; say so plainly.
    const std::string reason =
        std::string(status.error_message()).find("ParseFromArray") != std::string::npos
            ? "not a serialized ModelProto"
            : status.error_message();
    throw Error(fmt::format("{}: cannot load the SentencePiece model: {}", file, reason));
  }
  return bytes;
}

std::string spm_piece_label(std::string_view piece) {
  std::string shown;
  for (size_t at = 0; at < piece.size();) {
    if (piece.compare(at, 3, "\u2581") == 0) {
      shown += "\u2423";
      at += 3;
    } else {
      shown += piece[at++];
    }
  }
  return printable_text(shown);
}

void refuse_special_text(std::string_view text, const std::vector<std::string>& specials,
                         const std::string& file, std::string_view files,
                         std::string_view instead) {
  size_t at = std::string_view::npos;
  const std::string* found = nullptr;
  for (const std::string& special : specials) {
    if (const size_t where = text.find(special); where < at) {
      at = where;
      found = &special;
    }
  }
  if (!found) return;
  throw Error(fmt::format(
      "{}: the text holds '{}' at byte {}, which transformers' tokenizer reads as a special token "
      "and SentencePiece as plain text; attnviz does not split special tokens out of text for "
      "{}: {}",
      file, printable_text(*found), at, files, instead));
}

}  // namespace attnviz::detail
