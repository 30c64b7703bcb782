// Writes a GGUF file from a Hugging Face fixture as llama.cpp's convert_hf_to_gguf.py would (names
// of gguf-py's tensor_mapping.py, dims reversed, Llama's q/k rows permuted, Gemma's norms + 1,
// Llama 3's rope_freqs, Phi-3's keys), written here independently of attnviz's loader so tests
// compare the two.
#pragma once

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "attnviz/io/safetensors.hpp"
#include "gguf_builder.hpp"

namespace attnviz::test {

// ggml type numbers and gguf value types used here.
constexpr int32_t k_ggml_f32 = 0, k_ggml_q8_0 = 8;
constexpr int32_t k_gguf_u32 = 4, k_gguf_f32 = 6, k_gguf_bool = 7;

// A tensor laid out where the builder puts it (every field given: -Wmissing-field-initializers).
inline GgufTensorSpec spec(std::string name, int32_t type, std::vector<int64_t> dims,
                           std::string data) {
  return GgufTensorSpec{std::move(name), type,         std::move(dims),
                        std::move(data), std::nullopt, std::nullopt};
}

inline std::string f32_bytes(const std::vector<float>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float));
}

// IEEE half → float, exactly (the scale of a Q8_0 block).
inline float half_to_float(uint16_t h) {
  const int e = (h >> 10) & 31, m = h & 1023;
  const float mag = e == 0 ? std::ldexp(float(m), -24) : std::ldexp(float(m | 1024), e - 25);
  return (h & 0x8000) ? -mag : mag;
}
// float → half, truncating (any half will do: the reference dequantises the stored bits).
inline uint16_t float_to_half(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint16_t sign = uint16_t((x >> 16) & 0x8000);
  const int e = int((x >> 23) & 255) - 127 + 15;
  if (e <= 0) return sign;  // tiny scales: 0 (the block dequantises to zeros, the reference too)
  return uint16_t(sign | (std::min(e, 30) << 10) | ((x >> 13) & 1023));
}

// Q8_0 blocks of rows of `cols` (quantize_row_q8_0_ref: d = amax / 127, q = round(x / d));
// `dequantized` receives q · d as the file holds it.
inline std::string q8_0_bytes(const std::vector<float>& v, std::vector<float>& dequantized) {
  std::string out;
  dequantized.resize(v.size());
  for (size_t b = 0; b < v.size(); b += 32) {
    float amax = 0;
    for (size_t i = 0; i < 32; ++i) amax = std::max(amax, std::fabs(v[b + i]));
    const uint16_t dh = float_to_half(amax / 127.0f);
    const float d = half_to_float(dh);
    out.append(reinterpret_cast<const char*>(&dh), 2);
    for (size_t i = 0; i < 32; ++i) {
      const int q = d == 0 ? 0 : std::clamp(int(std::lround(v[b + i] / d)), -127, 127);
      out.push_back(static_cast<char>(int8_t(q)));
      dequantized[b + i] = float(q) * d;
    }
  }
  return out;
}

struct HfToGguf {
  GgufBuilder gguf;
  nlohmann::json config;
  std::string arch;  // general.architecture

  // LlamaModel.permute: w.reshape(n_head, 2, d/2, cols).swapaxes(1, 2).reshape(w.shape).
  static std::vector<float> permute(const std::vector<float>& w, int64_t rows, int64_t cols,
                                    int heads) {
    std::vector<float> out(w.size());
    const int64_t d = rows / heads, half = d / 2;
    for (int64_t h = 0; h < heads; ++h)
      for (int64_t i = 0; i < half; ++i)
        for (int64_t j = 0; j < 2; ++j)
          std::memcpy(&out[size_t((h * d + 2 * i + j) * cols)],
                      &w[size_t((h * d + j * half + i) * cols)], sizeof(float) * size_t(cols));
    return out;
  }

