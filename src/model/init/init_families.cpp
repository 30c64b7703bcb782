// `attnviz init --arch <family>`: the Hugging Face checkpoint of a registered family, as its record
// says (src/model/families/).
#include <fmt/format.h>

#include "attnviz/core/error.hpp"
#include "attnviz/model/family.hpp"
#include "init_detail.hpp"

namespace attnviz::detail {

namespace {

using Json = nlohmann::ordered_json;

struct Shape {
  int d, heads, kv_heads, head_dim, d_ff, layers, vocab;
};

// The settings the family's released checkpoints use, in their config.json names: the shared ones,
// then the record's over them.
Json family_config(const Family& f, const Shape& s) {
  Json c{{"architectures", {f.init->hf_class}},
         {"model_type", f.layout.model_type},
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
  for (const auto& k : f.init->config) {
    switch (k.from) {
      case InitConfigKey::From::value:
        c[k.key] = k.value;
        break;
      case InitConfigKey::From::layers:
        c[k.key] = s.layers;
        break;
      case InitConfigKey::From::head_dim:
        c[k.key] = s.head_dim;
        break;
    }
  }
  return c;
}

void write_layer(InitWriter& w, const Family& f, const Shape& s, int l) {
  const FamilyInit& init = *f.init;
  const std::string p = fmt::format("model.layers.{}.", l), a = p + "self_attn.";
  const float gain = 1.0f - f.layout.norm_offset;  // Gemma stores w of (1 + w)
  const int q = s.heads * s.head_dim, kv = s.kv_heads * s.head_dim;
  w.gain(p + "input_layernorm", s.d, gain);
  if (init.fused_qkv) {
    w.hf_weight(a + "qkv_proj", s.d, q + 2 * kv);
  } else {
    const auto proj = [&](const char* name, int rows) {
      init.qkv_bias ? w.hf_linear(a + name, s.d, rows) : w.hf_weight(a + name, s.d, rows);
    };
    proj("q_proj", q);
    proj("k_proj", kv);
    proj("v_proj", kv);
  }
  w.hf_weight(a + "o_proj", q, s.d);
  if (init.qk_norm) {
    w.gain(a + "q_norm", s.head_dim, 1.0f);
    w.gain(a + "k_norm", s.head_dim, 1.0f);
  }
  w.gain(p + "post_attention_layernorm", s.d, gain);
  if (init.sandwich_norms) {
    w.gain(p + "pre_feedforward_layernorm", s.d, gain);
    w.gain(p + "post_feedforward_layernorm", s.d, gain);
  }
  if (init.fused_gate_up) {
    w.hf_weight(p + "mlp.gate_up_proj", s.d, 2 * s.d_ff);
  } else {
    w.hf_weight(p + "mlp.gate_proj", s.d, s.d_ff);
    w.hf_weight(p + "mlp.up_proj", s.d, s.d_ff);
  }
  w.hf_weight(p + "mlp.down_proj", s.d_ff, s.d);
}

}  // namespace

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
  const Family& f = *init_family(o.arch);
  for (int l = 0; l < layers; ++l) write_layer(w, f, s, l);
  w.gain("model.norm", d, 1.0f - f.layout.norm_offset);
  Json config = family_config(f, s);
  if (o.max_positions > 0) config["max_position_embeddings"] = o.max_positions;
  if (!config["tie_word_embeddings"].get<bool>()) w.hf_weight("lm_head", d, s.vocab);
  return config;
}

}  // namespace attnviz::detail
