// tokenizer.json → the pipeline tokenizer: added tokens, normalizer, pre-tokenizer, model,
// post-processor, as tokenizers' Tokenizer::from_file reads them.
#include "attnviz/inputs/tokenizers/pipeline/tokenizer_json.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "attnviz/core/error.hpp"
#include "attnviz/core/unicode.hpp"
#include "attnviz/inputs/tokenizers/pipeline/pipeline_tokenizer.hpp"
#include "attnviz/inputs/tokenizers/pipeline/spec_fields.hpp"
#include "attnviz/inputs/tokenizers/pipeline/tokenizer_config.hpp"
#include "attnviz/io/json.hpp"

namespace attnviz {

namespace fs = std::filesystem;

namespace {

std::vector<AddedToken> read_added_tokens(const nlohmann::json& json, const SpecPlace& place) {
  std::vector<AddedToken> tokens;
  const auto it = json.find("added_tokens");
  if (it == json.end() || it->is_null()) return tokens;
  if (!it->is_array()) place.at("added_tokens").fail("expected a list");
  for (size_t i = 0; i < it->size(); ++i) {
    const nlohmann::json& entry = (*it)[i];
    const SpecPlace at = place.at("added_tokens").at(i);
    if (!entry.is_object()) at.fail("expected an object");
    AddedToken token;
    const int64_t id = spec_int(entry, "id", -1, at);
    if (id < 0 || id >= (int64_t{1} << 31)) at.at("id").fail("expected an id from 0 below 2^31");
    token.id = id;
    token.content = spec_string(entry, "content", at);
    if (token.content.empty()) at.at("content").fail("empty");
    token.special = spec_bool(entry, "special", false, at);
    token.single_word = spec_bool(entry, "single_word", false, at);
    token.lstrip = spec_bool(entry, "lstrip", false, at);
    token.rstrip = spec_bool(entry, "rstrip", false, at);
    // tokenizers' default: special tokens are matched in the raw text, others after normalizing.
    token.normalized = spec_bool(entry, "normalized", !token.special, at);
    tokens.push_back(std::move(token));
  }
  return tokens;
}

// An added token and the model's vocabulary must agree: one text, one id (tokenizers would give the
// model's id to a token the model has, whatever added_tokens writes). Returns the ids' bound: the
// model's ids and the added tokens'.
int64_t check_added_tokens(const std::vector<AddedToken>& added, const TokenModel& model,
                           const SpecPlace& place) {
  int64_t size = model.vocab_size();
  for (size_t i = 0; i < added.size(); ++i) {
    const AddedToken& token = added[i];
    const SpecPlace at = place.at("added_tokens").at(i).at("id");
    if (const auto id = model.token_to_id(token.content); id && *id != token.id) {
      at.fail(fmt::format("'{}' has id {} here but {} in the model's vocabulary",
                          printable_text(token.content), token.id, *id));
    }
    if (const auto text = model.id_to_token(token.id); text && *text != token.content) {
      at.fail(fmt::format("id {} is '{}' here but '{}' in the model's vocabulary", token.id,
                          printable_text(token.content), printable_text(*text)));
    }
    size = std::max(size, token.id + 1);
  }
  return size;
}

bool has_type(const nlohmann::json& part, std::string_view type) {
  if (part.is_object()) {
    if (const auto it = part.find("type"); it != part.end() && it->is_string() && *it == type)
      return true;
    for (const auto& [key, value] : part.items()) {
      if ((value.is_object() || value.is_array()) && has_type(value, type)) return true;
    }
  } else if (part.is_array()) {
    for (const auto& value : part) {
      if (has_type(value, type)) return true;
    }
  }
  return false;
}

const nlohmann::json* part_of(const nlohmann::json& json, const char* key) {
  const auto it = json.find(key);
  return it == json.end() || it->is_null() ? nullptr : &*it;
}

// How the vocabulary writes tokens: GPT-2's byte alphabet when the pre-tokenizer or decoder is
// ByteLevel; SentencePiece's "▁" when a Metaspace or a "▁" replacement is in the pipeline.
LabelStyle label_style_of(const nlohmann::json& json) {
  const nlohmann::json empty;
  const nlohmann::json& pre = json.contains("pre_tokenizer") ? json.at("pre_tokenizer") : empty;
  const nlohmann::json& decoder = json.contains("decoder") ? json.at("decoder") : empty;
  if (has_type(pre, "ByteLevel") || has_type(decoder, "ByteLevel")) return LabelStyle::byte_level;
  const nlohmann::json& normalizer = json.contains("normalizer") ? json.at("normalizer") : empty;
  // Llama 2's files spell the metaspace in a Replace normalizer and decoder, not a Metaspace part.
  const auto mentions_metaspace = [](const nlohmann::json& part) {
    return part.dump().find("\u2581") != std::string::npos;
  };
  if (has_type(pre, "Metaspace") || has_type(decoder, "Metaspace") ||
      mentions_metaspace(normalizer) || mentions_metaspace(decoder)) {
    return LabelStyle::metaspace;
  }
  return LabelStyle::plain;
}

// transformers' LlamaTokenizerFast and GemmaTokenizerFast rebuild the post-processor from
// tokenizer_config.json (update_post_processor): "bos $A eos" with add_bos_token (default true)
// and add_eos_token (default false). Other classes keep tokenizer.json's post-processor.
std::optional<nlohmann::json> llama_template(const TokenizerConfig& config) {
  const std::optional<std::string> cls = config.text("tokenizer_class");
  if (!cls) return std::nullopt;
  const bool gemma = cls->starts_with("Gemma");
  if (!cls->starts_with("Llama") && !cls->starts_with("CodeLlama") && !gemma) return std::nullopt;
  const bool add_bos = config.flag("add_bos_token").value_or(true);
  const bool add_eos = config.flag("add_eos_token").value_or(false);
  nlohmann::json single = nlohmann::json::array();
  nlohmann::json specials = nlohmann::json::object();
  const auto add = [&](const char* key, const char* fallback) {
    const std::string token = config.token(key).value_or(fallback);
    single.push_back({{"SpecialToken", {{"id", token}, {"type_id", 0}}}});
    specials[token] = {{"id", token},
                       {"ids", nlohmann::json::array()},
                       {"tokens", nlohmann::json::array({token})}};
  };
  if (add_bos) add("bos_token", gemma ? "<bos>" : "<s>");
  single.push_back({{"Sequence", {{"id", "A"}, {"type_id", 0}}}});
  if (add_eos) add("eos_token", gemma ? "<eos>" : "</s>");
  return nlohmann::json{
      {"type", "TemplateProcessing"}, {"single", single}, {"special_tokens", specials}};
}

}  // namespace

std::unique_ptr<Tokenizer> read_tokenizer_json(const fs::path& file) {
  const nlohmann::json json = read_json_file(file);
  const SpecContext ctx{file.string()};
  const SpecPlace root{ctx, ""};
  if (!json.is_object())
    throw Error(fmt::format("{}: expected a JSON object, got {}", file.string(), json.type_name()));

  PipelineParts parts;
  parts.source = file.string();
  parts.added_tokens = read_added_tokens(json, root);
  if (const auto* spec = part_of(json, "normalizer"))
    parts.normalizer = make_normalizer(*spec, root.at("normalizer"));
  if (const auto* spec = part_of(json, "pre_tokenizer")) {
    parts.pre_tokenizer = make_pre_tokenizer(*spec, root.at("pre_tokenizer"));
  }
  const auto* model = part_of(json, "model");
  if (model == nullptr) root.at("model").fail("missing");
  parts.model = make_token_model(*model, root.at("model"));

  const int64_t vocab_size = check_added_tokens(parts.added_tokens, *parts.model, root);
  const TokenModel& vocabulary = *parts.model;
  const std::vector<AddedToken> added = parts.added_tokens;
  const TokenLookup lookup = [&vocabulary,
                              added](std::string_view token) -> std::optional<int64_t> {
    for (const AddedToken& a : added) {
      if (a.content == token) return a.id;
    }
    return vocabulary.token_to_id(token);
  };
  const TokenizerConfig config = read_tokenizer_config(file.parent_path());
  // The BOS token --bos always adds: transformers' bos_token, when the vocabulary holds it.
  if (const std::optional<std::string> bos = config.token("bos_token")) parts.bos = lookup(*bos);
  if (std::optional<nlohmann::json> rebuilt = llama_template(config)) {
    // The ids of the special tokens come from the vocabulary, as transformers looks them up.
    for (auto& [name, entry] : (*rebuilt)["special_tokens"].items()) {
      const std::optional<int64_t> id = lookup(name);
      if (!id) {
        throw Error(fmt::format("{}: the special token '{}' (tokenizer_class {}) is not in {}",
                                config.path.string(), name,
                                config.text("tokenizer_class").value_or("?"), file.string()));
      }
      entry["ids"].push_back(static_cast<uint64_t>(*id));
    }
    const SpecContext config_ctx{config.path.string() + " (add_bos_token, add_eos_token)"};
    parts.post_processor =
        make_post_processor(*rebuilt, SpecPlace{config_ctx, "post_processor"}, vocab_size);
  } else if (const auto* spec = part_of(json, "post_processor")) {
    parts.post_processor = make_post_processor(*spec, root.at("post_processor"), vocab_size);
  }
  // "truncation" and "padding" are not applied: transformers turns them off unless a call asks
  // for them, and attnviz shows every token. The "decoder" only turns ids back into text.
  parts.labels = label_style_of(json);
  parts.description = file.filename().string();
  return make_pipeline_tokenizer(std::move(parts));
}

}  // namespace attnviz
