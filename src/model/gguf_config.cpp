// GGUF metadata under config.json's names: the keys convert_hf_to_gguf.py writes (gguf-py's
// constants.py) read back, and llama.cpp's own constants (llama-model.cpp) where the file says
// nothing.
#include "gguf_config.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "attnviz/core/error.hpp"
#include "attnviz/core/unicode.hpp"
#include "attnviz/model/family.hpp"

namespace attnviz::detail {

namespace {

using Json = nlohmann::json;

enum class Kind { count, number, text, flag };

struct KeyRule {
  const char* key;  // after "<arch>."
  Kind kind;
  const char*
      hf;  // config.json's name; "" read (its type checked) but without effect, said why below
  bool shared = true;  // read for every family; else only for those whose record lists it
};

// "" keys: original_context_length is read by YaRN only (refused below), finetuned is a note,
// layer_norm_epsilon is LayerNorm's eps (these families only have RMSNorm), pooling_type pools the
// last hidden state of a sentence-embedding model (maps and logits unchanged).
constexpr KeyRule k_keys[] = {
    {"context_length", Kind::count, "max_position_embeddings"},
    {"embedding_length", Kind::count, "gguf.embedding_length"},
    {"block_count", Kind::count, "gguf.block_count"},
    {"feed_forward_length", Kind::count, "gguf.feed_forward_length"},
    {"attention.head_count", Kind::count, "num_attention_heads"},
    {"attention.head_count_kv", Kind::count, "num_key_value_heads"},
    {"attention.key_length", Kind::count, "head_dim"},
    {"attention.value_length", Kind::count, "gguf.value_length"},
    {"vocab_size", Kind::count, "gguf.vocab_size"},
    {"rope.dimension_count", Kind::count, "rope_dimension_count"},
    {"rope.freq_base", Kind::number, "rope_theta"},
    {"rope.freq_base_swa", Kind::number, "rope_local_base_freq", false},
    {"attention.layer_norm_rms_epsilon", Kind::number, "rms_norm_eps"},
    {"attention.sliding_window", Kind::count, "sliding_window", false},
    {"attn_logit_softcapping", Kind::number, "attn_logit_softcapping", false},
    {"final_logit_softcapping", Kind::number, "final_logit_softcapping", false},
    {"rope.scaling.type", Kind::text, "gguf.rope_scaling_type"},
    {"rope.scaling.factor", Kind::number, "gguf.rope_scaling_factor"},
    {"rope.scale_linear", Kind::number, "gguf.rope_scaling_factor"},
    {"rope.scaling.original_context_length", Kind::count, ""},
    {"rope.scaling.finetuned", Kind::flag, ""},
    {"attention.layer_norm_epsilon", Kind::number, ""},
    {"pooling_type", Kind::count, ""},
    {"expert_count", Kind::count, "gguf.expert_count"},
    {"expert_used_count", Kind::count, "gguf.expert_count"},
    {"attention.causal", Kind::flag, "gguf.causal"},
};

// llama.cpp refuses a file without these (get_key without `false`); head_count too, in effect.
constexpr const char* k_required[] = {"context_length", "embedding_length", "block_count",
                                      "attention.head_count", "attention.layer_norm_rms_epsilon"};

bool reads(const KeyRule& r, const Family& f) {
  return r.shared || std::find(f.gguf.keys.begin(), f.gguf.keys.end(), r.key) != f.gguf.keys.end();
}

const KeyRule* rule_of(const std::string& key, const Family& f) {
  for (const auto& r : k_keys) {
    if (key == r.key && reads(r, f)) return &r;
  }
  return nullptr;
}

Json value_of(const GgufMetadata& m, const std::string& key, Kind kind) {
  switch (kind) {
    case Kind::count:
      return m.get_count(key);
    case Kind::number:
      return static_cast<double>(m.get<float>(key));  // llama.cpp reads these as f32
    case Kind::text:
      return m.get<std::string>(key);
    case Kind::flag:
      return m.get<bool>(key);
  }
  return nullptr;
}

// rope.scaling.type / factor as HF's rope_scaling: llama.cpp's default type is linear, and factor
// 0 means none; YaRN and LongRoPE change the math in ways attnviz does not compute.
void rope_scaling(ConfigSource& s, const std::string& file, const std::string& arch) {
  auto& v = s.values;
  const std::string type =
      v.count("gguf.rope_scaling_type") ? v["gguf.rope_scaling_type"].get<std::string>() : "";
  const double factor =
      v.count("gguf.rope_scaling_factor") ? v["gguf.rope_scaling_factor"].get<double>() : 0.0;
  const bool scaled = factor != 0.0 && factor != 1.0;
  if (!std::isfinite(factor) ||
      factor < 0.0) {  // a file's value: exit 1, named as the file names it
    throw Error(
        fmt::format("{}: {}.rope.scaling.factor = {:g}: expected 0 (none) or a positive number",
                    file, arch, factor));
  }
  if (!type.empty() && type != "none" && type != "linear") {
    throw Error(fmt::format(
        "{}: {}.rope.scaling.type = '{}': not supported (attnviz reads none and linear)", file,
        arch, printable_text(type)));
  }
  if (type == "none" && scaled) {
    throw Error(fmt::format("{}: {}.rope.scaling.type = 'none' but {}.rope.scaling.factor = {:g}",
                            file, arch, arch, factor));
  }
  if (type == "linear" && !scaled) {
    throw Error(fmt::format(
        "{}: {}.rope.scaling.type = 'linear' without a factor other than 0 or 1", file, arch));
  }
  if (scaled) {
    v["rope_scaling"] = Json{{"rope_type", "linear"}, {"factor", factor}};
    s.names["rope_scaling"] = arch + ".rope.scaling.type/factor";
  }
}

void refuse_math_keys(const ConfigSource& s, const std::string& file, const std::string& arch) {
  const auto& v = s.values;
  if (v.count("gguf.expert_count") && v.at("gguf.expert_count").get<uint64_t>() > 0) {
    throw Error(fmt::format("{}: {}.expert_count: mixture-of-experts layers are not supported",
                            file, arch));
  }
  if (v.count("gguf.causal") && !v.at("gguf.causal").get<bool>()) {
    throw Error(fmt::format(
        "{}: {}.attention.causal = false: bidirectional attention in a decoder is not supported",
        file, arch));
  }
}

// What llama.cpp's load_hparams fixes for the family, whatever the file says (or where it is
// silent).
void llama_cpp_constants(ConfigSource& s, const GgufTensors& t) {
  auto& v = s.values;
  if (!v.count("rope_theta"))
    v["rope_theta"] = 10000.0;  // llama.cpp's rope_freq_base_train default
  v["tie_word_embeddings"] =
      !t.has("lm_head.weight");  // no output.weight: llama.cpp predicts with token_embd
  if (v.count("sliding_window") && v["sliding_window"] == 0)
    v["sliding_window"] = nullptr;  // Phi-4 writes 0
  const Family& f = *gguf_family(t.arch());
  for (const auto& c : f.gguf.constants) {
    if (c.fixed || !v.count(c.key)) v[c.key] = c.value;
  }
  if (f.gguf.wide_scale_layers > 0) {
    // f_attention_scale: 1/sqrt(n_embd / n_head) for the 27B models (the record says their layers),
    // else 1/sqrt(head_dim)
    const uint64_t d = v.at("gguf.embedding_length").get<uint64_t>(),
                   heads = v.at("num_attention_heads").get<uint64_t>();
    const uint64_t layers = v.at("gguf.block_count").get<uint64_t>();
    const bool big = layers == uint64_t(f.gguf.wide_scale_layers);
    const uint64_t head_dim =
        v.count("head_dim") ? v["head_dim"].get<uint64_t>() : d / std::max<uint64_t>(heads, 1);
    v["query_pre_attn_scalar"] = big ? d / std::max<uint64_t>(heads, 1) : head_dim;
    s.names["query_pre_attn_scalar"] =
        big ? "query_pre_attn_scalar (llama.cpp's n_embd / n_head for this size)"
            : "query_pre_attn_scalar (llama.cpp's head_dim)";
  }
}

}  // namespace

ConfigSource gguf_config_source(const GgufTensors& t) {
  const GgufMetadata& m = t.file().metadata();
  const std::string file = t.file().path().string(), arch = t.arch(), prefix = arch + ".";
  ConfigSource s{file + " metadata", {}, {}};
  const Family& f = *gguf_family(arch);
  s.values["model_type"] = f.layout.model_type;
  for (const auto& [key, value] : m.entries()) {
    if (!key.starts_with(prefix)) continue;  // general.*, tokenizer.*: not hyperparameters
    const KeyRule* r = rule_of(key.substr(prefix.size()), f);
    if (!r) {
      throw Error(fmt::format(
          "{}: metadata key '{}' is not one attnviz reads for architecture {}; it may change "
          "the model's math, so the file is refused rather than the key ignored",
          file, printable_text(key), arch));
    }
    const Json v = value_of(m, key, r->kind);
    if (std::strlen(r->hf) > 0) {
      s.values[r->hf] = v;
      s.names[r->hf] = key;  // messages name the file's key, not config.json's
    }
  }
  for (const char* key : k_required) {
    if (!s.values.count(rule_of(key, f)->hf)) {
      throw Error(fmt::format("{}: missing metadata key '{}{}' (llama.cpp requires it too)", file,
                              prefix, key));
    }
  }
  rope_scaling(s, file, arch);
  refuse_math_keys(s, file, arch);
  llama_cpp_constants(s, t);
  return s;
}

namespace {

// "<file> metadata: llama.feed_forward_length = 40, but the tensors have d_ff = 48".
void check_width(const ConfigSources& cfg, const std::string& hf, int actual,
                 const std::string& what) {
  const auto declared = cfg.integer({hf}, 0);
  if (declared && *declared != actual) {
    throw Error(
        fmt::format("{}, but the tensors have {} = {}", cfg.declared({hf})->origin, what, actual));
  }
}

}  // namespace

void apply_gguf_facts(Config& c, const GgufTensors& t, const ConfigSources& cfg) {
  check_width(cfg, "gguf.embedding_length", c.d_model, "d_model");
  check_width(cfg, "gguf.block_count", c.n_decoder_layers, "layers");
  check_width(cfg, "gguf.feed_forward_length", c.d_ff, "d_ff");
  check_width(cfg, "gguf.value_length", c.d_head_v(), "d_head_v");
  check_width(cfg, "gguf.vocab_size", c.vocab_size, "vocab rows");
  if (!t.rope_freqs()) return;
  const std::string file = t.file().path().string();
  const std::vector<float>& f = *t.rope_freqs();
  if (c.rope_scaling.kind != RopeScaling::Kind::none) {
    throw Error(fmt::format(
        "{}: rope_freqs.weight beside rope.scaling (linear × {:g}): attnviz applies one of them",
        file, c.rope_scaling.factor));
  }
  if (f.size() != size_t(c.rotary_dim / 2)) {
    throw Error(
        fmt::format("{}: tensor 'rope_freqs.weight' has {} values, expected {} (rotary dims / 2)",
                    file, f.size(), c.rotary_dim / 2));
  }
  for (size_t i = 0; i < f.size(); ++i) {
    if (!std::isfinite(f[i]) || !(f[i] > 0)) {
      throw Error(fmt::format("{}: rope_freqs.weight[{}] = {:g}: expected a positive number", file,
                              i, f[i]));
    }
  }
  c.rope_scaling.kind = RopeScaling::Kind::freq_factors;
  c.rope_scaling.freq_factors = f;
}

}  // namespace attnviz::detail
