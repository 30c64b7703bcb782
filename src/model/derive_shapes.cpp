// The widths and head counts of a model, read from the shapes of its first layer's tensors.
#include "derive_shapes.hpp"

#include <fmt/format.h>

#include <limits>

#include "attnviz/core/error.hpp"
#include "attnviz/core/unicode.hpp"

namespace attnviz::detail {

namespace {

const std::vector<std::string> k_heads_keys{"n_heads", "n_head", "num_attention_heads", "nhead",
                                            "num_heads"};
const std::vector<std::string> k_kv_heads_keys{"num_key_value_heads", "n_kv_heads"};

// A fused q/k/v weight: [3C, C] in thirds, unless the config gives fewer key/value heads (Phi-3's
// qkv_proj: [(n_heads + 2 · n_kv_heads) · d_k, D]).
KeyValueRows fused_widths(Config& c, const Binder& b, const std::string& qkv,
                          const ConfigSources& cfg) {
  const auto s = b.shape(qkv);
  c.d_model = c.kdim = c.vdim = width(b, qkv, 1);
  const int rows = width(b, qkv, 0);
  const auto heads = cfg.integer(k_heads_keys), kv = cfg.integer(k_kv_heads_keys);
  if (heads && kv && *kv != *heads) {
    const int64_t d_k = cfg.integer({"head_dim"}).value_or(c.d_model / *heads);
    if (int64_t(*heads + int64_t(2) * *kv) * d_k != rows) {
      throw Error(fmt::format(
          "fused q/k/v weight '{}' has shape {}, expected [{}, {}]: {} query and 2 × {} "
          "key/value heads of {} dims",
          printable_text(*b.name(qkv)), shape_string(s), (*heads + int64_t(2) * *kv) * d_k,
          c.d_model, *heads, *kv, d_k));
    }
    c.d_qk = c.d_v = static_cast<int>(*heads * d_k);
    return {static_cast<int>(*kv * d_k), static_cast<int>(*kv * d_k)};
  }
  if (rows % 3 != 0) {
    throw Error(fmt::format("fused q/k/v weight '{}' has shape {}, expected [3C, C]",
                            printable_text(*b.name(qkv)), shape_string(s)));
  }
  c.d_qk = c.d_v = rows / 3;
  return {c.d_qk, c.d_v};
}

// Key/value heads from k's own shape: k is [n_kv_heads · d_k, kdim] with n_kv_heads dividing
// n_heads (GQA; MQA when 1); v then holds n_kv_heads heads of d_head_v. Equal rows: every head has
// its own.
void derive_kv_heads(Config& c, const Binder& b, const std::string& module, KeyValueRows rows) {
  c.n_kv_heads = c.n_heads;
  if (rows.k == c.d_qk) return;
  if (c.d_qk % c.n_heads != 0) {
    throw Error(fmt::format("{} heads do not divide d_qk = {}", c.n_heads, c.d_qk));
  }
  const int d_k = c.d_qk / c.n_heads;
  const std::string k = module + ".k.weight", v = module + ".v.weight";
  if (rows.k % d_k != 0 || c.n_heads % (rows.k / d_k) != 0) {
    throw Error(
        fmt::format("tensor '{}' has shape {}, expected [n_kv_heads · d_k, {}] with d_k = {} "
                    "({} / {} heads) and n_kv_heads dividing {}",
                    printable_text(*b.name(k)), shape_string(b.shape(k)), c.kdim, d_k, c.d_qk,
                    c.n_heads, c.n_heads));
  }
  c.n_kv_heads = rows.k / d_k;
  if (rows.v % c.n_kv_heads != 0) {
    throw Error(fmt::format(
        "tensor '{}' has shape {}, expected [{} · d_head_v, {}] for {} key/value heads",
        printable_text(*b.name(v)), shape_string(b.shape(v)), c.n_kv_heads, c.vdim, c.n_kv_heads));
  }
  c.d_v = rows.v / c.n_kv_heads * c.n_heads;  // the merged heads: n_heads · d_head_v
}

}  // namespace

// Dimension `dim` of the matrix bound to `role`: the tensor must be a matrix and the width fit
// in int and be > 0 (a zero d_k makes every score 0 / sqrt(0), every map NaN).
int width(const Binder& b, const std::string& role, size_t dim, int64_t divisor) {
  const auto s = b.shape(role);
  if (s.size() != 2) {
    throw Error(fmt::format("tensor '{}' has shape {}, expected a matrix [out, in]",
                            printable_text(*b.name(role)), shape_string(s)));
  }
  const int64_t w = s[dim] / divisor;
  if (w < 1 || w > std::numeric_limits<int>::max()) {
    throw Error(fmt::format("tensor '{}' has shape {}: width {} must be in [1, {}]",
                            printable_text(*b.name(role)), shape_string(s), w,
                            std::numeric_limits<int>::max()));
  }
  return static_cast<int>(w);
}

KeyValueRows derive_widths(Config& c, const Binder& b, const std::string& module,
                           const ConfigSources& cfg) {
  const std::string qkv = module + ".qkv.weight";
  if (b.has(qkv)) return fused_widths(c, b, qkv, cfg);
  for (const char* part : {"q", "k", "v"}) {
    if (!b.has(module + "." + part + ".weight"))
      throw Error(b.missing(module + "." + part + ".weight", 0));
  }
  c.d_qk = width(b, module + ".q.weight", 0);
  c.d_model = width(b, module + ".q.weight", 1);
  c.kdim = width(b, module + ".k.weight", 1);
  c.d_v = width(b, module + ".v.weight", 0);
  c.vdim = width(b, module + ".v.weight", 1);
  return {width(b, module + ".k.weight", 0), c.d_v};
}

void derive_ffn_width(Config& c, const Binder& b, const std::string& module) {
  const std::string up = module + ".up.weight", gate_up = module + ".gate_up.weight";
  if (b.has(up)) c.d_ff = width(b, up, 0);
  if (!b.has(gate_up)) return;
  if (b.shape(gate_up).at(0) % 2 != 0) {
    throw Error(fmt::format("fused gate/up weight '{}' has shape {}, expected [2F, D]",
                            printable_text(*b.name(gate_up)), shape_string(b.shape(gate_up))));
  }
  c.d_ff = width(b, gate_up, 0, 2);
}

void derive_experts(Config& c, const Binder& b, const Layout& layout, const ConfigSources& cfg,
                    const std::string& stack) {
  const std::string router = stack + ".ffn.router.weight";
  if (!b.has(router)) return;
  // The experts the file holds: 0, 1, … while expert e's up (or fused gate/up) weight exists, one
  // past the router's count at most (a pattern without "{expert}" names the same tensor for all).
  const int n = width(b, router, 0);
  const auto holds = [&](int e) {
    Binder x = b.for_expert(e);
    return x.has(stack + ".ffn.experts.up.weight") || x.has(stack + ".ffn.experts.gate_up.weight");
  };
  int held = 0;
  while (held <= n && holds(held)) ++held;
  if (held < n) {
    throw Error(fmt::format("{} scores {} experts, but the file holds {}: {}",
                            b.tensor_text(router), n, held,
                            b.for_expert(held).missing(stack + ".ffn.experts.up.weight", 0)));
  }
  if (held > n) {
    throw Error(fmt::format("{} scores {} experts, but the file holds more: {}",
                            b.tensor_text(router), n,
                            b.for_expert(n).tensor_text(stack + ".ffn.experts.up.weight")));
  }
  check_declared(cfg, layout.experts.count, n,
                 fmt::format("experts, from {}", b.tensor_text(router)));
  const auto top_k = cfg.integer(layout.experts.top_k);
  if (!top_k) {
    throw Error(fmt::format(
        "{}: a mixture of {} experts, but no {} says how many run per token (its config.json "
        "has none)",
        b.tensor_text(router), n, layout.experts.top_k.empty() ? "key" : layout.experts.top_k[0]));
  }
  if (*top_k > n) {
    const Declared declared = *cfg.declared(layout.experts.top_k);
    throw declared.error(fmt::format("{}: more experts per token than the {} the router scores",
                                     declared.origin, n));
  }
  c.experts = MixtureOfExperts{
      n, *top_k, cfg.boolean(layout.experts.normalise).value_or(layout.experts.normalise_default)};
  derive_ffn_width(c, b.for_expert(0), stack + ".ffn.experts");  // every expert's d_ff
}

// Inside a transformer layer, self-attention's keys and values read the same d_model-wide input
// as its queries (only a lone nn.MultiheadAttention may have its own kdim / vdim, for a source).
void check_self_widths(const Config& c, const Binder& b, const std::string& module) {
  if (c.arch == Arch::mha || (c.kdim == c.d_model && c.vdim == c.d_model)) return;
  const std::string role = module + (c.kdim != c.d_model ? ".k.weight" : ".v.weight");
  throw Error(
      fmt::format("tensor '{}' has shape {}, but self-attention keys and values read the "
                  "d_model = {} wide input: expected [{}, {}]",
                  printable_text(*b.name(role)), shape_string(b.shape(role)), c.d_model,
                  b.shape(role)[0], c.d_model));
}

void check_declared(const ConfigSources& cfg, const std::vector<std::string>& keys, int64_t actual,
                    const std::string& evidence) {
  const auto declared = cfg.declared(keys);
  if (!declared) return;
  const nlohmann::json& v = declared->value;
  // Not a whole number (2.5, "4"): integer() refuses it with the range expected.
  if (!v.is_number_integer()) (void)cfg.integer(keys);
  // Compared as 64-bit, so 2^31 or 2^64 is a contradiction named with the tensor, not a range
  // error.
  const bool equal =
      v.is_number_unsigned() ? v.get<uint64_t>() == uint64_t(actual) : v.get<int64_t>() == actual;
  if (!equal)
    throw Error(
        fmt::format("{}, but the weights have {} ({})", declared->origin, actual, evidence));
}

void derive_heads(Config& c, const Layout& layout, const ConfigSources& cfg, const Binder& b,
                  const std::string& module, KeyValueRows rows) {
  c.n_heads = cfg.integer(k_heads_keys).value_or(layout.default_heads);
  if (c.n_heads <= 0) {
    throw usage_error("the number of heads is not in the file or its config.json; give --heads N");
  }
  derive_kv_heads(c, b, module, rows);
  if (c.d_qk % c.n_heads != 0 || c.d_v % c.n_heads != 0) {
    throw Error(
        fmt::format("{} heads do not divide d_qk = {} and d_v = {}", c.n_heads, c.d_qk, c.d_v));
  }
  const std::string qkv = module + ".qkv.weight";
  const bool fused = b.has(qkv);
  check_declared(cfg, k_kv_heads_keys, c.n_kv_heads,
                 fmt::format("key/value heads of d_k = {}, from {}", c.d_k(),
                             b.tensor_text(fused ? qkv : module + ".k.weight")));
  check_declared(cfg, {"head_dim"}, c.d_k(),
                 fmt::format("d_k = {} / {} heads, from {}", c.d_qk, c.n_heads,
                             b.tensor_text(fused ? qkv : module + ".q.weight")));
}

}  // namespace attnviz::detail
