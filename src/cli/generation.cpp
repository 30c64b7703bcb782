// The EOS tokens and the decoding settings of a model's files, for --generate.
#include "attnviz/cli/generation.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "attnviz/core/error.hpp"
#include "attnviz/io/gguf/gguf.hpp"
#include "attnviz/io/json.hpp"

namespace attnviz {

namespace fs = std::filesystem;

namespace {

// An id or a list of ids (eos_token_id's two forms).
std::vector<int64_t> ids_of(const nlohmann::json& v, const std::string& where) {
  std::vector<int64_t> out;
  const auto one = [&](const nlohmann::json& id) {
    if (!id.is_number_integer() || id.get<int64_t>() < 0) {
      throw Error(fmt::format("{}: eos_token_id: expected an id or a list of ids, got {}", where,
                              v.dump()));
    }
    out.push_back(id.get<int64_t>());
  };
  if (v.is_array()) {
    for (const auto& id : v) one(id);
  } else if (!v.is_null()) {
    one(v);
  }
  return out;
}

// The settings of transformers' GenerationConfig that change what greedy decoding picks, each with
// the value that changes nothing.
bool changes_greedy(const std::string& key, const nlohmann::json& v) {
  if (v.is_null()) return false;
  if (key == "num_beams" || key == "num_beam_groups") return v != 1;
  if (key == "do_sample") return v == true;
  if (key == "repetition_penalty" || key == "encoder_repetition_penalty") return v != 1;
  if (key == "no_repeat_ngram_size" || key == "encoder_no_repeat_ngram_size" ||
      key == "min_length" || key == "min_new_tokens")
    return v != 0;
  if (key == "bad_words_ids" || key == "suppress_tokens" || key == "begin_suppress_tokens" ||
      key == "sequence_bias" || key == "forced_decoder_ids")
    return !(v.is_array() && v.empty()) && !(v.is_object() && v.empty());
  if (key == "forced_bos_token_id" || key == "forced_eos_token_id") return true;
  return false;
}

constexpr const char* k_keys[] = {"num_beams",
                                  "num_beam_groups",
                                  "do_sample",
                                  "repetition_penalty",
                                  "encoder_repetition_penalty",
                                  "no_repeat_ngram_size",
                                  "encoder_no_repeat_ngram_size",
                                  "min_length",
                                  "min_new_tokens",
                                  "bad_words_ids",
                                  "suppress_tokens",
                                  "begin_suppress_tokens",
                                  "sequence_bias",
                                  "forced_decoder_ids",
                                  "forced_bos_token_id",
                                  "forced_eos_token_id"};

}  // namespace

GenerationSettings generation_settings(const Model& model) {
  GenerationSettings s;
  if (!model.gguf.empty()) {
    const GgufFile gguf = GgufFile::open(model.gguf);
    if (gguf.metadata().find("tokenizer.ggml.eos_token_id"))
      s.eos.push_back(
          static_cast<int64_t>(gguf.metadata().get_count("tokenizer.ggml.eos_token_id")));
    return s;
  }
  // generation_config.json, as transformers' generate reads it, else config.json (older
  // checkpoints keep their generation settings there: GenerationConfig.from_model_config).
  for (const char* name : {"generation_config.json", "config.json"}) {
    const fs::path file = model.dir / name;
    std::error_code ec;
    if (!fs::exists(file, ec)) continue;
    const nlohmann::json j = read_json_file(file);
    if (!j.is_object()) continue;
    if (j.contains("eos_token_id")) s.eos = ids_of(j["eos_token_id"], file.string());
    std::string asked;
    for (const char* key : k_keys) {
      if (!j.contains(key) || !changes_greedy(key, j[key])) continue;
      asked += fmt::format("{}{} = {}", asked.empty() ? "" : ", ", key, j[key].dump());
    }
    if (!asked.empty()) {
      s.notes.push_back(fmt::format(
          "{} asks for {}: attnviz decodes greedily (one beam, the argmax at each step) and "
          "applies none of them",
          file.string(), asked));
    }
    break;
  }
  if (s.eos.empty()) {
    s.notes.push_back(
        fmt::format("{} names no EOS token (eos_token_id): --generate runs to its "
                    "count",
                    model.name));
  }
  return s;
}

}  // namespace attnviz
