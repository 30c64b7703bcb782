// `attnviz init --arch llama|mistral|qwen2|qwen3|gemma2|phi3`: the Hugging Face checkpoint of a
// family.
#include <fmt/format.h>

#include "attnviz/core/error.hpp"
#include "init_writer.hpp"

namespace attnviz::detail {

namespace {

using Json = nlohmann::ordered_json;

struct Shape {
  int d, heads, kv_heads, head_dim, d_ff, layers, vocab;
};

// The settings each family's released checkpoints use (Llama 3.2, Mistral 7B v0.1, Qwen2.5, Qwen3,
// Gemma 2, Phi-3 mini), in their config.json names.
Json family_config(const std::string& arch, const Shape& s) {
  const char* classes[][2] = {{"llama", "Llama"}, {"mistral", "Mistral"}, {"qwen2", "Qwen2"},
                              {"qwen3", "Qwen3"}, {"gemma2", "Gemma2"},   {"phi3", "Phi3"}};
  std::string name;
  for (const auto& [type, cls] : classes) {
    if (arch == type) name = cls;
  }
  Json c{{"architectures", {name + "ForCausalLM"}},
         {"model_type", arch},
         {"hidden_size", s.d},
         {"intermediate_size", s.d_ff},
         {"num_hidden_layers", s.layers},
         {"num_attention_heads", s.heads},
         {"num_key_value_heads", s.kv_heads},
         {"head_dim", s.head_dim},
         {"hidden_act", "silu"},
         {"max_position_embeddings", 131072},
         {"rms_norm_eps", 1e-5},
         {"rope_theta", 10000.0},
         {"tie_word_embeddings", false},
         {"vocab_size", s.vocab},
         {"torch_dtype", "float32"}};
  if (arch == "llama") {
    c["rope_theta"] = 500000.0;
    c["tie_word_embeddings"] = true;
    c["rope_scaling"] = {{"factor", 32.0},
                         {"high_freq_factor", 4.0},
                         {"low_freq_factor", 1.0},
                         {"original_max_position_embeddings", 8192},
                         {"rope_type", "llama3"}};
  } else if (arch == "mistral" || arch == "phi3") {
    c["sliding_window"] = arch == "phi3" ? 2047 : 4096;
    c["max_position_embeddings"] = arch == "phi3" ? 4096 : 32768;
  } else if (arch == "qwen2" || arch == "qwen3") {
    c["rope_theta"] = 1000000.0;
    c["rms_norm_eps"] = 1e-6;
    c["tie_word_embeddings"] = true;
    c["use_sliding_window"] = false;
    c["sliding_window"] = nullptr;
    c["max_window_layers"] = s.layers;
  } else if (arch == "gemma2") {
    c["hidden_act"] = c["hidden_activation"] = "gelu_pytorch_tanh";
    c["rms_norm_eps"] = 1e-6;
    c["tie_word_embeddings"] = true;
    c["max_position_embeddings"] = 8192;
    c["sliding_window"] = 4096;
    c["attn_logit_softcapping"] = 50.0;
    c["final_logit_softcapping"] = 30.0;
    c["query_pre_attn_scalar"] = s.head_dim;
  }
  return c;
}

void write_layer(InitWriter& w, const std::string& arch, const Shape& s, int l) {
  const std::string p = fmt::format("model.layers.{}.", l), a = p + "self_attn.";
  const bool gemma = arch == "gemma2";
  const float gain = gemma ? 0.0f : 1.0f;  // Gemma stores w of (1 + w)
  const int q = s.heads * s.head_dim, kv = s.kv_heads * s.head_dim;
  w.gain(p + "input_layernorm", s.d, gain);
  if (arch == "phi3") {
    w.hf_weight(a + "qkv_proj", s.d, q + 2 * kv);
  } else {
    const auto proj = [&](const char* name, int rows) {
      arch == "qwen2" ? w.hf_linear(a + name, s.d, rows)
                      : w.hf_weight(a + name, s.d, rows);  // Qwen2's biases
    };
    proj("q_proj", q);
    proj("k_proj", kv);
    proj("v_proj", kv);
  }
  w.hf_weight(a + "o_proj", q, s.d);
  if (arch == "qwen3") {
    w.gain(a + "q_norm", s.head_dim, 1.0f);
    w.gain(a + "k_norm", s.head_dim, 1.0f);
  }
  w.gain(p + "post_attention_layernorm", s.d, gain);
  if (gemma) {
    w.gain(p + "pre_feedforward_layernorm", s.d, gain);
    w.gain(p + "post_feedforward_layernorm", s.d, gain);
  }
  if (arch == "phi3") {
    w.hf_weight(p + "mlp.gate_up_proj", s.d, 2 * s.d_ff);
  } else {
    w.hf_weight(p + "mlp.gate_proj", s.d, s.d_ff);
    w.hf_weight(p + "mlp.up_proj", s.d, s.d_ff);
  }
  w.hf_weight(p + "mlp.down_proj", s.d_ff, s.d);
}

}  // namespace

}  // namespace attnviz::detail

namespace attnviz {

bool is_hf_family(const std::string& arch) {
  for (const char* name : {"llama", "mistral", "qwen2", "qwen3", "gemma2", "phi3"}) {
    if (arch == name) return true;
  }
  return false;
}

}  // namespace attnviz

namespace attnviz::detail {

Json write_llama_family(InitWriter& w, const InitOptions& o, int d, int heads, int d_ff,
                        int layers) {
  const int kv_heads = o.n_kv_heads > 0 ? o.n_kv_heads : heads % 2 == 0 ? heads / 2 : heads;
  if (heads % kv_heads != 0) {
    throw usage_error(fmt::format("init: --kv-heads {} must divide --heads {}", kv_heads, heads));
  }
  if (o.vocab_size <= 0 || o.tokenizer_json.empty()) {
    throw usage_error(
        fmt::format("init --arch {}: the model needs a tokenizer (its vocabulary size)", o.arch));
  }
  const Shape s{d, heads, kv_heads, d / heads, d_ff, layers, o.vocab_size};
  w.embedding("model.embed_tokens.weight", s.vocab, d, 0.02f);
  for (int l = 0; l < layers; ++l) write_layer(w, o.arch, s, l);
  w.gain("model.norm", d, o.arch == "gemma2" ? 0.0f : 1.0f);
  Json config = family_config(o.arch, s);
  if (!config["tie_word_embeddings"].get<bool>()) w.hf_weight("lm_head", d, s.vocab);
  return config;
}

}  // namespace attnviz::detail
