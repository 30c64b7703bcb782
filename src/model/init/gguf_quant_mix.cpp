// llama.cpp's choice of tensor type per tensor (llama-quant.cpp: tensor_allows_quantization,
// llama_tensor_get_type_impl for the file types attnviz writes, tensor_type_fallback), for the
// tensors of the families `init` writes (no experts, no Falcon, no 70B, no imatrix).
#include "gguf_quant_mix.hpp"

#include "attnviz/io/gguf/gguf.hpp"

namespace attnviz::detail {

namespace {

using T = GgmlType;

constexpr uint32_t u(T t) {
  return static_cast<uint32_t>(t);
}

constexpr GgufFileType k_types[] = {
    {"F32", 0, u(T::F32)},      {"F16", 1, u(T::F16)},      {"BF16", 32, u(T::BF16)},
    {"Q8_0", 7, u(T::Q8_0)},    {"Q4_0", 2, u(T::Q4_0)},    {"Q4_1", 3, u(T::Q4_1)},
    {"Q5_0", 8, u(T::Q5_0)},    {"Q5_1", 9, u(T::Q5_1)},    {"Q2_K", 10, u(T::Q2_K)},
    {"Q3_K_M", 12, u(T::Q3_K)}, {"Q4_K_M", 15, u(T::Q4_K)}, {"Q5_K_M", 17, u(T::Q5_K)},
    {"Q6_K", 18, u(T::Q6_K)}};

enum class Category {
  output,
  token_embd,
  attn_v,
  attn_k,
  attn_q,
  attn_output,
  ffn_up,
  ffn_gate,
  ffn_down,
  other
};

// tensor_get_category: by substring, in llama.cpp's order (attn_qkv counts as attn_v).
Category category_of(const std::string& name) {
  if (name == "output.weight") return Category::output;
  if (name == "token_embd.weight") return Category::token_embd;
  const auto has = [&](const char* s) { return name.find(s) != std::string::npos; };
  if (has("attn_qkv.weight") || has("attn_v.weight")) return Category::attn_v;
  if (has("attn_k.weight")) return Category::attn_k;
  if (has("attn_q.weight")) return Category::attn_q;
  if (has("attn_output.weight")) return Category::attn_output;
  if (has("ffn_up")) return Category::ffn_up;
  if (has("ffn_gate")) return Category::ffn_gate;
  if (has("ffn_down")) return Category::ffn_down;
  return Category::other;
}

int64_t block_size(uint32_t type) {
  switch (static_cast<T>(type)) {
    case T::Q4_0:
    case T::Q4_1:
    case T::Q5_0:
    case T::Q5_1:
    case T::Q8_0:
      return 32;
    case T::Q2_K:
    case T::Q3_K:
    case T::Q4_K:
    case T::Q5_K:
    case T::Q6_K:
      return 256;
    default:
      return 1;
  }
}

bool quantized(uint32_t type) {
  return block_size(type) > 1;
}

// tensor_allows_quantization, for these families: weights of two or more dims, no norms.
bool allows_quantization(const MixTensor& t) {
  return t.name.ends_with("weight") && t.dims.size() >= 2 &&
         t.name.find("_norm.weight") == std::string::npos;
}

bool use_more_bits(int i_layer, int n_layers) {
  return i_layer < n_layers / 8 || i_layer >= 7 * n_layers / 8 || (i_layer - n_layers / 8) % 3 == 2;
}

struct State {
  const MixModel& model;
  std::string ftype;
  bool tied = true;
  int n_attention_wv = 0, i_attention_wv = 0, i_ffn_down = 0;
};

uint32_t attn_v_type(State& s, uint32_t t) {
  const int gqa = s.model.n_head_kv > 0 ? s.model.n_head / s.model.n_head_kv : 1;
  if (s.ftype == "Q2_K")
    t = gqa >= 4 ? u(T::Q4_K) : u(T::Q3_K);
  else if (s.ftype == "Q3_K_M")
    t = s.i_attention_wv < 2 ? u(T::Q5_K) : u(T::Q4_K);
  else if ((s.ftype == "Q4_K_M" || s.ftype == "Q5_K_M") &&
           use_more_bits(s.i_attention_wv, s.n_attention_wv)) {
    t = u(T::Q6_K);
  }
  ++s.i_attention_wv;
  return t;
}

uint32_t ffn_down_type(State& s, uint32_t t) {
  const int i = s.i_ffn_down++, n = s.model.n_layer;
  if (s.ftype == "Q2_K") return u(T::Q3_K);
  if (s.ftype == "Q3_K_M") return i < n / 16 ? u(T::Q5_K) : u(T::Q4_K);
  if ((s.ftype == "Q4_K_M" || s.ftype == "Q5_K_M") && use_more_bits(i, n)) return u(T::Q6_K);
  return t;
}

// llama_tensor_get_type_impl.
uint32_t mixed_type(State& s, const MixTensor& x, uint32_t t) {
  const Category c = category_of(x.name);
  if (c == Category::output || (s.tied && c == Category::token_embd)) {
    // The shared table gets the output's type: Q8_0 when rows are not whole blocks, else Q6_K.
    if (x.dims[0] % block_size(t) != 0) return u(T::Q8_0);
    return t == u(T::Q8_0) ? t : u(T::Q6_K);
  }
  if (c == Category::attn_v) return attn_v_type(s, t);
  if (c == Category::ffn_down) return ffn_down_type(s, t);
  if (c == Category::attn_output) {
    if (s.ftype == "Q2_K") return u(T::Q3_K);
    if (s.ftype == "Q3_K_M") return u(T::Q4_K);
  }
  return t;
}

// tensor_type_fallback: a row that is not whole blocks of the type takes a 32-block type, else F16.
uint32_t fallback(const MixTensor& x, uint32_t t) {
  const int64_t cols = x.dims[0];
  if (cols % block_size(t) == 0) return t;
  uint32_t r = t;
  switch (static_cast<T>(t)) {
    case T::Q2_K:
    case T::Q3_K:
      r = u(T::Q4_0);
      break;
    case T::Q4_K:
      r = u(T::Q5_0);
      break;
    case T::Q5_K:
      r = u(T::Q5_1);
      break;
    case T::Q6_K:
      r = u(T::Q8_0);
      break;
    default:
      break;
  }
  return cols % block_size(r) == 0 ? r : u(T::F16);
}

}  // namespace

const GgufFileType* gguf_file_type(const std::string& name) {
  for (const auto& t : k_types) {
    if (name == t.name) return &t;
  }
  return nullptr;
}

std::string gguf_file_type_names() {
  std::string out;
  for (const auto& t : k_types) out += (out.empty() ? "" : ", ") + std::string(t.name);
  return out;
}

std::vector<uint32_t> llama_quant_types(const std::vector<MixTensor>& tensors,
                                        const MixModel& model, const GgufFileType& type) {
  State s{model, type.name};
  for (const auto& x : tensors) {  // init_quantize_state_counters
    const Category c = category_of(x.name);
    if (c == Category::attn_v) ++s.n_attention_wv;
    if (c == Category::output) s.tied = false;
  }
  std::vector<uint32_t> out;
  for (const auto& x : tensors) {
    if (!allows_quantization(x)) {
      out.push_back(u(T::F32));
    } else if (!quantized(type.base)) {
      out.push_back(type.base);
    } else {
      out.push_back(fallback(x, mixed_type(s, x, type.base)));
    }
  }
  return out;
}

}  // namespace attnviz::detail
