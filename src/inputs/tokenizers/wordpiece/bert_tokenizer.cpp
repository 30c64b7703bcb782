// BERT's vocab.txt tokenizer, assembled from the pipeline's parts.
#include "attnviz/inputs/tokenizers/wordpiece/bert_tokenizer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "attnviz/core/error.hpp"
#include "attnviz/core/unicode.hpp"
#include "attnviz/inputs/tokenizers/pipeline/pipeline_parts.hpp"
#include "attnviz/inputs/tokenizers/pipeline/pipeline_tokenizer.hpp"
#include "attnviz/inputs/tokenizers/pipeline/spec_fields.hpp"
#include "attnviz/inputs/vocabulary.hpp"
#include "attnviz/io/json.hpp"

namespace attnviz {

namespace fs = std::filesystem;

namespace {

struct BertConfig {
  BertNormalizerOptions normalizer;
  std::string unk = "[UNK]", cls = "[CLS]", sep = "[SEP]", pad = "[PAD]", mask = "[MASK]";
  std::vector<std::string> never_split;
  std::vector<std::string> additional;  // additional_special_tokens
};

// The classes that read vocab.txt as BertTokenizer does.
bool is_bert_class(std::string_view name) {
  for (const std::string_view bert :
       {"BertTokenizer", "DistilBertTokenizer", "ElectraTokenizer", "MobileBertTokenizer",
        "SqueezeBertTokenizer", "LayoutLMTokenizer"}) {
    if (name == bert || name == fmt::format("{}Fast", bert)) return true;
  }
  return false;
}

// A special token field: a string, or an AddedToken object {"content": …}; null leaves the default.
void read_token(const nlohmann::json& config, std::string_view field, std::string& token,
                const SpecPlace& place) {
  const auto it = config.find(std::string(field));
  if (it == config.end() || it->is_null()) return;
  if (it->is_object()) {
    token = spec_string(*it, "content", place.at(field));
    return;
  }
  token = spec_string(config, field, place);
}

BertConfig read_config(const fs::path& path) {
  BertConfig c;
  std::error_code ec;
  if (!fs::exists(path, ec)) return c;
  const nlohmann::json config = read_json_file(path);
  const SpecContext ctx{path.string()};
  const SpecPlace place{ctx, ""};
  if (!config.is_object())
    place.fail(fmt::format("expected a JSON object, got {}", config.type_name()));
  if (const auto cls = spec_optional_string(config, "tokenizer_class", place);
      cls && !is_bert_class(*cls)) {
    place.at("tokenizer_class")
        .fail(fmt::format("'{}' reads vocab.txt by its own rules; attnviz reads it as "
                          "BertTokenizer (and DistilBERT, ELECTRA, "
                          "MobileBERT, SqueezeBERT, LayoutLM, which share them)",
                          printable_text(*cls)));
  }
  // Without the basic tokenizer (lowercasing, punctuation and CJK splits) only WordPiece runs.
  spec_require_value(config, "do_basic_tokenize", true, place);
  c.normalizer.lowercase = spec_bool(config, "do_lower_case", true, place);
  if (const auto it = config.find("strip_accents"); it != config.end() && !it->is_null()) {
    c.normalizer.strip_accents = spec_bool(config, "strip_accents", false, place);
  }
  c.normalizer.handle_chinese_chars = spec_bool(config, "tokenize_chinese_chars", true, place);
  read_token(config, "unk_token", c.unk, place);
  read_token(config, "cls_token", c.cls, place);
  read_token(config, "sep_token", c.sep, place);
  read_token(config, "pad_token", c.pad, place);
  read_token(config, "mask_token", c.mask, place);
  if (const auto it = config.find("additional_special_tokens");
      it != config.end() && !it->is_null()) {
    if (!it->is_array()) {
      place.at("additional_special_tokens")
          .fail(fmt::format("expected a list of tokens, got {}", it->type_name()));
    }
    for (size_t i = 0; i < it->size(); ++i) {
      std::string token;
      read_token(nlohmann::json{{"token", (*it)[i]}}, "token", token,
                 place.at("additional_special_tokens").at(i));
      c.additional.push_back(token);
    }
  }
  if (const auto it = config.find("never_split"); it != config.end() && !it->is_null()) {
    if (!it->is_array())
      place.at("never_split")
          .fail(fmt::format("expected a list of strings, got {}", it->type_name()));
    for (size_t i = 0; i < it->size(); ++i) {
      if (!(*it)[i].is_string()) {
        place.at("never_split")
            .at(i)
            .fail(fmt::format("expected a string, got {}", printable_text((*it)[i].dump())));
      }
      c.never_split.push_back((*it)[i].get<std::string>());
    }
  }
  return c;
}

// Special tokens the vocabulary cannot make: an Error when they are asked for.
class RefusingPostProcessor final : public PostProcessor {
 public:
  explicit RefusingPostProcessor(std::string why) : why_(std::move(why)) {}
  std::vector<TokenPiece> process(std::vector<TokenPiece>, size_t) const override {
    throw Error(why_);
  }

