// Normalized text and its origins in the input.
#include <fmt/format.h>

#include "attnviz/core/error.hpp"
#include "attnviz/inputs/tokenizers/pipeline/text_pipeline.hpp"

namespace attnviz {

NormalizedText NormalizedText::of_input(std::string_view input, size_t base) {
  NormalizedText t;
  t.text = std::string(input);
  t.origin.resize(input.size() + 1);
  for (size_t i = 0; i <= input.size(); ++i) t.origin[i] = base + i;
  return t;
}

NormalizedText NormalizedText::slice(size_t begin, size_t end) const {
  if (begin > end || end > text.size()) {
    throw Error(fmt::format("internal: slice {}..{} of a {}-byte text", begin, end, text.size()));
  }
  NormalizedText t;
  t.text = text.substr(begin, end - begin);
  t.origin.assign(origin.begin() + static_cast<std::ptrdiff_t>(begin),
                  origin.begin() + static_cast<std::ptrdiff_t>(end) + 1);
  return t;
}

void NormalizedBuilder::append(std::string_view text, size_t input_begin, size_t /*input_end*/) {
  // Every byte of the appended string starts at input_begin; the next append (or finish) closes it.
  out_.text.append(text);
  out_.origin.insert(out_.origin.end(), text.size(), input_begin);
}

NormalizedText NormalizedBuilder::finish(size_t input_end) {
  out_.origin.push_back(input_end);
  // Origins never decrease: an inserted string marked at a later place than what follows it is
  // pulled back (inserted strings cover no input bytes).
  for (size_t i = out_.origin.size() - 1; i-- > 0;) {
    if (out_.origin[i] > out_.origin[i + 1]) out_.origin[i] = out_.origin[i + 1];
  }
  return std::move(out_);
}

void for_each_char(std::string_view text, const std::function<void(char32_t, size_t, size_t)>& f) {
  for (size_t i = 0; i < text.size();) {
    const auto b = static_cast<unsigned char>(text[i]);
    size_t n = 1;
    char32_t cp = b;
    if (b >= 0xF0) {
      n = 4;
      cp = b & 0x07;
    } else if (b >= 0xE0) {
      n = 3;
      cp = b & 0x0F;
    } else if (b >= 0xC0) {
      n = 2;
      cp = b & 0x1F;
    }
    if (i + n > text.size()) throw Error(fmt::format("internal: truncated UTF-8 at byte {}", i));
    for (size_t k = 1; k < n; ++k)
      cp = (cp << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3F);
    f(cp, i, n);
    i += n;
  }
}

}  // namespace attnviz
