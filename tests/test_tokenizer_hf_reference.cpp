// The tokenizer.json parts against Hugging Face tokenizers itself: for 142 texts (accents,
// combining marks, CJK, Hangul, controls, zero-width and exotic spaces, punctuation, numbers,
// special tokens, random mixes) under 7 configurations of normalizers and pre-tokenizers, a
// WordPiece model over fixtures/tokenizers/hf_reference/vocab.txt and BertProcessing, the ids
// and offsets tokenizers 0.23.2 (its Rust core, through the npm package) gave are in
// expected.json (generate.js remakes it).
#include <doctest/doctest.h>
#include <utf8proc.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "attnviz/core/unicode.hpp"
#include "attnviz/inputs/tokenizers/pipeline/pipeline_tokenizer.hpp"

using namespace attnviz;
using nlohmann::json;

namespace {

const std::string k_dir =
    std::string(ATTNVIZ_SOURCE_DIR) + "/tests/fixtures/tokenizers/hf_reference/";

json read_json(const std::string& name) {
  std::ifstream in(k_dir + name);
  return json::parse(in);
}

std::vector<std::string> read_lines(const std::string& name) {
  std::ifstream in(k_dir + name);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::unique_ptr<Tokenizer> assemble(const json& parts_spec,
                                    const std::vector<std::string>& tokens) {
  static const SpecContext ctx{"configs.json"};
  json model = {{"type", "WordPiece"},
                {"unk_token", "[UNK]"},
                {"continuing_subword_prefix", "##"},
                {"max_input_chars_per_word", 100},
                {"vocab", json::object()}};
  for (size_t i = 0; i < tokens.size(); ++i) model["vocab"][tokens[i]] = i;
  PipelineParts parts;
  parts.source = "configs.json";
  parts.normalizer = make_normalizer(parts_spec["normalizer"], SpecPlace{ctx, "normalizer"});
  parts.pre_tokenizer =
      make_pre_tokenizer(parts_spec["pre_tokenizer"], SpecPlace{ctx, "pre_tokenizer"});
  parts.model = make_token_model(model, SpecPlace{ctx, "model"});
  const json& vocab = model["vocab"];
  parts.post_processor =
      make_post_processor({{"type", "BertProcessing"},
                           {"sep", {"[SEP]", vocab["[SEP]"]}},
                           {"cls", {"[CLS]", vocab["[CLS]"]}}},
                          SpecPlace{ctx, "post_processor"}, static_cast<int64_t>(tokens.size()));
  for (const char* special : {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"}) {
    parts.added_tokens.push_back(
        {vocab[special].get<int64_t>(), special, false, false, false, false, true});
  }
  return make_pipeline_tokenizer(std::move(parts));
}

// Characters a normalizer may remove or absorb (marks composed or stripped, controls, format and
// private-use characters, white space collapsed or stripped).
bool removable(char32_t cp) {
  const auto c = utf8proc_category(static_cast<utf8proc_int32_t>(cp));
  return c == UTF8PROC_CATEGORY_MN || c == UTF8PROC_CATEGORY_MC || c == UTF8PROC_CATEGORY_ME ||
         c == UTF8PROC_CATEGORY_CC || c == UTF8PROC_CATEGORY_CF || c == UTF8PROC_CATEGORY_CO ||
         c == UTF8PROC_CATEGORY_ZS || c == UTF8PROC_CATEGORY_ZL || c == UTF8PROC_CATEGORY_ZP ||
         cp == 0xFFFD;
}

}  // namespace

TEST_CASE(
    "tokenizer hf reference: ids equal Hugging Face tokenizers' for every text and configuration") {
  const json corpus = read_json("corpus.json");
  const json configs = read_json("configs.json");
  const json expected = read_json("expected.json");
  const std::vector<std::string> tokens = read_lines("vocab.txt");
  REQUIRE(corpus.size() == 142);
  REQUIRE(configs.size() == 7);
  size_t pieces = 0, exact_ends = 0;
  for (const auto& [name, parts] : configs.items()) {
    const auto tokenizer = assemble(parts, tokens);
    for (size_t i = 0; i < corpus.size(); ++i) {
      const std::string text = corpus[i];
      const json& want = expected[name][i];
      CAPTURE(name);
      CAPTURE(i);
      // Offsets: tokenizers' are in characters here, attnviz's in bytes.
      const std::vector<char32_t> chars = decode_utf8(text);
      std::vector<size_t> char_at(text.size() + 1, 0);
      for (size_t b = 0, c = 0; b <= text.size(); ++b) {
        if (b == text.size() || (static_cast<unsigned char>(text[b]) & 0xC0) != 0x80)
          char_at[b] = c++;
      }
      const auto got = tokenizer->encode(text, true);
      std::vector<int64_t> ids;
      for (const TokenPiece& p : got) ids.push_back(p.id);
      CHECK(ids == want["ids"].get<std::vector<int64_t>>());
      if (ids != want["ids"].get<std::vector<int64_t>>()) continue;
      for (size_t k = 1; k + 1 < got.size(); ++k) {  // the text's pieces, not [CLS] [SEP]
        const size_t begin = char_at[got[k].begin], end = char_at[got[k].end];
        const size_t want_begin = want["offsets"][k][0], want_end = want["offsets"][k][1];
        CAPTURE(k);
        CHECK(begin == want_begin);
        ++pieces;
        if (end == want_end) {
          ++exact_ends;
        } else if (end > want_end) {
          // attnviz's origins cannot leave gaps: characters the normalizer removed after a piece
          // are counted in it.
          for (size_t c = want_end; c < end; ++c) CHECK(removable(chars[c]));
        } else {
          // A piece that is part of one character's expansion ("…" → "...", "½" → "1⁄2"):
          // tokenizers gives it the whole character, attnviz ends it where the character starts.
          CHECK(want_end - end == 1);
        }
      }
    }
  }
  // Most pieces end exactly where tokenizers ends them.
  CHECK(exact_ends * 10 > pieces * 9);
  MESSAGE(exact_ends << " of " << pieces << " pieces end exactly as in tokenizers");
}