 private:
  std::string why_;
};

}  // namespace

std::unique_ptr<Tokenizer> make_bert_vocab_tokenizer(const fs::path& dir) {
  const Vocabulary vocab = read_vocabulary(dir);
  const std::string source = vocab.path.string();
  if (vocab.tokens.empty())
    throw Error(fmt::format("{}: missing or empty, so there is no vocabulary", source));
  const fs::path config_path = dir / "tokenizer_config.json";
  const BertConfig config = read_config(config_path);

  // token → id, the last line of a token listed twice winning, as transformers' load_vocab.
  nlohmann::json model = {{"type", "WordPiece"},
                          {"unk_token", config.unk},
                          {"continuing_subword_prefix", "##"},
                          {"max_input_chars_per_word", 100},
                          {"vocab", nlohmann::json::object()}};
  nlohmann::json& ids = model["vocab"];
  for (size_t i = 0; i < vocab.tokens.size(); ++i) ids[vocab.tokens[i]] = static_cast<int64_t>(i);

  const auto id_of = [&](const std::string& token) -> std::optional<int64_t> {
    const auto it = ids.find(token);
    if (it == ids.end()) return std::nullopt;
    return it->get<int64_t>();
  };

  PipelineParts parts;
  parts.source = source;
  parts.description = fmt::format("vocab.txt: BERT WordPiece ({})",
                                  config.normalizer.lowercase ? "uncased" : "cased");
  // The special tokens the vocabulary has, matched before normalization, as BertTokenizerFast
  // adds them (unk, sep, pad, cls, mask; not normalized, so "[cls]" is not [CLS]).
  // One the vocabulary lacks would get a new id in transformers: it is listed with id -1, and a
  // text holding it is refused.
  std::vector<const std::string*> specials = {&config.unk, &config.sep, &config.pad, &config.cls,
                                              &config.mask};
  for (const std::string& token : config.additional) specials.push_back(&token);
  for (const std::string* token : specials) {
    if (token->empty()) continue;
    const auto id = id_of(*token);
    const bool listed = std::any_of(parts.added_tokens.begin(), parts.added_tokens.end(),
                                    [&](const AddedToken& t) { return t.content == *token; });
    if (!listed)
      parts.added_tokens.push_back({id.value_or(-1), *token, false, false, false, false, true});
  }
  const SpecContext config_ctx{config_path.string()};
  for (size_t i = 0; i < config.never_split.size(); ++i) {
    const std::string& word = config.never_split[i];
    const bool special = std::any_of(parts.added_tokens.begin(), parts.added_tokens.end(),
                                     [&](const AddedToken& t) { return t.content == word; });
    if (!special) {
      SpecPlace{config_ctx, "never_split"}.at(i).fail(
          fmt::format("'{}' is not a special token of the vocabulary: BertTokenizer keeps such a "
                      "word whole and "
                      "BertTokenizerFast splits it, and attnviz implements neither difference",
                      printable_text(word)));
    }
  }
  const SpecContext ctx{source};
  const SpecPlace place{ctx, "WordPiece"};
  parts.normalizer = make_bert_normalizer(config.normalizer);
  parts.pre_tokenizer = make_pre_tokenizer({{"type", "BertPreTokenizer"}}, place);
  parts.model = make_token_model(model, place);
  const std::string* missing = !id_of(config.cls)   ? &config.cls
                               : !id_of(config.sep) ? &config.sep
                                                    : nullptr;
  if (missing) {
    // Text still tokenizes without special tokens (--no-special-tokens); with them it cannot.
    parts.post_processor = std::make_unique<RefusingPostProcessor>(fmt::format(
        "{}: the special token '{}' (tokenizer_config.json's {} or the default) is not in the "
        "vocabulary, so "
        "[CLS] A [SEP] cannot be made (--no-special-tokens leaves them out)",
        source, printable_text(*missing), missing == &config.cls ? "cls_token" : "sep_token"));
  } else {
    parts.post_processor = make_post_processor({{"type", "BertProcessing"},
                                                {"cls", {config.cls, *id_of(config.cls)}},
                                                {"sep", {config.sep, *id_of(config.sep)}}},
                                               place, parts.model->vocab_size());
  }
  parts.labels = LabelStyle::plain;
  return make_pipeline_tokenizer(std::move(parts));
}

}  // namespace attnviz
