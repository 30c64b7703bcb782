// Resolving the shared input flags: model, target/source sequences, mask, scale, selection.
#include "attnviz/cli/prepare.hpp"

#include <fmt/format.h>

#include <charconv>

#include "attnviz/cli/inputs.hpp"
#include "attnviz/core/error.hpp"

namespace attnviz {

namespace {

std::optional<float> parse_qk_scale(const std::string& text) {
  if (text.empty()) return std::nullopt;
  if (text == "none") return 1.0f;
  float value = 0.0f;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || !(value > 0.0f)) {
    throw usage_error(fmt::format("--qk-scale '{}': expected a positive number or none", text));
  }
  return value;
}

Mask resolve_mask(const InputArgs& a, int n_query, int n_key, bool cross) {
  Mask mask;
  mask.causal = a.causal;
  const int pad = cross ? a.source_pad : a.pad;
  if (pad > n_key) {
    throw usage_error(fmt::format("--{}pad {}: there are only {} keys", cross ? "source-" : "", pad,
                                  n_key));
  }
  mask.n_pad_keys = pad;
  if (!cross) mask.window = a.window;
  if (!a.mask_file.empty()) mask.matrix = read_mask_file(a.mask_file, n_query, n_key);
  return mask;
}

}  // namespace

PreparedRun prepare_run(const InputArgs& a) {
  const bool cross = !a.source_tokens.empty() || !a.source_ids.empty() || !a.source_embeddings.empty();
  PreparedRun run{load_model(a.model, ConfigOverrides{a.heads}), {}, {}, {}};
  run.inputs.target = resolve_sequence(run.model, a.tokens, a.ids, a.embeddings, "target");
  if (cross) {
    run.inputs.source =
        resolve_sequence(run.model, a.source_tokens, a.source_ids, a.source_embeddings, "source");
  }
  const int n_query = static_cast<int>(run.inputs.target.x.rows());
  const int n_key = static_cast<int>(cross ? run.inputs.source->x.rows() : n_query);
  run.inputs.mask = resolve_mask(a, n_query, n_key, cross);
  run.options.scale = parse_qk_scale(a.qk_scale);
  run.options.block_rows = a.block_rows;
  run.selection.layer = a.layer;
  run.selection.head = a.head;
  if (!a.site.empty()) run.selection.site = a.site == "self" ? Site::self : Site::cross;
  return run;
}

}  // namespace attnviz