  static std::string gguf_name(const std::string& hf, const std::string& arch) {
    static const std::vector<std::pair<std::string, std::string>> top{
        {"model.embed_tokens", "token_embd"}, {"model.norm", "output_norm"}, {"lm_head", "output"}};
    // Gemma 2/3's sandwich: FFN_NORM is pre_feedforward_layernorm (Gemma 1 keeps Llama's names).
    const bool sandwich = arch == "gemma2" || arch == "gemma3";
    const std::vector<std::pair<std::string, std::string>> layer{
        {"input_layernorm", "attn_norm"},
        {"self_attn.q_proj", "attn_q"},
        {"self_attn.k_proj", "attn_k"},
        {"self_attn.v_proj", "attn_v"},
        {"self_attn.o_proj", "attn_output"},
        {"self_attn.q_norm", "attn_q_norm"},
        {"self_attn.k_norm", "attn_k_norm"},
        {"self_attn.qkv_proj", "attn_qkv"},
        {"mlp.gate_up_proj", "ffn_up"},
        {"post_attention_layernorm", sandwich ? "post_attention_norm" : "ffn_norm"},
        {"pre_feedforward_layernorm", "ffn_norm"},
        {"post_feedforward_layernorm", "post_ffw_norm"},
        {"mlp.gate_proj", "ffn_gate"},
        {"mlp.up_proj", "ffn_up"},
        {"mlp.down_proj", "ffn_down"}};
    const size_t dot = hf.rfind('.');
    const std::string base = hf.substr(0, dot), suffix = hf.substr(dot);
    for (const auto& [h, g] : top)
      if (base == h) return g + suffix;
    const std::string p = "model.layers.";
    const size_t end = base.find('.', p.size());
    const std::string n = base.substr(p.size(), end - p.size()), rest = base.substr(end + 1);
    for (const auto& [h, g] : layer)
      if (rest == h) return "blk." + n + "." + g + suffix;
    throw std::runtime_error("no GGUF name for " + hf);
  }

  void u32(const std::string& key, uint64_t v) {
    gguf.kv<uint32_t>(arch + "." + key, k_gguf_u32, uint32_t(v));
  }
  void f32(const std::string& key, double v) {
    gguf.kv<float>(arch + "." + key, k_gguf_f32, float(v));
  }
  bool has(const char* k) const { return config.contains(k) && !config[k].is_null(); }

  // TextModel.set_gguf_parameters, then each family's own keys.
  void metadata() {
    gguf.kv_string("general.architecture", arch);
    const auto& c = config;
    u32("block_count", c["num_hidden_layers"]);
    u32("context_length", c["max_position_embeddings"]);
    u32("embedding_length", c["hidden_size"]);
    u32("feed_forward_length", c["intermediate_size"]);
    u32("attention.head_count", c["num_attention_heads"]);
    if (has("num_key_value_heads")) u32("attention.head_count_kv", c["num_key_value_heads"]);
    // GemmaModel / Gemma2Model write no rope.freq_base (llama.cpp's default: 10000).
    if (has("rope_theta") && arch != "gemma" && arch != "gemma2")
      f32("rope.freq_base", c["rope_theta"]);
    f32("attention.layer_norm_rms_epsilon", c["rms_norm_eps"]);
    if (has("head_dim") &&
        arch != "phi3") {  // Phi3MiniModel writes its own keys, not the base class's
      u32("attention.key_length", c["head_dim"]);
      u32("attention.value_length", c["head_dim"]);
    }
    if (arch == "llama") {
      u32("vocab_size", c["vocab_size"]);
      u32("rope.dimension_count", c["head_dim"]);
    }
    if (arch == "gemma2") {
      f32("attn_logit_softcapping", c["attn_logit_softcapping"]);
      f32("final_logit_softcapping", c["final_logit_softcapping"]);
    }
    if (arch == "gemma2" || arch == "gemma3") u32("attention.sliding_window", c["sliding_window"]);
    if (arch == "gemma3" && has("rope_scaling")) {
      gguf.kv_string("gemma3.rope.scaling.type", "linear");
      f32("rope.scaling.factor", c["rope_scaling"]["factor"]);
    }
    if (arch ==
        "phi3") {  // Phi3MiniModel: rope dims int(rot_pct · n_embd) // n_head; Phi3Config's 4096
      u32("rope.scaling.original_context_length", 4096);
      u32("rope.dimension_count", int64_t(c["hidden_size"]) / int64_t(c["num_attention_heads"]));
      u32("attention.sliding_window", has("sliding_window") ? int64_t(c["sliding_window"]) : 0);
    }
  }

