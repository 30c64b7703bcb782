// `run --logits K`: checks the model can predict tokens, then labels and prints its predictions.
#include "attnviz/cli/predictions.hpp"

#include <fmt/format.h>

#include "attnviz/compute/logits.hpp"
#include "attnviz/core/error.hpp"
#include "attnviz/reports/prediction_table.hpp"

namespace attnviz {

void check_logits_flag(const PreparedRun& run, int k, TableFormat format, bool map_tables) {
  if (k <= 0) return;
  const Model& m = run.model;
  if (!unembedding(m)) {
    const std::string why =
        m.weights.embed.token
            ? "no lm_head tensor (role unembed.weight) and tie_word_embeddings is false"
            : "no lm_head tensor (role unembed.weight) and no token table";
    throw usage_error(
        fmt::format("--logits: {} ({} layout, {}) has no unembedding to predict tokens with: {}",
                    m.name, m.config.layout, arch_name(m.config.arch), why));
  }
  if (format == TableFormat::csv && map_tables) {
    throw usage_error("--format csv writes one table: give --table none with --logits");
  }
}

std::string predictions_table(const PreparedRun& run, const Matrix& hidden, int k,
                              const TableStyle& style) {
  const std::vector<std::vector<Prediction>> top = model_predictions(run.model, hidden, k);
  const auto label = [&](int64_t id) {
    if (run.tools && run.tools->tokenizer) return run.tools->tokenizer->label(id);
    return id_labels(run.tools ? run.tools->vocab : Vocabulary{}, {id}).front();
  };
  std::vector<PredictionRow> rows;
  for (size_t p = 0; p < top.size(); ++p) {
    for (size_t r = 0; r < top[p].size(); ++r) {
      const Prediction& t = top[p][r];
      rows.push_back({static_cast<int64_t>(p), run.inputs.target.labels.at(p),
                      static_cast<int>(r + 1), t.id, label(t.id), t.logit, t.probability});
    }
  }
  return render_predictions(fmt::format("{}: top {} next tokens", run.model.name, k), rows, style);
}

}  // namespace attnviz
