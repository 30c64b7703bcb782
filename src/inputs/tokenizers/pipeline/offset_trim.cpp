// Trimming spaces off byte-level pieces' offsets, as tokenizers' process_offsets.
#include "offset_trim.hpp"

#include <algorithm>
#include <string_view>

namespace attnviz {

namespace {

constexpr std::string_view k_open_box = "\u2423";

// The spaces ("␣" or ' ') at the start of the label, or at its end.
size_t spaces_at(std::string_view label, bool at_end) {
  size_t n = 0;
  for (;; ++n) {
    if (at_end ? label.ends_with(' ') : label.starts_with(' ')) {
      label = at_end ? label.substr(0, label.size() - 1) : label.substr(1);
    } else if (at_end ? label.ends_with(k_open_box) : label.starts_with(k_open_box)) {
      label = at_end ? label.substr(0, label.size() - k_open_box.size())
                     : label.substr(k_open_box.size());
    } else {
      return n;
    }
  }
}

}  // namespace

void trim_offsets(std::vector<TokenPiece>& pieces, bool add_prefix_space) {
  for (size_t i = 0; i < pieces.size(); ++i) {
    TokenPiece& piece = pieces[i];
    size_t leading = spaces_at(piece.label, false);
    const size_t trailing = spaces_at(piece.label, true);
    if (leading > 0) {
      const bool is_first = i == 0 || piece.begin == 0;
      if (is_first && add_prefix_space && leading == 1) leading = 0;
      piece.begin = std::min(piece.begin + leading, piece.end);
    }
    if (trailing > 0 && piece.end >= trailing)
      piece.end = std::max(piece.end - trailing, piece.begin);
  }
}

}  // namespace attnviz
