// GGUF tensors as a Hugging Face checkpoint: llama.cpp's names (gguf-py's tensor_mapping.py) mapped
// back to transformers', dims reversed, and what convert_hf_to_gguf.py did to the values undone.
#include "attnviz/model/gguf_tensors.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cstring>

#include "attnviz/core/error.hpp"
#include "attnviz/core/unicode.hpp"
#include "attnviz/model/family.hpp"

namespace attnviz::detail {

namespace fs = std::filesystem;

namespace {

struct NameRule {
  const char* gguf;  // llama.cpp's name, without .weight / .bias
  const char* hf;    // transformers' name under model.layers.N. (or at the top)
};

// gguf-py's tensor_mapping.py, read backwards: the names every family shares (a family's record
// adds its own and leaves out those its graph never reads).
constexpr NameRule k_top[] = {
    {"token_embd", "model.embed_tokens"}, {"output_norm", "model.norm"}, {"output", "lm_head"}};
constexpr NameRule k_layer[] = {
    {"attn_norm", "input_layernorm"},    {"attn_q", "self_attn.q_proj"},
    {"attn_k", "self_attn.k_proj"},      {"attn_v", "self_attn.v_proj"},
    {"attn_output", "self_attn.o_proj"}, {"attn_q_norm", "self_attn.q_norm"},
    {"attn_k_norm", "self_attn.k_norm"}, {"ffn_norm", "post_attention_layernorm"},
    {"ffn_gate", "mlp.gate_proj"},       {"ffn_up", "mlp.up_proj"},
    {"ffn_down", "mlp.down_proj"}};

const char* lookup(const NameRule* begin, const NameRule* end, const std::string& base) {
  for (const NameRule* r = begin; r != end; ++r) {
    if (base == r->gguf) return r->hf;
  }
  return nullptr;
}

const char* layer_name(const Family& f, const std::string& base) {
  // Tensors llama.cpp's graph of the architecture never reads: binding them would compute another
  // model.
  if ((base == "attn_q_norm" || base == "attn_k_norm") && !f.gguf.qk_norm) return nullptr;
  for (const auto& unread : f.gguf.unread) {
    if (base == unread) return nullptr;
  }
  for (const auto& r : f.gguf.layer_names) {  // the family's own names first
    if (base == r.gguf) return r.hf.c_str();
  }
  return lookup(std::begin(k_layer), std::end(k_layer), base);
}

// "blk.3.attn_q.weight" → "model.layers.3.self_attn.q_proj.weight"; nullopt for a name no rule
// maps.
std::optional<std::string> hf_name(const Family& f, const std::string& name) {
  std::string suffix;
  for (const char* s : {".weight", ".bias"}) {
    if (name.ends_with(s)) suffix = s;
  }
  if (suffix.empty()) return std::nullopt;
  std::string base = name.substr(0, name.size() - suffix.size());
  if (!base.starts_with("blk.")) {
    const char* hf = lookup(std::begin(k_top), std::end(k_top), base);
    return hf ? std::optional<std::string>(hf + suffix) : std::nullopt;
  }
  const size_t dot = base.find('.', 4);
  if (dot == std::string::npos) return std::nullopt;
  int layer = -1;
  const char* first = base.data() + 4;
  const char* last = base.data() + dot;
  const auto [end, ec] = std::from_chars(first, last, layer);
  // "blk.03" would name layer 3 twice over: only the converter's own decimal form is read.
  if (ec != std::errc() || end != last || layer < 0 || (last - first > 1 && *first == '0'))
    return std::nullopt;
  const char* hf = layer_name(f, base.substr(dot + 1));
  if (!hf) return std::nullopt;
  return fmt::format("model.layers.{}.{}{}", layer, hf, suffix);
}

}  // namespace

std::optional<std::string> gguf_tensor_name(const std::string& arch, const std::string& hf) {
  const Family* f = gguf_family(arch);
  const std::string suffix = hf.ends_with(".bias") ? ".bias" : ".weight";
  if (!f || !hf.ends_with(suffix)) return std::nullopt;
  const std::string base = hf.substr(0, hf.size() - suffix.size());
  for (const auto& r : k_top) {
    if (base == r.hf) return r.gguf + suffix;
  }
  const std::string p = "model.layers.";
  const size_t dot = base.find('.', p.size());
  if (!base.starts_with(p) || dot == std::string::npos) return std::nullopt;
  const std::string layer = base.substr(p.size(), dot - p.size()), rest = base.substr(dot + 1);
  // The forward mapping decides: the GGUF base that maps to `rest` for this architecture.
  std::vector<std::string> bases;
  for (const auto& r : f->gguf.layer_names) bases.push_back(r.gguf);
  for (const auto& r : k_layer) bases.push_back(r.gguf);
  for (const auto& gguf : bases) {
    const char* h = layer_name(*f, gguf);
    if (h && rest == h) return "blk." + layer + "." + gguf + suffix;
  }
  return std::nullopt;
}

// LlamaModel.permute reshapes each head's d rows to (2, d/2), swaps the axes and flattens, so GGUF
// row 2i + j holds HF row j · d/2 + i.
void permute_rows(std::vector<float>& data, int64_t rows, int64_t cols, int heads, bool undo) {
  const std::vector<float> from = data;
  const int64_t d = rows / heads, half = d / 2;
  for (int64_t h = 0; h < heads; ++h) {
    for (int64_t j = 0; j < 2; ++j) {
      for (int64_t i = 0; i < half; ++i) {
        const int64_t hf = h * d + j * half + i, gguf = h * d + 2 * i + j;
        std::memcpy(data.data() + (undo ? hf : gguf) * cols,
                    from.data() + (undo ? gguf : hf) * cols, sizeof(float) * size_t(cols));
      }
    }
  }
}

std::string GgufTensors::name_in_file(const std::string& hf) const {
  return gguf_tensor_name(arch_, hf).value_or(hf);
}

std::optional<std::string> gguf_model_type(const std::string& arch) {
  if (const Family* f = gguf_family(arch)) return f->layout.model_type;
  return std::nullopt;
}

std::string gguf_architectures() {
  std::string out;
  for (const auto& arch : gguf_family_archs()) out += (out.empty() ? "" : ", ") + arch;
  return out;
}

GgufTensors::GgufTensors(const fs::path& path) : file_(GgufFile::open(path)) {
  const GgufMetadata& m = file_.metadata();
  arch_ = m.get<std::string>("general.architecture");
  family_ = gguf_family(arch_);
  if (!family_) {
    throw Error(fmt::format("{}: general.architecture '{}' is not one attnviz runs (it runs {})",
                            path.string(), printable_text(arch_), gguf_architectures()));
  }
  if (family_->gguf.permuted_qk) {  // the converter permuted q by n_head and k by n_head_kv
    const std::string heads = arch_ + ".attention.head_count", kv = heads + "_kv";
    n_heads_ = static_cast<int>(std::min<uint64_t>(m.get_count(heads), 1u << 30));
    n_kv_heads_ =
        m.find(kv) ? static_cast<int>(std::min<uint64_t>(m.get_count(kv), 1u << 30)) : n_heads_;
  }
  for (const auto& t : file_.tensors()) add(t);
}

void GgufTensors::add(const GgufTensorInfo& t) {
  const std::string& file = file_.path().string();
  if (t.name == "rope_factors_long.weight" || t.name == "rope_factors_short.weight") {
    throw Error(fmt::format(
        "{}: tensor '{}': LongRoPE frequency factors (rope type longrope, Phi-3's long-context "
        "scaling) are not implemented",
        file, t.name));
  }
  if (t.name == "rope_freqs.weight" && family_->gguf.rope_freqs) {
    if (t.type != uint32_t(GgmlType::F32) || t.dims.size() != 1) {
      throw Error(
          fmt::format("{}: tensor 'rope_freqs.weight' has type {} and {} dims, expected F32 with 1",
                      file, ggml_type_name(t.type), t.dims.size()));
    }
    rope_freqs_ = file_.dequantize(t);
    return;
  }
  const auto hf = hf_name(*family_, t.name);
  if (!hf) {
    throw Error(fmt::format(
        "{}: tensor '{}' is not one attnviz reads for architecture {} (llama.cpp's token_embd, "
        "output_norm, output and blk.N.attn_*/ffn_* names)",
        file, printable_text(t.name), arch_));
  }
  Entry e{&t,
          TensorInfo{*hf,
                     ggml_type_name(t.type),
                     {t.dims.rbegin(), t.dims.rend()},
                     t.offset,
                     t.offset + t.bytes},
          0};
  if (family_->gguf.permuted_qk && (t.name.find(".attn_q.") != std::string::npos ||
                                    t.name.find(".attn_k.") != std::string::npos)) {
    e.permuted_heads = t.name.find(".attn_q.") != std::string::npos ? n_heads_ : n_kv_heads_;
    const int64_t rows = t.dims.size() == 1 ? t.dims[0] : t.rows();
    if (e.permuted_heads <= 0 || rows % (2 * int64_t(e.permuted_heads)) != 0) {
      throw Error(
          fmt::format("{}: tensor '{}' has {} rows, which {} heads of an even width do not divide",
                      file, t.name, rows, e.permuted_heads));
    }
  }
  if (!entries_.emplace(*hf, std::move(e)).second) {
    throw Error(fmt::format("{}: tensor '{}' names {} a second time", file, t.name, *hf));
  }
}

const GgufTensors::Entry& GgufTensors::entry(const std::string& name) const {
  const auto it = entries_.find(name);
  if (it == entries_.end())
    throw Error(fmt::format("{}: missing tensor '{}'", file_.path().string(), name));
  return it->second;
}

const TensorInfo& GgufTensors::info(const std::string& name) const {
  return entry(name).info;
}

std::vector<std::string> GgufTensors::names() const {
  std::vector<std::string> out;
  for (const auto& [name, e] : entries_) out.push_back(name);
  return out;
}

void GgufTensors::check_convertible(const std::string& name) const {
  const Entry& e = entry(name);
  if (!ggml_type_dequantizable(e.gguf->type)) {
    throw Error(fmt::format(
        "{}: tensor '{}' ({}) has type {}, which attnviz cannot convert (it reads F32, F16, "
        "BF16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q2_K, Q3_K, Q4_K, Q5_K and Q6_K)",
        file_.path().string(), e.gguf->name, name, ggml_type_name(e.gguf->type)));
  }
}

Tensor GgufTensors::load(const std::string& name) const {
  const Entry& e = entry(name);
  Tensor t{e.info.shape, std::vector<float>(size_t(e.gguf->rows() * e.gguf->row_length()))};
  load_into(name, t.data.data());
  return t;
}

void GgufTensors::load_into(const std::string& name, float* out) const {
  check_convertible(name);
  const Entry& e = entry(name);
  const int64_t rows = e.gguf->rows(), cols = e.gguf->row_length();
  if (e.permuted_heads == 0) {
    file_.dequantize_rows(*e.gguf, 0, rows, out);
  } else {
    // permute_rows(undo): the file's row h·d + 2i + j is Hugging Face's h·d + j·d/2 + i. A 1-D
    // tensor (a q or k bias) is one row in the file whose elements are permuted the same way.
    const bool vector = e.gguf->dims.size() == 1;
    const int64_t n = vector ? cols : rows;
    const int64_t d = n / e.permuted_heads, half = d / 2;
    const auto hf_index = [&](int64_t g) {
      const int64_t h = g / d, r = g % d;
      return r < 2 * half ? h * d + (r % 2) * half + r / 2 : g;
    };
    if (vector) {
      std::vector<float> file_order(static_cast<size_t>(cols));
      file_.dequantize_rows(*e.gguf, 0, 1, file_order.data());
      for (int64_t g = 0; g < n; ++g) out[hf_index(g)] = file_order[static_cast<size_t>(g)];
    } else {
      for (int64_t g = 0; g < rows; ++g)
        file_.dequantize_rows(*e.gguf, g, g + 1, out + hf_index(g) * cols);
    }
  }
  release_mapped(file_.tensor_data(*e.gguf), e.gguf->bytes);  // converted: its pages may go
}

TokenTable GgufTensors::table(const std::string& name, std::shared_ptr<const void> owner) const {
  check_convertible(name);
  const Entry& e = entry(name);
  if (e.info.shape.size() != 2 || e.permuted_heads > 0) {
    throw Error(fmt::format("a token table is a matrix [vocab, d_model], not {}",
                            shape_string(e.info.shape)));
  }
  const GgufFile* file = &file_;
  const GgufTensorInfo* t = e.gguf;
  auto read = [file, t](Eigen::Index r0, Eigen::Index n, float* out) {
    file->dequantize_rows(*t, r0, r0 + n, out);
    const uint64_t row_bytes = t->bytes / uint64_t(t->rows());
    // A pass over a 128k-token table would otherwise leave all of it resident.
    if (n > 1)
      release_mapped(file->tensor_data(*t) + uint64_t(r0) * row_bytes, uint64_t(n) * row_bytes);
  };
  return TokenTable(e.info.shape[0], e.info.shape[1], read, std::move(owner));
}

}  // namespace attnviz::detail
