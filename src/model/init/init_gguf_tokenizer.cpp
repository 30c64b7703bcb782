// A tokenizer.json as GGUF metadata, as convert_hf_to_gguf.py's get_vocab_base writes a BPE
// vocabulary (gaps as [PAD<id>], added special tokens CONTROL, others USER_DEFINED, merges "a b").
#include "init_gguf_tokenizer.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "attnviz/core/error.hpp"

namespace attnviz::detail {

namespace {

using Json = nlohmann::json;

// llama.cpp's name for the pre-tokenizer (llama-vocab.cpp's tokenizer_pre), from its split regex.
std::string pre_name(const Json& t) {
  const Json& p = t.value("pre_tokenizer", Json());
  if (p.is_object() && p.value("type", "") == "ByteLevel" && p.value("use_regex", false))
    return "gpt-2";
  if (p.is_object() && p.value("type", "") == "Sequence" &&
      !p.value("pretokenizers", Json::array()).empty()) {
    const Json& split = p["pretokenizers"][0];
    const std::string regex = split.value("pattern", Json::object()).value("Regex", "");
    const std::string common = "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|";
    const std::string tail = "| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
    if (regex == common + "\\p{N}{1,3}" + tail) return "llama-bpe";
    if (regex == common + "\\p{N}" + tail) return "qwen2";
  }
  return "";
}

// The first special token TemplateProcessing puts before a single text, when there is one.
std::string template_bos(const Json& t) {
  const Json& p = t.value("post_processor", Json());
  if (!p.is_object() || p.value("type", "") != "TemplateProcessing" || p["single"].empty())
    return "";
  const Json& first = p["single"][0];
  return first.contains("SpecialToken") ? first["SpecialToken"].value("id", "") : "";
}

}  // namespace

void add_gguf_tokenizer(GgufWriter& g, const InitOptions& o) {
  const Json t = Json::parse(o.tokenizer_json);
  const std::string pre = pre_name(t);
  if (t["model"].value("type", "") != "BPE" || pre.empty()) {
    throw usage_error(
        "init --gguf: the tokenizer is not byte-level BPE with GPT-2's, Llama 3's or Qwen2's "
        "pre-tokenizer, the ones attnviz can name in tokenizer.ggml.pre");
  }
  std::vector<std::string> tokens(static_cast<size_t>(o.vocab_size));
  std::vector<int32_t> types(tokens.size(), 1);  // NORMAL
  for (size_t id = 0; id < tokens.size(); ++id) tokens[id] = fmt::format("[PAD{}]", id);
  for (const auto& [token, id] : t["model"]["vocab"].items()) tokens.at(id.get<size_t>()) = token;
  const std::string bos_token = o.bos_token.empty() ? template_bos(t) : o.bos_token;
  int64_t bos = -1, eos = -1;
  for (const auto& a : t.value("added_tokens", Json::array())) {
    const size_t id = a.at("id").get<size_t>();
    tokens.at(id) = a.at("content").get<std::string>();
    types.at(id) = a.value("special", false) ? 3 : 4;  // CONTROL : USER_DEFINED
    if (tokens[id] == bos_token) bos = int64_t(id);
    if (tokens[id] == o.eos_token) eos = int64_t(id);
  }
  std::vector<std::string> merges;
  for (const auto& m : t["model"].value("merges", Json::array())) {
    merges.push_back(m.is_string() ? m.get<std::string>()
                                   : m.at(0).get<std::string>() + " " + m.at(1).get<std::string>());
  }
  g.set("tokenizer.ggml.model", gguf_string("gpt2"));
  g.set("tokenizer.ggml.pre", gguf_string(pre));
  g.set("tokenizer.ggml.tokens", gguf_strings(tokens));
  g.set("tokenizer.ggml.token_type", gguf_array<int32_t>(types));
  g.set("tokenizer.ggml.merges", gguf_strings(merges));
  if (bos >= 0) g.set("tokenizer.ggml.bos_token_id", gguf_scalar<uint32_t>(uint32_t(bos)));
  if (eos >= 0) g.set("tokenizer.ggml.eos_token_id", gguf_scalar<uint32_t>(uint32_t(eos)));
  g.set("tokenizer.ggml.add_bos_token", gguf_scalar<bool>(bos >= 0));
  g.set("tokenizer.ggml.add_eos_token", gguf_scalar<bool>(false));
}

}  // namespace attnviz::detail
