// tokenizer.json's TemplateProcessing ("<s> $A", "[CLS] $A [SEP]", "<|begin_of_text|> $A") and the
// ByteLevel post-processor (which changes only offsets).
#include <fmt/format.h>

#include "attnviz/core/unicode.hpp"
#include "attnviz/inputs/tokenizers/pipeline/pipeline_parts.hpp"
#include "attnviz/inputs/tokenizers/pipeline/spec_fields.hpp"

namespace attnviz {

namespace {

// One item of the single-sequence template: the text's pieces, or special tokens.
struct TemplateItem {
  bool sequence = false;
  std::vector<TokenPiece> specials;  // ids and labels; offsets set when placed
};

class TemplateProcessing final : public PostProcessor {
 public:
  explicit TemplateProcessing(std::vector<TemplateItem> items) : items_(std::move(items)) {}

  std::vector<TokenPiece> process(std::vector<TokenPiece> pieces, size_t text_end) const override {
    std::vector<TokenPiece> out;
    bool after_text = false;
    for (const TemplateItem& item : items_) {
      if (item.sequence) {
        out.insert(out.end(), std::make_move_iterator(pieces.begin()),
                   std::make_move_iterator(pieces.end()));
        after_text = true;
        continue;
      }
      for (TokenPiece special : item.specials) {
        special.begin = special.end = after_text ? text_end : 0;
        special.added = true;
        out.push_back(std::move(special));
      }
    }
    return out;
  }

 private:
  std::vector<TemplateItem> items_;
};

class ByteLevelPostProcessor final : public PostProcessor {
 public:
  std::vector<TokenPiece> process(std::vector<TokenPiece> pieces, size_t) const override {
    return pieces;
  }
};

std::vector<TokenPiece> special_tokens_of(const nlohmann::json& specials, const std::string& name,
                                          const SpecPlace& place, int64_t vocab_size) {
  const SpecPlace at = place.at("special_tokens").at(name);
  std::vector<TokenPiece> out;
  if (specials.is_object() && specials.contains(name)) {
    const nlohmann::json& entry = specials.at(name);
    const nlohmann::json& ids = spec_required(entry, "ids", at);
    const nlohmann::json& tokens = spec_required(entry, "tokens", at);
    if (!ids.is_array() || !tokens.is_array() || ids.size() != tokens.size()) {
      at.fail("expected lists \"ids\" and \"tokens\" of the same length");
    }
    for (size_t i = 0; i < ids.size(); ++i) {
      if (!ids[i].is_number_unsigned() || !tokens[i].is_string()) {
        at.fail(fmt::format("item {}: expected a non-negative id and a token string", i));
      }
      check_special_id(ids[i].get<uint64_t>(), vocab_size, at.at("ids").at(i));
      out.push_back({ids[i].get<int64_t>(), printable_text(tokens[i].get<std::string>()), 0, 0});
    }
    return out;
  }
  // Not listed in special_tokens: tokenizers refuses such a template; so does attnviz.
  at.fail("the template names this special token, but \"special_tokens\" does not list it");
}

// A template item's "type_id", when written: tokenizers reads a u32.
void check_type_id(const nlohmann::json& item, const SpecPlace& place) {
  if (!item.is_object() || !item.contains("type_id")) return;
  const nlohmann::json& type_id = item.at("type_id");
  // A parsed file holds non-negative integers as unsigned; a template built in code as signed.
  constexpr int64_t k_max = 0xffffffff;
  if (type_id.is_number_unsigned() ? type_id.get<uint64_t>() <= uint64_t{k_max}
                                   : type_id.is_number_integer() && type_id.get<int64_t>() >= 0 &&
                                         type_id.get<int64_t>() <= k_max) {
    return;
  }
  place.at("type_id").fail(fmt::format("expected an integer from 0 to 2^32 - 1, got {}",
                                       printable_text(type_id.dump())));
}

}  // namespace

std::unique_ptr<PostProcessor> make_template_processing(const nlohmann::json& spec,
                                                        const SpecPlace& place,
                                                        int64_t vocab_size) {
  const nlohmann::json& single = spec_required(spec, "single", place);
  const SpecPlace single_place = place.at("single");
  if (!single.is_array()) single_place.fail("expected a list of template items");
  const nlohmann::json specials =
      spec.contains("special_tokens") ? spec.at("special_tokens") : nlohmann::json::object();
  std::vector<TemplateItem> items;
  bool has_sequence = false;
  for (size_t i = 0; i < single.size(); ++i) {
    const nlohmann::json& item = single[i];
    const SpecPlace item_place = single_place.at(i);
    if (item.is_object() && item.contains("Sequence")) {
      check_type_id(item.at("Sequence"), item_place.at("Sequence"));
      const std::string id = spec_string(item.at("Sequence"), "id", item_place.at("Sequence"));
      if (id != "A")
        item_place.at("Sequence")
            .fail(fmt::format("'{}' in a single-sequence template (expected A)", id));
      items.push_back({true, {}});
      has_sequence = true;
    } else if (item.is_object() && item.contains("SpecialToken")) {
      check_type_id(item.at("SpecialToken"), item_place.at("SpecialToken"));
      const std::string id =
          spec_string(item.at("SpecialToken"), "id", item_place.at("SpecialToken"));
      items.push_back({false, special_tokens_of(specials, id, place, vocab_size)});
    } else {
      item_place.fail("expected {\"Sequence\": …} or {\"SpecialToken\": …}");
    }
  }
  if (!has_sequence) single_place.fail("the template has no $A: the text would be dropped");
  return std::make_unique<TemplateProcessing>(std::move(items));
}

std::unique_ptr<PostProcessor> make_byte_level_post_processor(const nlohmann::json& spec,
                                                              const SpecPlace& place) {
  (void)spec_bool(spec, "trim_offsets", true, place);
  (void)spec_bool(spec, "add_prefix_space", true, place);
  return std::make_unique<ByteLevelPostProcessor>();
}

}  // namespace attnviz
