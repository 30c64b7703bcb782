// Binding tensors to roles: every tensor checked against the shape its role needs.
#include "binder.hpp"

#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

#include "attnviz/core/error.hpp"
#include "attnviz/core/unicode.hpp"
#include "weight_buffers.hpp"

namespace attnviz::detail {

namespace {

// One F32 tensor viewed in the mapping: keeps the file mapped while a view of it lives, and
// releases its pages when the last view goes (its layer is done), so a run holds one layer
// resident, not all.
class MappedTensor {
 public:
  MappedTensor(std::shared_ptr<const void> mapping, const char* data, size_t bytes)
      : mapping_(std::move(mapping)), data_(data), bytes_(bytes) {}
  MappedTensor(const MappedTensor&) = delete;
  MappedTensor& operator=(const MappedTensor&) = delete;
  ~MappedTensor() { release_mapped(data_, bytes_); }

 private:
  std::shared_ptr<const void> mapping_;
  const char* data_;
  size_t bytes_;
};

// Maps the pages of [data, data + bytes) in one call (MADV_POPULATE_READ, Linux 5.14; glibc 2.36
// has no name for it), instead of a page fault per 64 KB as the product first reads them: 11,400
// faults → 6,600 on a GPT-2-small run. Advice only: an older kernel's EINVAL leaves the faults to
// happen as before.
void populate_mapped(const char* data, size_t bytes) {
  constexpr int k_madv_populate_read = 22;
  if (bytes == 0) return;
  const auto page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto begin = reinterpret_cast<uintptr_t>(data) / page * page;
  const auto end = reinterpret_cast<uintptr_t>(data) + bytes;
  ::madvise(reinterpret_cast<void*>(begin), end - begin, k_madv_populate_read);
}

// The tensor `name` stored [rows, cols] as a view of the mapping, when it is F32 at a float's
// alignment in a safetensors file (GGUF tensors are converted) and `mapping` can keep the file
// mapped.
std::optional<WeightMatrix> view_of(const TensorSource& tensors,
                                    const std::shared_ptr<const void>& mapping,
                                    const std::string& name, int64_t rows, int64_t cols,
                                    WeightLayout layout) {
  if (!mapping || tensors.gguf()) return std::nullopt;
  const StoredTensor s = tensors.stored(name);
  if (s.dtype != FloatDtype::f32 || reinterpret_cast<uintptr_t>(s.data) % alignof(float) != 0)
    return std::nullopt;
  const size_t bytes = size_t(rows * cols) * sizeof(float);
  populate_mapped(s.data, bytes);
  auto keep = std::make_shared<const MappedTensor>(mapping, s.data, bytes);
  return WeightMatrix(reinterpret_cast<const float*>(s.data), rows, cols, cols, layout,
                      std::move(keep));
}

// A 1 × 1 Conv2d's weight [out, in, 1, 1] is a Linear's [out, in], in the same order (SAGAN's
// query/key/value convolutions): every other shape as it is.
std::vector<int64_t> as_matrix(std::vector<int64_t> s) {
  if (s.size() == 4 && s[2] == 1 && s[3] == 1) s.resize(2);
  return s;
}

// The rows (bias entries) of part `part` (0 q, 1 k, 2 v) of a fused q/k/v grouped per head,
// [heads, 3, d_k] (GPT-NeoX: qkv.view(…, heads, 3 · d_k) then split into q, k, v per head): head
// h's are [(3h + part) · d_k, (3h + part + 1) · d_k).
std::vector<Eigen::Index> per_head_rows(int part, const Config& c) {
  std::vector<Eigen::Index> rows;
  for (int h = 0; h < c.n_heads; ++h) {
    for (int i = 0; i < c.d_k(); ++i) rows.push_back((Eigen::Index(3) * h + part) * c.d_k() + i);
  }
  return rows;
}

}  // namespace

std::string with_layer(const std::string& pattern, int layer, const std::string& key) {
  std::string out;
  size_t from = 0;
  for (size_t at = pattern.find(key); at != std::string::npos; at = pattern.find(key, from)) {
    out.append(pattern, from, at - from).append(std::to_string(layer));
    from = at + key.size();
  }
  return out.append(pattern, from, std::string::npos);
}

Binder::Binder(const TensorSource& tensors, const Layout& layout, std::string prefix, BindMode mode,
               std::shared_ptr<const void> mapping)
    : tensors_(tensors),
      layout_(layout),
      prefix_(std::move(prefix)),
      mode_(mode),
      mapping_(std::move(mapping)) {}

// A role's first pattern whose tensor the file has in `layer` (a role may have tied copies under
// other names), else its first pattern.
const RolePattern* Binder::pattern(const std::string& role, int layer) const {
  const RolePattern* first = nullptr;
  for (const auto& r : layout_.roles) {
    if (r.role != role) continue;
    if (tensors_.has(prefix_ + with_indices(r.pattern, layer, expert_))) return &r;
    if (!first) first = &r;
  }
  return first;
}

std::optional<std::string> Binder::name(const std::string& role, int layer) const {
  const RolePattern* p = pattern(role, layer);
  if (!p) return std::nullopt;
  std::string n = prefix_ + with_indices(p->pattern, layer, expert_);
  if (!tensors_.has(n)) return std::nullopt;
  return n;
}

std::vector<int64_t> Binder::shape(const std::string& role, int layer) const {
  auto n = name(role, layer);
  if (!n) return {};
  std::vector<int64_t> s = as_matrix(tensors_.info(*n).shape);
  if (pattern(role, layer)->transpose && s.size() == 2) std::swap(s[0], s[1]);
  return s;
}

std::string Binder::missing(const std::string& role, int layer) const {
  const RolePattern* p = pattern(role, layer);
  return fmt::format(
      "{}: missing tensor '{}' ({} of layout {})", tensors_.description(),
      p ? tensors_.name_in_file(prefix_ + with_indices(p->pattern, layer, expert_)) : role, role,
      layout_.name);
}

std::string Binder::tensor_text(const std::string& role, int layer) const {
  const auto n = name(role, layer);
  if (!n) return role;
  return fmt::format("tensor '{}' of shape {}", printable_text(tensors_.name_in_file(*n)),
                     shape_string(tensors_.info(*n).shape));
}

bool Binder::present(const std::string& role, int layer) const {
  if (has(role, layer)) return true;
  const RolePattern* p = pattern(role, layer);
  if (p && p->required) {
    const bool per_layer = p->pattern.find("{layer}") != std::string::npos;
    throw Error(fmt::format("{}, which the family requires{}", missing(role, layer),
                            per_layer ? " in every layer" : ""));
  }
  return false;
}

void Binder::check_layers_alike(const std::string& stack, int n_layers) const {
  for (const auto& r : layout_.roles) {
    if (!r.role.starts_with(stack + ".") || r.pattern.find("{layer}") == std::string::npos)
      continue;
    const bool in_first = has(r.role, 0);
    for (int l = 1; l < n_layers; ++l) {
      if (has(r.role, l) == in_first) continue;
      const int without = in_first ? l : 0;
      throw Error(fmt::format("{}, which layer {} has: a layer cannot lack what the others have",
                              missing(r.role, without), in_first ? 0 : l));
    }
  }
}

std::string Binder::checked_matrix(const std::string& role, int layer, int64_t rows,
                                   int64_t cols) const {
  auto n = name(role, layer);
  if (!n) throw Error(fmt::format("{}, expected shape [{}, {}]", missing(role, layer), rows, cols));
  const bool transpose = pattern(role, layer)->transpose;
  std::vector<int64_t> expected{rows, cols};
  if (transpose) std::swap(expected[0], expected[1]);
  const auto& shape = tensors_.info(*n).shape;
  if (as_matrix(shape) != expected) {
    const std::string in_file = tensors_.name_in_file(*n);  // a GGUF file's name, its dims reversed
    throw Error(fmt::format(
        "{}: tensor '{}' has shape {}, expected {}{}{}", tensors_.description(), *n,
        shape_string(shape), shape_string(expected), transpose ? " (Conv1D, stored [in, out])" : "",
        in_file == *n ? "" : " (GGUF '" + in_file + "', whose dims are listed reversed)"));
  }
  return *n;
}

WeightMatrix Binder::weight(const std::string& role, int layer, int64_t rows, int64_t cols) const {
  const std::string n = checked_matrix(role, layer, rows, cols);
  if (mode_ == BindMode::check_shapes) {
    tensors_.check_convertible(
        n);  // refuses a dtype that cannot be converted, now rather than mid-run
    return Matrix(rows, 0);
  }
  // A Conv1D weight stays [in, out]: the product reads it through its transpose flag.
  const WeightLayout layout =
      pattern(role, layer)->transpose ? WeightLayout::in_out : WeightLayout::out_in;
  const int64_t stored_rows = layout == WeightLayout::out_in ? rows : cols;
  const int64_t stored_cols = layout == WeightLayout::out_in ? cols : rows;
  if (auto view = view_of(tensors_, mapping_, n, stored_rows, stored_cols, layout))
    return std::move(*view);
  std::shared_ptr<float> stored = weight_buffer(size_t(stored_rows * stored_cols), recycle_);
  tensors_.convert_into(n, stored.get());
  const float* data = stored.get();
  return WeightMatrix(data, stored_rows, stored_cols, stored_cols, layout, std::move(stored));
}

RowVector Binder::vector(const std::string& role, int layer, int64_t n) const {
  if (!present(role, layer)) return {};
  auto name_ = name(role, layer);
  const std::vector<int64_t>& shape = tensors_.info(*name_).shape;
  if (shape != std::vector<int64_t>{n}) {
    throw Error(fmt::format("{}: tensor '{}' has shape {}, expected [{}]", tensors_.description(),
                            *name_, shape_string(shape), n));
  }
  RowVector v(n);
  tensors_.convert_into(*name_, v.data());
  return v;
}

std::optional<TokenTable> Binder::table(const std::string& role, int64_t rows, int64_t cols,
                                        std::shared_ptr<const void> owner) const {
  if (!present(role)) return std::nullopt;
  if (pattern(role, 0)->transpose) return TokenTable(weight(role, 0, rows, cols).matrix());
  return tensors_.table(checked_matrix(role, 0, rows, cols), std::move(owner));
}

std::optional<LayerNormWeights> Binder::layer_norm(const std::string& role, int layer,
                                                   int64_t d) const {
  if (!present(role + ".weight", layer)) return std::nullopt;
  LayerNormWeights w{vector(role + ".weight", layer, d), vector(role + ".bias", layer, d)};
  // Gemma's RMSNorm: output · (1 + w), in float32 as GemmaRMSNorm computes 1.0 + weight.float().
  if (layout_.norm_offset != 0.0f) w.weight.array() += layout_.norm_offset;
  return w;
}

std::optional<Linear> Binder::linear(const std::string& role, int layer, int64_t out,
                                     int64_t in) const {
  if (!present(role + ".weight", layer)) return std::nullopt;
  return Linear{weight(role + ".weight", layer, out, in), vector(role + ".bias", layer, out)};
}

AttentionWeights Binder::attention(const std::string& module, int layer, const Config& c) const {
  AttentionWeights a;
  Linear* parts[] = {&a.q, &a.k, &a.v};
  if (has(module + ".qkv.weight", layer)) {
    // Fused projection [Q + K + W, D]: rows [0, Q) are q, then k, then v (qkv.split(C, dim=-1) when
    // all three are C; Phi-3's qkv_proj with fewer key/value heads: [n_heads·d_k; n_kv·d_k;
    // n_kv·d_head_v]).
    const int64_t rows[] = {c.d_qk, c.k_rows(), c.v_rows()};
    // Each part is a view of the fused weight's rows (a Conv1D's columns), not a copy.
    const WeightMatrix w =
        weight(module + ".qkv.weight", layer, rows[0] + rows[1] + rows[2], c.d_model);
    if (layout_.fused_qkv_per_head) {
      const Matrix full = w.matrix();  // [heads · 3 · d_k, D]: gathered into q, k, v (copies)
      for (int i = 0; i < 3; ++i) parts[i]->weight = Matrix(full(per_head_rows(i, c), Eigen::all));
    } else {
      for (int i = 0, from = 0; i < 3; from += int(rows[i]), ++i)
        parts[i]->weight = w.out_rows(from, rows[i]);
    }
  } else {
    a.q.weight = weight(module + ".q.weight", layer, c.d_qk, c.d_model);
    a.k.weight =
        weight(module + ".k.weight", layer, c.k_rows(), c.kdim);  // GQA: n_kv_heads · d_k rows
    a.v.weight = weight(module + ".v.weight", layer, c.v_rows(), c.vdim);
  }
  if (has(module + ".qkv.bias", layer)) {
    // nn.MultiheadAttention keeps one in_proj_bias [3E] even with separate q/k/v_proj_weight; with
    // fewer key/value heads (GQA) its k and v parts are as wide as k and v.
    const RowVector b =
        vector(module + ".qkv.bias", layer, int64_t(c.d_qk) + c.k_rows() + c.v_rows());
    if (layout_.fused_qkv_per_head && b.size() > 0) {
      for (int i = 0; i < 3; ++i) parts[i]->bias = b(per_head_rows(i, c));
    } else {
      a.q.bias = b.segment(0, c.d_qk);
      a.k.bias = b.segment(c.d_qk, c.k_rows());
      a.v.bias = b.segment(int64_t(c.d_qk) + c.k_rows(), c.v_rows());
    }
  } else {
    a.q.bias = vector(module + ".q.bias", layer, c.d_qk);
    a.k.bias = vector(module + ".k.bias", layer, c.k_rows());
    a.v.bias = vector(module + ".v.bias", layer, c.v_rows());
  }
  a.out = linear(module + ".out", layer, c.d_model, c.d_v);
  // One gain per head dim (Qwen3), or per column of the projection (OLMo 2).
  const bool whole = c.qk_norm == QkNorm::whole;
  a.q_norm = vector(module + ".q_norm.weight", layer, whole ? c.d_qk : c.d_k());
  a.k_norm = vector(module + ".k_norm.weight", layer, whole ? c.k_rows() : c.d_k());
  for (RowVector* gain : {&a.q_norm, &a.k_norm}) {
    if (gain->size() > 0)
      gain->array() += layout_.norm_offset;  // Gemma 3's q/k norms are (1 + w) too
  }
  a.sink_logits = vector(module + ".sinks", layer, c.n_heads);  // one per head (gpt-oss)
  return a;
}

std::optional<FeedForwardWeights> Binder::feed_forward(const std::string& module, int l,
                                                       const Config& c) const {
  if (present(module + ".gate_up.weight", l)) {
    // Phi-3's gate_up_proj [2F, D]: gate, up = gate_up_proj(x).chunk(2, dim=-1).
    const WeightMatrix gate_up =
        weight(module + ".gate_up.weight", l, 2 * int64_t(c.d_ff), c.d_model);
    return FeedForwardWeights{Linear{gate_up.out_rows(c.d_ff, c.d_ff), {}},
                              Linear{weight(module + ".down.weight", l, c.d_model, c.d_ff), {}},
                              Linear{gate_up.out_rows(0, c.d_ff), {}}};
  }
  auto up = linear(module + ".up", l, c.d_ff, c.d_model);
  if (!up) return std::nullopt;
  Linear down{weight(module + ".down.weight", l, c.d_model, c.d_ff),
              vector(module + ".down.bias", l, c.d_model)};
  FeedForwardWeights f{std::move(*up), std::move(down), std::nullopt};
  if (c.ffn == FeedForwardKind::gated) {  // gate [F, D], as required as up itself
    f.gate = Linear{weight(module + ".gate.weight", l, c.d_ff, c.d_model),
                    vector(module + ".gate.bias", l, c.d_ff)};
  }
  return f;
}

FeedForwardWeights Binder::expert(const std::string& stack, int l, int e, const Config& c) const {
  const Binder b = for_expert(e);
  auto f = b.feed_forward(stack + ".ffn.experts", l, c);
  if (!f)
    throw Error(
        fmt::format("{}, as every expert has", b.missing(stack + ".ffn.experts.up.weight", l)));
  return std::move(*f);
}

LayerWeights Binder::layer(const std::string& stack, int l, const Config& c, bool cross) const {
  LayerWeights w;
  w.self_attn = attention(stack + ".self", l, c);
  if (cross) w.cross_attn = attention(stack + ".cross", l, c);
  if (c.experts.n_experts > 0) {
    // A mixture of experts: the router now, each expert when bind_stack's binding asks for it (here
    // when checking shapes, every expert's).
    const int n = c.experts.n_experts;
    w.experts = ExpertWeights{Linear{weight(stack + ".ffn.router.weight", l, n, c.d_model),
                                     vector(stack + ".ffn.router.bias", l, n)},
                              n, nullptr};
    if (mode_ == BindMode::check_shapes) {
      for (int e = 0; e < n; ++e) (void)expert(stack, l, e, c);
    }
  } else {
    w.ffn = feed_forward(stack + ".ffn", l, c);
  }
  w.norm_self = layer_norm(stack + ".norm_self", l, c.d_model);
  w.norm_cross = layer_norm(stack + ".norm_cross", l, c.d_model);
  w.norm_ffn = layer_norm(stack + ".norm_ffn", l, c.d_model);
  w.norm_self_post = layer_norm(stack + ".norm_self_post", l, c.d_model);
  w.norm_ffn_post = layer_norm(stack + ".norm_ffn_post", l, c.d_model);
  w.layer_scale_self = vector(stack + ".layer_scale_self", l, c.d_model);
  // SAGAN's γ: one learned scalar on the attention's output before the residual, x + γ·o.
  if (const RowVector gain = vector(stack + ".self_gain", l, 1); gain.size() == 1)
    w.layer_scale_self = RowVector::Constant(c.d_model, gain[0]);
  w.layer_scale_ffn = vector(stack + ".layer_scale_ffn", l, c.d_model);
  return w;
}

StackWeights bind_stack(std::shared_ptr<const TensorSource> tensors, const Layout& layout,
                        const std::string& prefix, const std::string& stack, int n_layers,
                        const Config& c, bool cross) {
  const Binder check(*tensors, layout, prefix, BindMode::check_shapes);
  for (int l = 0; l < n_layers; ++l) check.layer(stack, l, c, cross);
  check.check_layers_alike(stack, n_layers);
  StackWeights s;
  s.final_norm = check.layer_norm(stack + ".final_norm", 0, c.d_model);  // [D]: converted now
  s.n_bound = n_layers;
  auto kept = std::make_shared<const Layout>(layout);
  s.bind_layer = [tensors, kept, prefix, stack, c, cross, n_layers](int l) {
    Binder b(*tensors, *kept, prefix, BindMode::convert, tensors);
    const bool last = l + 1 == n_layers;
    b.recycle_buffers(!last);  // the last layer's buffers are freed with it, not pooled
    LayerWeights w = b.layer(stack, l, c, cross);
    if (w.experts) {  // an expert is read from the file when a token is first routed to it
      w.experts->expert = [tensors, kept, prefix, stack, c, l](int e) {
        return Binder(*tensors, *kept, prefix, BindMode::convert, tensors).expert(stack, l, e, c);
      };
    }
    if (last) free_weight_buffers();  // what the last layer did not take
    return w;
  };
  return s;
}

int count_layers(const Binder& b, const std::string& stack) {
  int n = 0;
  while (b.has(stack + ".self.qkv.weight", n) || b.has(stack + ".self.q.weight", n)) {
    ++n;
    // A pattern without {layer} (a lone attention module) names the same tensor for every index.
    if (n == 1 && b.name(stack + ".self.qkv.weight", 0) == b.name(stack + ".self.qkv.weight", 1) &&
        b.name(stack + ".self.q.weight", 0) == b.name(stack + ".self.q.weight", 1)) {
      break;
    }
  }
  return n;
}

}  // namespace attnviz::detail
