// BertProcessing ([CLS] A [SEP]) and RobertaProcessing (<s> A </s>, offsets trimmed) of a
// single sequence, as tokenizers' processors/{bert,roberta}.rs.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "attnviz/core/unicode.hpp"
#include "attnviz/inputs/tokenizers/pipeline/pipeline_parts.hpp"
#include "attnviz/inputs/tokenizers/pipeline/spec_fields.hpp"
#include "offset_trim.hpp"

namespace attnviz {

namespace {

// A special token as the file writes it: ["[CLS]", 101].
struct SpecialToken {
  std::string token;
  int64_t id = 0;
};

SpecialToken special_token(const nlohmann::json& spec, std::string_view field,
                           const SpecPlace& place, int64_t vocab_size) {
  const nlohmann::json& value = spec_required(spec, field, place);
  if (!value.is_array() || value.size() != 2 || !value[0].is_string() ||
      !value[1].is_number_integer() || value[1].get<int64_t>() < 0) {
    place.at(field).fail(fmt::format("expected [token, id] (a string and an integer >= 0), got {}",
                                     printable_text(value.dump())));
  }
  check_special_id(value[1].get<uint64_t>(), vocab_size, place.at(field));
  return {value[0].get<std::string>(), value[1].get<int64_t>()};
}

class ClsSepProcessor final : public PostProcessor {
 public:
  ClsSepProcessor(SpecialToken cls, SpecialToken sep, bool trim, bool add_prefix_space)
      : cls_(std::move(cls)),
        sep_(std::move(sep)),
        trim_(trim),
        add_prefix_space_(add_prefix_space) {}

  std::vector<TokenPiece> process(std::vector<TokenPiece> pieces, size_t text_end) const override {
    if (trim_) trim_offsets(pieces, add_prefix_space_);
    std::vector<TokenPiece> out;
    out.reserve(pieces.size() + 2);
    out.push_back({cls_.id, printable_text(cls_.token), 0, 0, true});
    for (TokenPiece& piece : pieces) out.push_back(std::move(piece));
    out.push_back({sep_.id, printable_text(sep_.token), text_end, text_end, true});
    return out;
  }

 private:
  SpecialToken cls_, sep_;
  bool trim_;
  bool add_prefix_space_;
};

}  // namespace

std::unique_ptr<PostProcessor> make_bert_processing(const nlohmann::json& spec,
                                                    const SpecPlace& place, int64_t vocab_size) {
  return std::make_unique<ClsSepProcessor>(special_token(spec, "cls", place, vocab_size),
                                           special_token(spec, "sep", place, vocab_size), false,
                                           false);
}

std::unique_ptr<PostProcessor> make_roberta_processing(const nlohmann::json& spec,
                                                       const SpecPlace& place, int64_t vocab_size) {
  // trim_offsets and add_prefix_space change offsets only, never ids.
  return std::make_unique<ClsSepProcessor>(special_token(spec, "cls", place, vocab_size),
                                           special_token(spec, "sep", place, vocab_size),
                                           spec_bool(spec, "trim_offsets", true, place),
                                           spec_bool(spec, "add_prefix_space", true, place));
}

}  // namespace attnviz
