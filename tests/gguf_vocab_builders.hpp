// The tokenizer.ggml.* metadata llama.cpp's converter writes for a vocabulary folder, rebuilt in
// C++ for the tests exactly as tests/fixtures/gguf_tokenizers/vocab_builders.mjs builds the files
// llama.cpp tokenized (CI has no node, and the files would add 40 MB to the repository):
//   bpe_vocab:           _set_vocab_gpt2 from tokenizer.json (+ tokenizer_config.json)
//   llama_hf_vocab:      _set_vocab_llama_hf (LlamaHfVocab: every score -1000)
//   sentencepiece_vocab: _set_vocab_sentencepiece from a .model (libsentencepiece reads it)
//   bert_vocab:          BertModel.set_vocab (phantom-space WordPiece) from bert-base-uncased's
//   vocab.txt
#pragma once

#include <sentencepiece_processor.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "attnviz/io/gguf/gguf.hpp"
#include "attnviz/io/json.hpp"

namespace attnviz::test {

using GgufEntries = std::vector<std::pair<std::string, GgufValue>>;

inline GgufValue gguf_string(const std::string& s) {
  return {GgufValueType::String, false, 1, {}, {s}};
}
inline GgufValue gguf_strings(std::vector<std::string> s) {
  const uint64_t n = s.size();
  return {GgufValueType::String, true, n, {}, std::move(s)};
}
template <typename T>
GgufValue gguf_numbers(GgufValueType type, const std::vector<T>& values, bool array = true) {
  GgufValue v{
      type, array, values.size(), std::vector<unsigned char>(values.size() * sizeof(T)), {}};
  if (!values.empty()) std::memcpy(v.bytes.data(), values.data(), v.bytes.size());
  return v;
}
inline GgufValue gguf_u32(uint32_t x) {
  return gguf_numbers(GgufValueType::U32, std::vector<uint32_t>{x}, false);
}
inline GgufValue gguf_bool(bool x) {
  return gguf_numbers(GgufValueType::Bool, std::vector<uint8_t>{x}, false);
}

inline bool looks_special(const std::string& t) {  // base.py does_token_look_special
  const auto starts = [&](const char* p) { return t.rfind(p, 0) == 0; };
  const auto ends = [&](const std::string& s) {
    return t.size() >= s.size() && t.compare(t.size() - s.size(), s.size(), s) == 0;
  };
  return t == "<pad>" || t == "<mask>" || t == "<2mass>" || t == "[@BOS@]" ||
         (starts("<|") && ends("|>")) || (starts("<\xef\xbd\x9c") && ends("\xef\xbd\x9c>")) ||
         (starts("<unused") && ends(">"));
}

inline std::string content_of(const nlohmann::json& entry) {
  if (entry.is_string()) return entry.get<std::string>();
  if (entry.is_object() && entry.contains("content") && entry["content"].is_string())
    return entry["content"].get<std::string>();
  return {};
}

// SpecialVocab: special ids (tokenizer_config's tokens among added_tokens) and add_*_token flags.
inline void add_special_vocab(GgufEntries& e, const nlohmann::json& tokenizer,
                              nlohmann::json config) {
  if (!config.is_object()) config = nlohmann::json::object();
  if (content_of(config.value("bos_token", nlohmann::json())).empty() &&
      config.contains("cls_token"))
    config["bos_token"] = config["cls_token"];
  if (content_of(config.value("eos_token", nlohmann::json())).empty() &&
      config.contains("sep_token"))
    config["eos_token"] = config["sep_token"];
  std::map<std::string, bool> add;
  const auto& post = tokenizer.value("post_processor", nlohmann::json());
  const auto processors = post.is_object() ? post.value("processors", nlohmann::json::array({post}))
                                           : nlohmann::json::array();
  for (const auto& p : processors) {
    if (p.value("type", "") != "TemplateProcessing" ||
        p.value("single", nlohmann::json::array()).size() <= 1)
      continue;
    const auto& single = p["single"];
    const std::string first =
        single.front().value("SpecialToken", nlohmann::json::object()).value("id", "");
    const std::string last =
        single.back().value("SpecialToken", nlohmann::json::object()).value("id", "");
    if (!first.empty())
      add["bos"] = first == content_of(config.value("bos_token", nlohmann::json())) ||
                   first == content_of(config.value("cls_token", nlohmann::json()));
    if (!last.empty()) add["eos"] = last == content_of(config.value("eos_token", nlohmann::json()));
  }
  const std::pair<const char*, const char*> keys[] = {{"bos", "bos_token_id"},
                                                      {"eos", "eos_token_id"},
                                                      {"unk", "unknown_token_id"},
                                                      {"sep", "seperator_token_id"},
                                                      {"pad", "padding_token_id"}};
  for (const auto& [typ, key] : keys) {
    const std::string flag = std::string("add_") + typ + "_token";
    if (config.contains(flag) && config[flag].is_boolean()) add[typ] = config[flag].get<bool>();
    const std::string content =
        content_of(config.value(std::string(typ) + "_token", nlohmann::json()));
    if (content.empty()) continue;
    for (const auto& a : tokenizer["added_tokens"]) {
      if (a["content"] == content) {
        e.emplace_back(std::string("tokenizer.ggml.") + key, gguf_u32(a["id"].get<uint32_t>()));
        break;
      }
    }
  }
  for (const char* typ : {"bos", "eos"}) {
    if (add.count(typ))
      e.emplace_back(std::string("tokenizer.ggml.add_") + typ + "_token", gguf_bool(add[typ]));
  }
}

inline nlohmann::json config_of(const std::filesystem::path& dir) {
  const auto file = dir / "tokenizer_config.json";
  return std::filesystem::exists(file) ? read_json_file(file) : nlohmann::json();
}

inline std::string merge_text(const nlohmann::json& m) {
  if (m.is_string()) return m.get<std::string>();
  std::string out;
  for (const auto& part : m) {
    std::string p = part.get<std::string>();
    for (size_t at = 0; (at = p.find(' ', at)) != std::string::npos;)
      p.replace(at, 1, "\xc4\xa0");  // U+0120
    out += (out.empty() ? "" : " ") + p;
  }
  return out;
}

inline GgufMetadata bpe_vocab(const std::filesystem::path& dir, const std::string& pre) {
  const auto tokenizer = read_json_file(dir / "tokenizer.json");
  std::map<int64_t, std::string> by_id;
  std::map<int64_t, nlohmann::json> added;
  for (const auto& [token, id] : tokenizer["model"]["vocab"].items())
    by_id[id.get<int64_t>()] = token;
  for (const auto& a : tokenizer["added_tokens"])
    by_id[a["id"].get<int64_t>()] = a["content"], added[a["id"].get<int64_t>()] = a;
  std::vector<std::string> tokens;
  std::vector<int32_t> types;
  for (int64_t i = 0; i <= by_id.rbegin()->first; ++i) {
    if (!by_id.count(i)) {
      tokens.push_back("[PAD" + std::to_string(i) + "]"), types.push_back(5);
      continue;
    }
    std::string token = by_id[i];
    if (!added.count(i))
      types.push_back(1);
    else if (added[i].value("special", false) || looks_special(token))
      types.push_back(3);
    else {
      for (size_t at = 0; (at = token.find("\xe2\x96\x81", at)) != std::string::npos;)
        token.replace(at, 3, " ");
      types.push_back(4);
    }
    tokens.push_back(token);
  }
  std::vector<std::string> merges;
  for (const auto& m : tokenizer["model"]["merges"]) merges.push_back(merge_text(m));
  GgufEntries e{{"tokenizer.ggml.model", gguf_string("gpt2")},
                {"tokenizer.ggml.tokens", gguf_strings(tokens)},
                {"tokenizer.ggml.token_type", gguf_numbers(GgufValueType::I32, types)},
                {"tokenizer.ggml.merges", gguf_strings(merges)}};
  if (!pre.empty())
    e.emplace_back("tokenizer.ggml.pre", gguf_string(pre));  // "": none, as old converters
  add_special_vocab(e, tokenizer, config_of(dir));
  return GgufMetadata(dir.string(), std::move(e));
}

inline GgufMetadata llama_hf_vocab(const std::filesystem::path& dir) {
  const auto tokenizer = read_json_file(dir / "tokenizer.json");
  const auto config = config_of(dir);
  const auto& vocab = tokenizer["model"]["vocab"];
  std::set<int64_t> special_ids;
  for (const char* typ : {"bos", "eos", "unk", "sep", "pad", "cls", "mask"}) {
    const std::string c = content_of(config.value(std::string(typ) + "_token", nlohmann::json()));
    if (!c.empty() && vocab.contains(c)) special_ids.insert(vocab[c].get<int64_t>());
  }
  for (const auto& c : config.value("additional_special_tokens", nlohmann::json::array())) {
    if (vocab.contains(content_of(c))) special_ids.insert(vocab[content_of(c)].get<int64_t>());
  }
  std::vector<std::string> tokens(vocab.size());
  for (const auto& [token, id] : vocab.items()) tokens.at(id.get<size_t>()) = token;
  std::vector<int32_t> types;
  const std::regex byte("<0x[0-9A-Fa-f]{2}>");
  for (size_t i = 0; i < tokens.size(); ++i) {
    types.push_back(std::regex_match(tokens[i], byte)            ? 6
                    : special_ids.count(static_cast<int64_t>(i)) ? 3
                                                                 : 1);
  }
  for (const auto& a : tokenizer["added_tokens"]) {  // in id order in the file
    if (a["id"].get<size_t>() < vocab.size()) continue;
    tokens.push_back(a["content"]), types.push_back(a.value("special", false) ? 3 : 4);
  }
  GgufEntries e{{"tokenizer.ggml.model", gguf_string("llama")},
                {"tokenizer.ggml.pre", gguf_string("default")},
                {"tokenizer.ggml.tokens", gguf_strings(tokens)},
                {"tokenizer.ggml.scores",
                 gguf_numbers(GgufValueType::F32, std::vector<float>(tokens.size(), -1000.0f))},
                {"tokenizer.ggml.token_type", gguf_numbers(GgufValueType::I32, types)}};
  add_special_vocab(e, tokenizer, config);
  return GgufMetadata(dir.string(), std::move(e));
}

inline GgufMetadata sentencepiece_vocab(const std::filesystem::path& model) {
  sentencepiece::SentencePieceProcessor sp;
  if (!sp.Load(model.string()).ok()) throw std::runtime_error("cannot load " + model.string());
  std::vector<std::string> tokens;
  std::vector<float> scores;
  std::vector<int32_t> types;
  for (int id = 0; id < sp.GetPieceSize(); ++id) {
    tokens.push_back(sp.IdToPiece(id)), scores.push_back(sp.GetScore(id));
    types.push_back(sp.IsUnknown(id)   ? 2
                    : sp.IsControl(id) ? 3
                    : sp.IsUnused(id)  ? 5
                    : sp.IsByte(id)    ? 6
                                       : 1);
  }
  GgufEntries e{{"tokenizer.ggml.model", gguf_string("llama")},
                {"tokenizer.ggml.pre", gguf_string("default")},
                {"tokenizer.ggml.tokens", gguf_strings(tokens)},
                {"tokenizer.ggml.scores", gguf_numbers(GgufValueType::F32, scores)},
                {"tokenizer.ggml.token_type", gguf_numbers(GgufValueType::I32, types)}};
  return GgufMetadata(model.string(), std::move(e));
}

// vocab_builders.mjs's bertVocab: the five [..] specials CONTROL and as they are, "##x" as "x",
// every other token "▁" + token; BOS [CLS] and EOS [SEP] from bert-base-uncased's template, added.
inline GgufMetadata bert_vocab(const std::filesystem::path& dir) {
  std::ifstream in(dir / "vocab.txt", std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + (dir / "vocab.txt").string());
  const std::set<std::string> specials{"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"};
  std::vector<std::string> tokens;
  std::vector<int32_t> types;
  uint32_t cls = 0, sep = 0;
  for (std::string w; std::getline(in, w);) {
    const bool control = specials.count(w) > 0;
    if (w == "[CLS]") cls = static_cast<uint32_t>(tokens.size());
    if (w == "[SEP]") sep = static_cast<uint32_t>(tokens.size());
    types.push_back(control ? 3 : 1);
    tokens.push_back(control ? w : w.rfind("##", 0) == 0 ? w.substr(2) : "\xe2\x96\x81" + w);
  }
  GgufEntries e{{"tokenizer.ggml.model", gguf_string("bert")},
                {"tokenizer.ggml.pre", gguf_string("bert-bge")},
                {"tokenizer.ggml.tokens", gguf_strings(tokens)},
                {"tokenizer.ggml.token_type", gguf_numbers(GgufValueType::I32, types)},
                {"tokenizer.ggml.bos_token_id", gguf_u32(cls)},
                {"tokenizer.ggml.eos_token_id", gguf_u32(sep)},
                {"tokenizer.ggml.add_bos_token", gguf_bool(true)},
                {"tokenizer.ggml.add_eos_token", gguf_bool(true)},
                {"tokenizer.ggml.add_sep_token", gguf_bool(false)},
                {"tokenizer.ggml.normalizer.lowercase", gguf_bool(true)}};
  return GgufMetadata(dir.string(), std::move(e));
}

}  // namespace attnviz::test
