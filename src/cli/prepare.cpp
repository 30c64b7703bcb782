// Resolving the shared input flags: model, target/source sequences, mask, scale, selection.
#include "attnviz/cli/prepare.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <iostream>

#include "attnviz/cli/inputs.hpp"
#include "attnviz/inputs/mask_file.hpp"
#include "attnviz/core/error.hpp"
#include "attnviz/core/plural.hpp"

namespace attnviz {

namespace {

std::optional<float> parse_qk_scale(const std::string& text) {
  if (text.empty()) return std::nullopt;
  if (text == "none") return 1.0f;
  float value = 0.0f;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || !(value > 0.0f) || !std::isfinite(value)) {
    throw usage_error(fmt::format("--qk-scale '{}': expected a positive number or none", text));
  }
  return value;
}

void check_pad(int pad, int n, const char* flag) {
  if (pad > n) {
    throw usage_error(fmt::format("{} {}: there {} only {}", flag, pad, n == 1 ? "is" : "are",
                                  count_of(n, "token")));
  }
}

// --mask applies to the map the target's queries make first: the cross map of a lone attention
// module given a source, else the target's self-attention.
void resolve_masks(const InputArgs& a, const Model& model, ForwardInputs& in) {
  const int n_target = static_cast<int>(in.target.x.rows());
  const int n_source = in.source ? static_cast<int>(in.source->x.rows()) : 0;
  check_pad(a.pad, n_target, "--pad");
  check_pad(a.source_pad, n_source, "--source-pad");
  in.target_mask.causal = a.causal;
  in.target_mask.n_pad_keys = a.pad;
  in.target_mask.window = a.window;
  in.source_mask.n_pad_keys = a.source_pad;
  const bool on_cross = model.config.arch == Arch::mha && in.source;
  if (on_cross && (a.causal || a.pad > 0 || a.window > 0)) {
    // A lone attention module given a source makes only a cross map: there is no target
    // self-attention for these masks to apply to.
    throw usage_error("--causal, --pad and --window mask the target's self-attention, which a lone "
                      "attention module given a source does not have: use --source-pad or --mask");
  }
  if (a.mask_file.empty()) {
    if (a.mask_convention != "auto") throw usage_error("--mask-convention says what --mask values mean: give --mask");
    return;
  }
  Mask& m = on_cross ? in.source_mask : in.target_mask;
  m.matrix = read_mask_file(a.mask_file, n_target, on_cross ? n_source : n_target,
                            parse_mask_convention(a.mask_convention));
}

// "0–3", or "0" for a single index.
std::string index_range(int count) {
  return count == 1 ? "0" : fmt::format("0\u2013{}", count - 1);
}

// --layer / --site / --head must name maps this model makes on this input: checked before anything
// runs, naming what exists, so a wrong selection prints nothing but the error.
void check_selection(const HeadSelection& sel, const Model& model, bool has_source) {
  const Config& c = model.config;
  const std::vector<HeadId> sites = attention_maps(model, has_source);
  int n_layers = 0;
  bool has_self = false, has_cross = false;
  for (const HeadId& id : sites) {
    n_layers = std::max(n_layers, id.layer + 1);
    (id.site == Site::self ? has_self : has_cross) = true;
  }
  if (sel.head && *sel.head >= c.n_heads) {
    throw usage_error(fmt::format("--head {}: the model has {} ({})", *sel.head,
                                  count_of(c.n_heads, "head"), index_range(c.n_heads)));
  }
  if (sel.layer && *sel.layer >= n_layers) {
    throw usage_error(fmt::format("--layer {}: the model has {} ({})", *sel.layer,
                                  count_of(n_layers, "layer"), index_range(n_layers)));
  }
  if (sel.site && !(*sel.site == Site::self ? has_self : has_cross)) {
    throw usage_error(fmt::format("--site {}: this model{} has only {} attention",
                                  site_name(*sel.site), has_source ? " on this input" : "",
                                  has_self ? "self" : "cross"));
  }
  const bool any = std::any_of(sites.begin(), sites.end(), [&](HeadId id) {
    id.head = sel.head.value_or(0);
    return sel.matches(id);
  });
  if (!any) throw usage_error("--layer and --site together select no attention map of this model");
}

}  // namespace

ConfigOverrides overrides_of(const InputArgs& a) {
  ConfigOverrides o;
  o.n_heads = a.heads;
  if (a.norm_first) o.norm_first = true;
  if (!a.activation.empty()) o.activation = a.activation;
  o.layer_norm_eps = a.layer_norm_eps;
  o.pe_base = a.pe_base;
  o.layout = a.layout;
  o.layout_file = a.layout_file;
  return o;
}

PreparedRun prepare_run(const InputArgs& a) {
  const bool cross = !a.source_tokens.empty() || !a.source_ids.empty() || !a.source_embeddings.empty();
  PreparedRun run{load_model(a.model, overrides_of(a)), {}, {}, {}};
  const Vocabulary vocab = vocabulary_of(run.model);
  run.inputs.target = resolve_sequence(run.model, vocab, a.tokens, a.ids, a.embeddings, "target");
  if (cross) {
    run.inputs.source =
        resolve_sequence(run.model, vocab, a.source_tokens, a.source_ids, a.source_embeddings, "source");
  }
  resolve_masks(a, run.model, run.inputs);
  run.options.scale = parse_qk_scale(a.qk_scale);
  run.options.block_rows = a.block_rows;
  run.selection.layer = a.layer;
  run.selection.head = a.head;
  if (!a.site.empty()) run.selection.site = a.site == "self" ? Site::self : Site::cross;
  check_selection(run.selection, run.model, run.inputs.source.has_value());
  // What the user should know about how the input was embedded (unknown tokens, hash vectors),
  // once the command line is known to be good; a note the source shares with the target once.
  std::vector<std::string> notes = run.inputs.target.notes;
  if (run.inputs.source) {
    for (const auto& note : run.inputs.source->notes) {
      if (std::find(notes.begin(), notes.end(), note) == notes.end()) notes.push_back(note);
    }
  }
  for (const auto& note : notes) std::cerr << "attnviz: note: " << note << '\n';
  return run;
}

}  // namespace attnviz
