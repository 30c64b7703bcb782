// `explain` of Bahdanau's additive attention (MapInfo::additive, the translation tutorial's GRU
// model): the score v·tanh(W s + U h) + b step by step, beside the dot product a transformer's
// head computes.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <numeric>

#include "attnviz/core/unicode.hpp"
#include "attnviz/io/json_write.hpp"
#include "explain_math.hpp"
#include "explain_printer.hpp"

namespace attnviz::detail {

namespace {

// One cell's score worked out in double: q_i + k_j, tanh, × v, summed, + b; its weight from the
// model's row as cell_math computes it.
struct AdditiveCell {
  std::vector<double> sum, hidden, terms;  // q_i[d] + k_j[d], tanh of it, v[d] · tanh
  double score = 0, weight = 0, row_max = 0, exp_sum = 0;
};

AdditiveCell additive_cell(const HeadTrace& t, int i, int j) {
  const AdditiveScore& a = *t.info.additive;
  AdditiveCell c;
  for (Eigen::Index d = 0; d < t.q.cols(); ++d) {
    c.sum.push_back(double(t.q(i, d)) + double(t.k(j, d)));
    c.hidden.push_back(std::tanh(c.sum.back()));
    c.terms.push_back(double(a.v[d]) * c.hidden.back());
    c.score += c.terms.back();
  }
  c.score += a.b;
  const CellMath m = cell_math(t, i, j);  // the softmax over the model's own row
  c.weight = m.weight, c.row_max = m.row_max, c.exp_sum = m.exp_sum;
  return c;
}

std::string json_explain(const HeadTrace& t, const ExplainOptions& o) {
  const MapInfo& info = t.info;
  nlohmann::ordered_json j;
  j["model"] = o.model_name;
  j["stack"] = info.id.stack;
  j["layer"] = info.id.layer;
  j["site"] = site_name(info.id.site);
  j["head"] = info.id.head;
  j["heads"] = info.n_heads;
  j["score"] = "additive";
  j["hidden"] = t.q.cols();
  j["mask"] = info.mask->describe();
  j["s"] = matrix_json(t.x_q), j["h"] = matrix_json(t.x_kv);
  j["q"] = matrix_json(t.q), j["k"] = matrix_json(t.k);
  j["v_a"] = matrix_json(info.additive->v)[0];
  j["b_v"] = info.additive->b;
  j["scores"] = matrix_json(t.scores), j["probs"] = matrix_json(t.probs);
  j["context"] = matrix_json(t.output);
  if (o.cell) {
    const auto [ci, cj] = *o.cell;
    const AdditiveCell c = additive_cell(t, ci, cj);
    j["cell"] = {{"query", ci},
                 {"key", cj},
                 {"sum", c.sum},
                 {"tanh", c.hidden},
                 {"terms", c.terms},
                 {"score", c.score},
                 {"row_max", c.row_max},
                 {"exp_sum", c.exp_sum},
                 {"weight", c.weight},
                 {"model_score", matrix_json(t.scores.block(ci, cj, 1, 1))[0][0]},
                 {"model_weight", t.probs(ci, cj)}};
  }
  return json_text(j, 2) + "\n";
}

// The cell's terms, the largest |v[d]·tanh| in d order when there are many (text), "⋮" between.
std::string cell_table(const HeadTrace& t, const AdditiveCell& c, int i, int j,
                       const ExplainOptions& o) {
  const Eigen::Index n = t.q.cols();
  const bool text = o.format != TableFormat::markdown;
  std::vector<std::vector<std::string>> rows = {{"d", fmt::format("q_{}[d]", i),
                                                 fmt::format("k_{}[d]", j), "tanh(q + k)", "v[d]",
                                                 "product"}};
  std::vector<Eigen::Index> ds(static_cast<size_t>(n));
  std::iota(ds.begin(), ds.end(), Eigen::Index{0});
  const size_t shown = text && n > 32 ? 16 : ds.size();
  if (shown < ds.size()) {
    std::stable_sort(ds.begin(), ds.end(), [&](Eigen::Index a, Eigen::Index b) {
      return std::abs(c.terms[size_t(a)]) > std::abs(c.terms[size_t(b)]);
    });
    ds.resize(shown);
    std::sort(ds.begin(), ds.end());
  }
  const int p = o.precision + 2;
  for (size_t k = 0; k < ds.size(); ++k) {
    const Eigen::Index d = ds[k];
    if ((k == 0 && d > 0) || (k > 0 && d > ds[k - 1] + 1))
      rows.push_back({"⋮", "⋮", "⋮", "⋮", "⋮", "⋮"});
    rows.push_back({std::to_string(d), number(t.q(i, d), p), number(t.k(j, d), p),
                    number(c.hidden[size_t(d)], p), number(t.info.additive->v[d], p),
                    number(c.terms[size_t(d)], p)});
  }
  if (ds.back() < n - 1) rows.push_back({"⋮", "⋮", "⋮", "⋮", "⋮", "⋮"});
  const std::vector<size_t> columns = {0, 1, 2, 3, 4, 5};
  std::string table = aligned_columns(
      rows, column_widths(rows), columns, [](size_t) { return false; }, !text);
  if (!text) return table + "\n";
  table = indented(table);
  if (shown < static_cast<size_t>(n)) {
    table += fmt::format("   ({} terms: the {} largest |products| shown; the sum takes all)\n", n,
                         shown);
  }
  return table;
}

}  // namespace

std::string render_additive_explain(const HeadTrace& t, const ExplainOptions& o) {
  if (o.format == TableFormat::json) return json_explain(t, o);
  const MapInfo& info = t.info;
  const AdditiveScore& a = *info.additive;
  const auto nq = t.q.rows(), nk = t.k.rows(), hidden = t.q.cols();
  const bool markdown = o.format == TableFormat::markdown;
  const auto queries = token_names(info.query_labels.get(), nq),
             keys = token_names(info.key_labels.get(), nk);
  Printer p(o);
  std::string out = fmt::format(
      "{}{} · {} — additive attention (Bahdanau et al. 2015), step by step: "
      "softmax(v·tanh(W s + U h) + b)·H\n",
      markdown ? "## " : "", markdown ? markdown_field(o.model_name) : o.model_name,
      info.id.title());
  out += fmt::format("{}{} decoder steps × {} source tokens · hidden size {} · mask: {}\n",
                     markdown ? "\n" : "", nq, nk, hidden, info.mask->describe());
  out += fmt::format(
      "Matrices show their first {} rows and {} columns (--rows, --cols); --format json holds them "
      "whole.\n",
      o.rows, o.cols);
  p.heading(fmt::format(
      "1. The decoder's state before each step, S [{}, {}] (the first: the encoder's last "
      "output), and the encoder's outputs H [{}, {}]",
      nq, hidden, nk, hidden));
  p.line(
      "A row is labelled by the token the decoder reads at that step; the step's attention "
      "chooses what it writes next (the word after it), from S alone.");
  p.matrix("S", t.x_q, queries, "h");
  p.matrix("H", t.x_kv, keys, "h");
  p.heading(fmt::format(
      "2. Projections: Q = S·W_aᵀ + b_W [{}, {}] and K = H·U_aᵀ + b_U [{}, {}] (the tutorial's "
      "Wa(query) and Ua(keys))",
      nq, hidden, nk, hidden));
  p.matrix("Q", t.q, queries, "d");
  p.matrix("K", t.k, keys, "d");
  p.heading(fmt::format(
      "3. Scores: e_ij = v·tanh(q_i + k_j) + b = Va(tanh(Wa(s_i) + Ua(h_j))), a network of one "
      "hidden layer of {} units scoring each pair [{}, {}]",
      hidden, nq, nk));
  p.line(
      "Beside the dot product: a transformer's head scores q_i·k_j / √d_k, one product of two "
      "vectors; here q_i and k_j are added, squashed by tanh and weighed by v, so a pair can "
      "score high without the vectors pointing alike. Nothing is scaled, and no key is masked.");
  p.matrix("scores", t.scores, queries, "k");
  p.heading(
      "4. Softmax, row by row: α_ij = exp(e_ij − max_j e_ij) / Σ_j exp(e_ij − max_j e_ij), the "
      "alignment of step i to source token j");
  p.matrix("α", t.probs, queries, "k");
  p.heading(fmt::format(
      "5. Context: c_i = Σ_j α_ij h_j = α·H [{}, {}] — the values are the encoder's outputs "
      "themselves (no W_V, no W_O)",
      nq, hidden));
  p.matrix("c", t.output, queries, "h");
  p.line(
      "The GRU then reads [the embedding of the step's token; c_i] and gives the next state; the "
      "decoder's `out` Linear turns each state into the logits of the next word.");
  if (o.cell) {
    const auto [ci, cj] = *o.cell;
    const auto name = [&](const std::string& token) {
      return markdown ? markdown_field(token) : token;
    };
    p.heading(fmt::format("Cell ({}, {}): step {} → source token {}", ci, cj,
                          name(queries[size_t(ci)]), name(keys[size_t(cj)])));
    const AdditiveCell c = additive_cell(t, ci, cj);
    out += p.take();
    out += cell_table(t, c, ci, cj, o);
    p.line(fmt::format(
        "e_{0}{1} = Σ_d v[d]·tanh(q_{0}[d] + k_{1}[d]) + b = {2:.6g} + {3:.6g} = {4:.6g} (the "
        "model: {5})",
        ci, cj, c.score - double(a.b), a.b, c.score, number(t.scores(ci, cj), 6)));
    p.line(fmt::format(
        "softmax over row {}: exp({:.6g} − {:.6g}) / {:.6g} = {:.6g} (the model: {:.6g})", ci,
        static_cast<double>(t.scores(ci, cj)), c.row_max, c.exp_sum, c.weight, t.probs(ci, cj)));
  }
  return out + p.take();
}

}  // namespace attnviz::detail
