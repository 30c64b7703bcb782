// The forward pass of a model, wiring embeddings and attention sites to the sink.
#include "attnviz/compute/forward.hpp"

#include <fmt/format.h>

#include "attnviz/compute/attention.hpp"
#include "attnviz/compute/multi_head.hpp"

namespace attnviz {

std::string format_row_list(const std::vector<int>& rows) {
  std::string out;
  for (size_t i = 0; i < rows.size();) {
    size_t j = i;
    while (j + 1 < rows.size() && rows[j + 1] == rows[j] + 1) ++j;
    if (!out.empty()) out += ", ";
    out += j == i ? fmt::format("{}", rows[i]) : fmt::format("{}-{}", rows[i], rows[j]);
    i = j + 1;
  }
  return out;
}

ForwardResult forward(const Model& model, const ForwardInputs& inputs, const ForwardOptions& options,
                      AttentionSink* sink) {
  const Sequence& queries = inputs.target;
  const Sequence& keys = inputs.source ? *inputs.source : inputs.target;
  AttentionSite site;
  site.id.site = inputs.source ? Site::cross : Site::self;
  site.mask = &inputs.mask;
  site.query_labels = &queries.labels;
  site.key_labels = &keys.labels;
  site.scale = options.scale;
  site.block_rows = options.block_rows;
  site.sink = sink;

  ForwardResult result;
  const auto masked = fully_masked_rows(inputs.mask, static_cast<int>(queries.x.rows()),
                                        static_cast<int>(keys.x.rows()));
  if (!masked.empty()) {
    result.warnings.push_back(fmt::format(
        "{}: every key is masked for query rows {} ({} of {}); they are zero rows, not attention",
        site.id.map_name(), format_row_list(masked), masked.size(), queries.x.rows()));
  }
  result.hidden = multi_head_attention(queries.x, keys.x, model.weights.attention,
                                       model.config.n_heads, site);
  return result;
}

}  // namespace attnviz
