// The checks of load_model between weights, config and layout.
#include "load_checks.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <regex>
#include <set>

#include "attnviz/core/error.hpp"
#include "attnviz/core/plural.hpp"
#include "attnviz/core/unicode.hpp"
#include "derive_shapes.hpp"

namespace attnviz::detail {

// The sizes config.json declares must be the weights' (a vocab_size of 2^31 beside a 48-row token
// table is another model's config): a contradiction names the key and its file, and the tensor.
void check_declared_sizes(const Config& c, const Binder& b, const ConfigSources& cfg,
                          const std::string& first, const std::vector<std::string>& expert_width) {
  const std::string qkv = first + ".self.qkv.weight";
  check_declared(cfg, {"d_model", "n_embd", "hidden_size"}, c.d_model,
                 "d_model, from " + b.tensor_text(b.has(qkv) ? qkv : first + ".self.q.weight"));
  if (cfg.declared({"d_kv"})) {  // T5's width of a head
    check_declared(cfg, {"d_kv"}, c.d_k(),
                   "d_k, from " + b.tensor_text(first + ".self.q.weight") + " and the heads");
  }
  const std::string gate_up = first + ".ffn.gate_up.weight";
  if (c.experts.n_experts > 0) {  // an expert's width, under the family's key (ExpertKeys::width)
    check_declared(
        cfg, expert_width, c.d_ff,
        "an expert's d_ff, from " + b.for_expert(0).tensor_text(first + ".ffn.experts.up.weight"));
  } else if (c.d_ff > 0) {  // GPT-2's n_inner is null for 4 · n_embd: no value, nothing to check
    check_declared(
        cfg, {"intermediate_size", "n_inner"}, c.d_ff,
        "d_ff, from " + b.tensor_text(b.has(gate_up) ? gate_up : first + ".ffn.up.weight"));
  }
  if (b.has("embed.token")) {
    check_declared(cfg, {"vocab_size"}, c.vocab_size,
                   "token rows, from " + b.tensor_text("embed.token"));
  }
}

// Learned positions are a table of the weights, and a table means learned positions: a table next
// to rotary or sinusoidal positions would be dropped, learned positions without one never added.
void check_positions(const Config& c, const Weights& w, const Binder& b) {
  const bool per_stack = w.encoder.position || w.decoder.position;
  if (!w.embed.position && w.encoder.position.has_value() != w.decoder.position.has_value()) {
    const char* missing = w.encoder.position ? "decoder" : "encoder";
    throw Error(
        fmt::format("layout {}: the {} has no position table of its own ({}.embed.position), "
                    "the other stack has one",
                    c.layout, missing, missing));
  }
  const bool patch_positions = w.embed.patches && w.embed.patches->position.rows() > 0;
  if (c.positional == Positional::learned && !w.embed.position && !per_stack && !patch_positions) {
    throw Error(
        fmt::format("layout {} has learned positions, but the weights have no position table "
                    "(embed.position)",
                    c.layout));
  }
  for (const char* role : {"embed.position", "encoder.embed.position", "decoder.embed.position"}) {
    if (c.positional == Positional::learned || !b.has(role)) continue;
    throw Error(fmt::format("tensor '{}' is a learned position table, but the positions are {}",
                            printable_text(*b.name(role)), positional_name(c.positional)));
  }
}

void check_tied_copies(const TensorSource& src, const std::shared_ptr<const TensorSource>& owner,
                       const Layout& layout, const std::string& prefix) {
  std::map<std::string, std::string> first;  // role -> the name bound
  for (const auto& r : layout.roles) {
    if (r.pattern.find('{') != std::string::npos) continue;  // per layer: no family ties those
    const std::string name = prefix + r.pattern;
    if (!src.has(name)) continue;
    auto [bound, fresh] = first.emplace(r.role, name);
    if (fresh) continue;
    const auto& a = src.info(bound->second).shape;
    const auto& b = src.info(name).shape;
    const bool equal = a == b && a.size() == 2 &&
                       same_values(src.table(bound->second, owner), src.table(name, owner));
    if (!equal) {
      throw Error(fmt::format(
          "{}: tensors '{}' {} and '{}' {} are both {} (tied copies in this family), but they "
          "differ: attnviz would use the first and leave the other unread",
          src.description(), printable_text(bound->second), shape_string(a), printable_text(name),
          shape_string(b), r.role));
    }
  }
}

// What the weights hold that the layout's traits must agree with (a gate in a plain FFN would be
// silently skipped; q/k norms run only inside transformer layers).
void check_model_traits(const Config& c, const Binder& b, const std::string& stack) {
  const Binder expert = b.for_expert(0);
  for (const auto& [binder, gate] : {std::pair{&b, stack + ".ffn.gate.weight"},
                                     std::pair{&expert, stack + ".ffn.experts.gate.weight"}}) {
    if (c.ffn == FeedForwardKind::plain && binder->has(gate)) {
      throw Error(fmt::format(
          "tensor '{}' is a feed-forward gate, but layout {} has a plain FFN (\"ffn\": \"gated\")",
          printable_text(*binder->name(gate)), c.layout));
    }
  }
  // The FFN slot holds one dense FFN or the experts, never both: either would be left out.
  if (c.experts.n_experts > 0 &&
      (b.has(stack + ".ffn.up.weight") || b.has(stack + ".ffn.gate_up.weight"))) {
    throw Error(fmt::format(
        "layout {}: {} is a dense FFN beside the mixture of experts routed by {}; a layer's FFN is "
        "one or the other",
        c.layout,
        b.tensor_text(b.has(stack + ".ffn.up.weight") ? stack + ".ffn.up.weight"
                                                      : stack + ".ffn.gate_up.weight"),
        b.tensor_text(stack + ".ffn.router.weight")));
  }
  if (c.qk_norm != QkNorm::none && c.arch == Arch::mha) {
    throw usage_error(
        fmt::format("layout {}: q/k norms apply inside transformer layers, not to a lone "
                    "attention module",
                    c.layout));
  }
  // GPT-NeoX's parallel block is pre-norm by construction; a post-norm or cross-attention layer
  // has no parallel form any family defines.
  if (c.parallel_residual && (c.arch == Arch::mha || !c.norm_first || c.decoder_cross)) {
    throw Error(
        fmt::format("layout {}: parallel attention and FFN (parallel_residual) need pre-norm "
                    "transformer layers "
                    "without cross-attention; this one is {}{}",
                    c.layout,
                    c.arch == Arch::mha ? "a lone attention module"
                    : c.norm_first      ? "pre-norm"
                                        : "post-norm",
                    c.decoder_cross ? " with cross-attention" : ""));
  }
}

// q/k/v rows grouped per head ([heads, 3, d_k]) come in threes of one width: a model whose
// key/value heads are fewer or narrower has no such layout.
void check_per_head_qkv(const Config& c, const Layout& layout, const Binder& b,
                        const std::string& stack) {
  const std::string qkv = stack + ".self.qkv.weight";
  if (!layout.fused_qkv_per_head || !b.has(qkv)) return;
  if (c.n_kv_heads != c.n_heads || c.d_v != c.d_qk) {
    throw Error(fmt::format(
        "layout {} groups the fused q/k/v rows per head ([heads, 3, d_k]), which needs as many "
        "key/value heads as query heads, all {} wide; {} gives {} query and {} key/value heads, "
        "d_qk {} and d_v {}",
        c.layout, c.d_k(), b.tensor_text(qkv), c.n_heads, c.n_kv_heads, c.d_qk, c.d_v));
  }
}

// config.json's attention_bias / mlp_bias (Llama's) must be what the weights hold: a bias the
// config declares but the file lacks (or the reverse) means the file and its config do not belong
// together.
void check_declared_biases(const ConfigSources& cfg, const Binder& b, const std::string& stack) {
  const struct {
    const char* key;
    std::vector<std::string> roles;
  } k_biases[] = {{"attention_bias", {".self.q.bias", ".self.qkv.bias"}},
                  {"mlp_bias", {".ffn.up.bias"}}};
  for (const auto& [key, roles] : k_biases) {
    const auto declared = cfg.boolean({key});
    if (!declared) continue;
    bool has = false;
    for (const auto& role : roles) has |= b.has(stack + role);
    if (has != *declared) {
      throw Error(fmt::format("{} = {} in config.json, but layer 0 of the weights has {}{}", key,
                              *declared, has ? "" : "no ", stack + roles[0]));
    }
  }
}

// A layout that must bind every tensor: the names no role of any layer reads are refused.
void check_every_tensor_bound(const TensorSource& src, const Layout& layout,
                              const std::string& prefix, int n_layers, int n_experts) {
  if (!layout.every_tensor_bound) return;
  std::set<std::string> bound;
  auto bind = [&](const std::string& pattern) {
    for (int l = 0; l < std::max(1, n_layers); ++l) {
      for (int e = 0; e < std::max(1, n_experts); ++e)
        bound.insert(prefix + detail::with_indices(pattern, l, e));
    }
  };
  for (const auto& r : layout.roles) bind(r.pattern);
  for (const auto& b : layout.buffers) bind(b);
  std::vector<std::string> extra;
  for (const auto& name : src.names()) {
    if (!bound.count(name) && !in_unrun_part(layout, name)) extra.push_back(name);
  }
  if (extra.empty()) return;
  // A family chosen by config.json's model_type may be the wrong one; one chosen by its tensor
  // names (the torch modules) may be another whose telling tensor is missing from layer 0.
  const std::string hint =
      layout.model_type.empty()
          ? "is a tensor that tells the right layout missing? name it with --layout or map "
            "the names with --layout-file"
          : "is config.json's model_type right?";
  throw Error(fmt::format(
      "{}: {} of the file's tensors belong to no role of layout {}, so attnviz would "
      "ignore them: {}{} ({})",
      src.description(), count_of(extra.size(), "tensor"), layout.name, printable_text(extra[0]),
      extra.size() > 1 ? fmt::format(", {}", printable_text(extra[1])) : "", hint));
}

bool in_unrun_part(const Layout& layout, const std::string& name) {
  for (const auto& part : layout.unrun) {
    if (std::regex_match(name, std::regex(part.pattern))) return true;
  }
  return false;
}

std::vector<std::string> unrun_notes(const TensorSource& src, const Layout& layout) {
  std::vector<std::string> notes;
  const auto names = src.names();
  for (const auto& part : layout.unrun) {
    const std::regex pattern(part.pattern);
    std::vector<std::string> found;
    for (const auto& name : names) {
      if (std::regex_match(name, pattern)) found.push_back(printable_text(name));
    }
    if (found.empty()) continue;
    const size_t shown = std::min<size_t>(found.size(), 3);
    notes.push_back(fmt::format(
        "not run: {} ({}{}): attnviz shows the {}'s attention and its last hidden state", part.what,
        fmt::join(found.begin(), found.begin() + static_cast<long>(shown), ", "),
        found.size() > shown ? fmt::format(" and {} more", found.size() - shown) : "",
        layout.arch == Arch::encoder ? "encoder" : "text model"));
  }
  return notes;
}

}  // namespace attnviz::detail