  // LlamaModel.generate_extra_tensors for rope_type llama3, in float32 as torch computes it.
  void llama3_rope_freqs() {
    const auto& s = config["rope_scaling"];
    const float base = config["rope_theta"], factor = s["factor"], low = s["low_freq_factor"],
                high = s["high_freq_factor"], old = s["original_max_position_embeddings"];
    const int dim = config["head_dim"];
    std::vector<float> factors;
    for (int i = 0; i < dim; i += 2) {
      const float freq = 1.0f / std::pow(base, float(i) / float(dim));
      const float wavelen = float(2 * M_PI) / freq;
      if (wavelen < old / high)
        factors.push_back(1);
      else if (wavelen > old / low)
        factors.push_back(factor);
      else {
        const float smooth = (old / wavelen - low) / (high - low);
        factors.push_back(1 / ((1 - smooth) / factor + smooth));
      }
    }
    gguf.tensor(
        spec("rope_freqs.weight", k_ggml_f32, {int64_t(factors.size())}, f32_bytes(factors)));
  }

  // `quantized`: matrices whose rows hold whole 32-blocks are Q8_0; `reference` then gets an F32
  // twin holding their dequantised values, for comparing the two.
  void tensors(const std::filesystem::path& dir, bool quantized, HfToGguf* reference) {
    const SafetensorsFile st = SafetensorsFile::open(dir / "model.safetensors");
    const bool tied = config.value("tie_word_embeddings", false);
    for (const auto& info : st.tensors()) {
      if (info.name == "lm_head.weight" && tied) continue;
      Tensor t = st.load(info.name);
      const int64_t rows = t.shape[0], cols = t.shape.size() > 1 ? t.shape[1] : 1;
      if (arch == "llama" && info.name.find("q_proj") != std::string::npos)
        t.data = permute(t.data, rows, cols, config["num_attention_heads"]);
      if (arch == "llama" && info.name.find("k_proj") != std::string::npos)
        t.data = permute(t.data, rows, cols, config["num_key_value_heads"]);
      if (arch.starts_with("gemma") && info.name.ends_with("norm.weight"))
        for (float& x : t.data)
          x += 1.0f;  // GemmaModel / Gemma2Model / Gemma3Model: data_torch + 1
      std::vector<int64_t> dims(t.shape.rbegin(), t.shape.rend());
      const std::string name = gguf_name(info.name, arch);
      if (quantized && t.shape.size() == 2 && cols % 32 == 0) {
        std::vector<float> deq;
        gguf.tensor(spec(name, k_ggml_q8_0, dims, q8_0_bytes(t.data, deq)));
        if (reference) reference->gguf.tensor(spec(name, k_ggml_f32, dims, f32_bytes(deq)));
      } else {
        gguf.tensor(spec(name, k_ggml_f32, dims, f32_bytes(t.data)));
        if (reference) reference->gguf.tensor(spec(name, k_ggml_f32, dims, f32_bytes(t.data)));
      }
    }
    if (arch == "llama" && has("rope_scaling") &&
        config["rope_scaling"].value("rope_type", "") == "llama3") {
      llama3_rope_freqs();
      if (reference) reference->gguf.tensors.push_back(gguf.tensors.back());
    }
  }

  static HfToGguf convert(const std::filesystem::path& dir, const std::string& arch,
                          bool quantized = false, HfToGguf* reference = nullptr) {
    HfToGguf h;
    h.arch = arch;
    std::ifstream(dir / "config.json") >> h.config;
    h.metadata();
    if (reference) *reference = h;
    h.tensors(dir, quantized, reference);
    return h;
  }

  // Drops the metadata pair with this key (the test's malformed files).
  void drop(const std::string& key) {
    std::erase_if(gguf.kvs, [&](const std::string& kv) {
      uint64_t n = 0;
      std::memcpy(&n, kv.data(), sizeof n);  // each pair starts with its key: u64 length, bytes
      return n == key.size() && kv.compare(8, key.size(), key) == 0;
    });
  }

  void write(const std::filesystem::path& path) const {
    std::ofstream(path, std::ios::binary) << gguf.build();
  }
};

}  // namespace attnviz::test
