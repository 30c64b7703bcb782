// Fuzzes tokenizer.json's BPE model (tokenizers' merge order, unk_token + fuse_unk, byte_fallback,
// continuing_subword_prefix) on arbitrary UTF-8 words, with a tiny vocabulary whose merges chain
// and overlap ("a a", "aa a", …). The pieces must cover the word in order, each a vocabulary token.
#include <fmt/format.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "attnviz/core/error.hpp"
#include "attnviz/core/unicode.hpp"
#include "attnviz/inputs/tokenizers/pipeline/text_pipeline.hpp"

namespace {

const attnviz::SpecContext k_ctx{"fuzz/tokenizer.json"};

std::unique_ptr<attnviz::TokenModel> model(bool prefix) {
  nlohmann::json vocab = {{"<unk>", 0}};
  int id = 1;
  for (const char* token : {"a", "b", "c", "aa", "ab", "aaa", "aab", "abc", "bc", "\xC3\xA9"})
    vocab[token] = id++;
  nlohmann::json merges = {"a a", "a b", "aa a", "aa b", "ab c", "b c"};
  if (prefix) {
    // The same merges under a "##" continuing-subword prefix: every non-first character has it.
    nlohmann::json more = nlohmann::json::object();
    for (const auto& [token, value] : vocab.items()) {
      if (token != "<unk>") more["##" + token] = id++;
    }
    vocab.update(more);
    merges = {"a ##a",  "##a ##a", "a ##b",    "##a ##b", "aa ##a",
              "aa ##b", "ab ##c",  "##ab ##c", "##b ##c", "b ##c"};
  } else {
    for (int b = 0; b < 256; b += 3)
      vocab[fmt::format("<0x{:02X}>", b)] = id++;  // a third of the bytes
  }
  return attnviz::make_token_model({{"type", "BPE"},
                                    {"vocab", vocab},
                                    {"merges", merges},
                                    {"unk_token", "<unk>"},
                                    {"fuse_unk", !prefix},
                                    {"byte_fallback", !prefix},
                                    {"continuing_subword_prefix", prefix ? "##" : ""}},
                                   {k_ctx, "model"});
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const auto plain = model(false);
  static const auto prefixed = model(true);
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (attnviz::find_invalid_utf8(text)) return 0;  // pre-tokens are valid UTF-8
  for (const auto* m : {plain.get(), prefixed.get()}) {
    try {
      std::vector<attnviz::TokenPiece> pieces;
      m->tokenize(attnviz::NormalizedText::of_input(text, 7), pieces);
      size_t at = 7;
      for (const auto& piece : pieces) {
        if (piece.begin != at || piece.end < piece.begin || m->id_to_token(piece.id) != piece.label)
          __builtin_trap();
        at = piece.end;
      }
      if (at != 7 + size) __builtin_trap();
    } catch (const attnviz::Error&) {
      // Only byte fallback after a pending unknown character is refused (see bpe_model.cpp).
    }
  }
  return 0;
}
