// One head's computation, step by step, in text, Markdown or JSON.
#include "attnviz/reports/explain_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <numeric>

#include "attnviz/core/error.hpp"
#include "attnviz/core/plural.hpp"
#include "attnviz/core/unicode.hpp"
#include "attnviz/io/json_write.hpp"
#include "explain_math.hpp"
#include "explain_printer.hpp"

namespace attnviz {
namespace {

using detail::bias_matrix;
using detail::cell_math;
using detail::CellMath;
using detail::indented;
using detail::matrix_json;
using detail::number;
using detail::Printer;
using detail::qk_variance;
using detail::score_formula;
using detail::token_names;

}  // namespace

std::string render_explain(const HeadTrace& t, const ExplainOptions& o) {
  const MapInfo& info = t.info;
  const auto nq = t.q.rows(), nk = t.k.rows(), dk = t.q.cols(), dv = t.v.cols(),
             d_in = t.x_q.cols();
  const int heads = info.n_heads, h = info.id.head;
  if (o.cell &&
      (o.cell->first < 0 || o.cell->first >= nq || o.cell->second < 0 || o.cell->second >= nk)) {
    throw usage_error(fmt::format("--cell {},{}: the map has queries 0 to {} and keys 0 to {}",
                                  o.cell->first, o.cell->second, nq - 1, nk - 1));
  }
  if (info.additive) return detail::render_additive_explain(t, o);
  const Matrix raw =
      (t.q.cast<double>() * t.k.cast<double>().transpose()).cast<float>();  // Q_h·K_hᵀ
  if (o.format == TableFormat::json) {
    nlohmann::ordered_json j;
    j["model"] = o.model_name;
    j["stack"] = info.id.stack;
    j["layer"] = info.id.layer;
    j["site"] = site_name(info.id.site);
    j["head"] = h;
    j["heads"] = heads;
    j["d_in"] = d_in, j["d_k"] = dk, j["d_v"] = dv;
    j["scale"] = info.scale;
    j["softcap"] = info.softcap;
    if (info.relative_bias) {
      Matrix buckets;
      j["relative_bias"] = matrix_json(bias_matrix(*info.relative_bias, h, nq, nk, &buckets));
      j["relative_buckets"] = matrix_json(buckets);
    }
    j["mask"] = info.mask->describe();
    j["x"] = matrix_json(t.x_q);
    if (info.id.site == Site::cross) j["x_kv"] = matrix_json(t.x_kv);
    j["q"] = matrix_json(t.q), j["k"] = matrix_json(t.k), j["v"] = matrix_json(t.v);
    j["qk"] = matrix_json(raw);
    j["scores"] = matrix_json(t.scores), j["probs"] = matrix_json(t.probs);
    if (info.sink_logit) {
      j["sink_logit"] = *info.sink_logit;
      j["sink"] = matrix_json(t.sink)[0];  // [1, n_query]: one weight per row
    }
    j["output"] = matrix_json(t.output), j["merged"] = matrix_json(t.merged),
    j["out"] = matrix_json(t.out);
    if (o.cell) {
      const auto [ci, cj] = *o.cell;
      const CellMath c = cell_math(t, ci, cj);
      j["cell"] = {{"query", ci},
                   {"key", cj},
                   {"terms", c.terms},
                   {"dot", c.dot},
                   {"bias", c.bias},
                   {"scaled", c.scaled},
                   {"allowed", c.allowed},
                   {"row_max", c.row_max},
                   {"exp_sum", c.exp_sum},
                   {"weight", c.weight},
                   {"model_score", matrix_json(t.scores.block(ci, cj, 1, 1))[0][0]},
                   {"model_weight", t.probs(ci, cj)}};
    }
    return json_text(j, 2) + "\n";
  }
  if (o.format != TableFormat::text && o.format != TableFormat::markdown) {
    throw usage_error("explain --format: text, markdown or json (the steps are not one table)");
  }
  const auto queries = token_names(info.query_labels.get(), nq),
             keys = token_names(info.key_labels.get(), nk);
  Printer p(o);
  const std::string where = info.id.title();
  const float cap = info.softcap;
  std::string out = fmt::format(
      "{}{} · {} — one head's attention, step by step: softmax({})·V\n",
      o.format == TableFormat::markdown ? "## " : "",
      o.format == TableFormat::markdown ? markdown_field(o.model_name) : o.model_name, where,
      cap > 0 ? fmt::format("{:g}·tanh(({}) / {:g})", cap, score_formula(info, dk), cap)
              : score_formula(info, dk));
  out += fmt::format("{}{} queries × {} keys · input width {} · {} of d_k {}, d_v {} · mask: {}\n",
                     o.format == TableFormat::markdown ? "\n" : "", nq, nk, d_in,
                     count_of(heads, "head"), dk, dv, info.mask->describe());
  out += fmt::format(
      "Matrices show their first {} rows and {} columns (--rows, --cols); --format json holds them "
      "whole.\n",
      o.rows, o.cols);
  p.heading(fmt::format(
      "1. X: the input of this attention layer, after the layer's norm when it has one [{}, {}]",
      nq, d_in));
  p.matrix("X", t.x_q, queries, "x");
  if (info.id.site == Site::cross) {
    p.line(
        fmt::format("Cross-attention: queries come from X above, keys and values from the source "
                    "X_kv [{}, {}]:",
                    nk, t.x_kv.cols()));
    p.matrix("X_kv", t.x_kv, keys, "x");
  }
  const int kv = info.id.kv_head >= 0 ? info.id.kv_head : h;
  // A fused projection (fused-qkv's attn, GPT-2's c_attn) computes [Q | K | V] at once and splits
  // it by columns.
  const std::string projection =
      o.fused_qkv_width > 0 ? fmt::format(
                                  "one fused Linear makes [Q | K | V] = X·W_qkvᵀ + b_qkv [{0}, "
                                  "{1}], split by columns into "
                                  "Q [{0}, {2}·{3}], K and V",
                                  nq, o.fused_qkv_width, heads, dk)
                            : fmt::format("Q = X·W_qᵀ + b_q is [{}, {}·{}]", nq, heads, dk);
  std::string split = heads == 1 ? fmt::format(
                                       "2. Projections: {}; one head, so head 0 is the whole of Q "
                                       "(nothing to view or transpose)",
                                       projection)
                                 : fmt::format(
                                       "2. Projections and the head split: {4}; view({0}, {1}, "
                                       "{2}).transpose makes Q [{1}, {0}, "
                                       "{2}], and head {3} is columns {5}–{6} of Q",
                                       nq, heads, dk, h, projection, h * dk, (h + 1) * dk - 1);
  split += kv == h ? "; K and V alike"
                   : fmt::format(
                         "; K and V have fewer heads (grouped-query attention): head {} reads "
                         "their head {}, "
                         "columns {}–{}",
                         h, kv, kv * dk, (kv + 1) * dk - 1);
  if (o.qk_norm) {
    split += o.qk_norm_whole ? "; then q and k are RMS-normalised over all their heads at once"
                             : "; then q and k are RMS-normalised per head";
  }
  if (o.rotary_dim > 0) {
    split += fmt::format(
        "; then rotated by position (RoPE, the first {} dims of each head): Q and K below are "
        "after it",
        o.rotary_dim);
  } else if (o.qk_norm) {
    split += ": Q and K below are after it";
  }
  p.heading(split);
  p.matrix(fmt::format("Q_{}", h), t.q, queries, "d");
  p.matrix(fmt::format("K_{}", h), t.k, keys, "d");
  p.matrix(fmt::format("V_{}", h), t.v, keys, "d");
  p.heading(fmt::format(
      "3. Scores: Q_{0}·K_{0}ᵀ [{1}, {2}], entry (i, j) = q_i·k_j, how well query i matches key j",
      h, nq, nk));
  p.matrix("q·k", raw, queries, "k");
  const double var_qk = qk_variance(raw, t);
  const bool default_scale = std::abs(info.scale * std::sqrt(static_cast<double>(dk)) - 1.0) < 1e-6;
  p.heading(fmt::format("4. Scale: × {:.6g}{}", info.scale,
                        !o.scale_source.empty() ? " (set by " + o.scale_source + ")"
                        : default_scale         ? fmt::format(" = 1/√{}", dk)
                                                : " (not 1/√d_k, and nothing says what set it)"));
  p.line(fmt::format(
      "With independent components of variance 1, q·k would have variance d_k = {}; here var(q·k) "
      "= {:.4g} "
      "over the cells the mask allows in the rows with a choice of keys (as `attnviz stats` "
      "computes it), and × {:.4g} gives {:.4g}: without the scale the softmax below would be "
      "sharper, "
      "its gradient smaller (see `attnviz stats`).",
      dk, var_qk, info.scale, var_qk * info.scale * info.scale));
  if (info.relative_bias) {
    const RelativeBias& b = *info.relative_bias;
    Matrix buckets;
    const Matrix bias = bias_matrix(b, h, nq, nk, &buckets);
    p.heading(fmt::format(
        "4a. Relative position bias: + B_{0}(i, j) = table[bucket(j − i), {0}], the table "
        "[{1} buckets, {2} heads] of this stack's layer 0, added in every layer; {3}",
        h, b.n_buckets(), heads,
        b.bidirectional
            ? fmt::format("half the buckets for keys after the query; offsets below {} exact, "
                          "then logarithmic up to {} (beyond it, the last bucket)",
                          b.n_buckets() / 4, b.max_distance)
            : fmt::format("a causal stack's buckets count back only; offsets below {} exact, "
                          "then logarithmic up to {} (beyond it, the last bucket)",
                          b.n_buckets() / 2, b.max_distance)));
    p.matrix("bucket", buckets, queries, "k");
    p.matrix(fmt::format("B_{}", h), bias, queries, "k");
  }
  if (cap > 0) {
    p.heading(fmt::format(
        "4b. Soft-cap: s = {0:g}·tanh(s / {0:g}) (Gemma 2): scores stay within ±{0:g}", cap));
  }
  p.heading(
      fmt::format("5. Mask ({}): masked_fill(mask == 0, −inf) before the softmax; these are the "
                  "model's own scores",
                  info.mask->describe()));
  p.matrix("scores", t.scores, queries, "k");
  if (info.sink_logit) {
    p.heading(fmt::format(
        "6. Softmax, row by row, with this head's sink logit σ = {:.6g} as one more term on no "
        "key: P(i, j) = exp(s_ij − m_i) / (exp(σ − m_i) + Σ_j exp(s_ij − m_i)), m_i = max(σ, "
        "max_j s_ij); −inf gives 0",
        *info.sink_logit));
  } else {
    p.heading(
        "6. Softmax, row by row: P(i, j) = exp(s_ij − max_j s_ij) / Σ_j exp(s_ij − max_j s_ij); "
        "−inf gives 0");
  }
  p.matrix("P", t.probs, queries, "k");
  std::string sums, sinks;
  for (Eigen::Index i = 0; i < std::min<Eigen::Index>(nq, o.rows); ++i) {
    sums += (sums.empty() ? "" : ", ") + number(t.probs.row(i).cast<double>().sum(), o.precision);
    if (info.sink_logit) sinks += (sinks.empty() ? "" : ", ") + number(t.sink[i], o.precision);
  }
  const std::string more = nq > o.rows ? ", …" : "";
  if (info.sink_logit) {
    p.line("Row sums: " + sums + more + "; the sink's weights: " + sinks + more +
           " (together 1: the sink's share reaches no value row).");
  } else {
    p.line("Row sums: " + sums + more + " (a fully masked row is all 0: see `attnviz check`).");
  }
  p.heading(
      fmt::format("7. Output of head {0}: O_{0} = P·V_{0} [{1}, {2}], each row a weighted mean of "
                  "the value rows",
                  h, nq, dv));
  p.matrix(fmt::format("O_{}", h), t.output, queries, "d");
  const std::string concat =
      heads == 1 ? std::string("O_0 (one head: nothing to concatenate)")
                 : fmt::format("Concat(O_0, …, O_{}) (transpose back, view)", heads - 1);
  if (o.out_projection) {
    p.heading(fmt::format("8. Merge: {} [{}, {}], then the output projection W_O → [{}, {}]",
                          concat, nq, t.merged.cols(), nq, t.out.cols()));
    p.matrix("concat", t.merged, queries, "c");
    p.matrix("out", t.out, queries, "o");
  } else {  // qkv-linears without `out` and fused-qkv return P·V as it is
    p.heading(fmt::format(
        "8. Merge: {} [{}, {}]; the module has no output projection W_O: this is its output",
        concat, nq, t.merged.cols()));
    p.matrix("out", t.merged, queries, "o");
  }
  const std::string& placement = t.placement;
  const std::string wiring =
      placement == "sandwich"      ? "x + Norm(out), Norm(x) being what attention read (a sandwich)"
      : placement == "pre-norm"    ? "x + out, Norm(x) being what attention read (pre-norm)"
      : placement == "post-norm"   ? "Norm(x + out) (post-norm)"
      : placement == "output norm" ? "x + Norm(out), attention having read x (an output norm)"
      : placement == "parallel"
          ? "x + out + FFN(Norm'(x)): attention read Norm(x), and the feed-forward network reads "
            "the same x beside it (parallel)"
      : placement == "no norm" ? "x + out"
                               : "";
  if (wiring.empty()) {  // a bare attention layer: nothing to say about x
    p.line("The layer's output is out: a bare attention layer has no residual connection.");
  } else {
    p.line(fmt::format(
        "The layer's output is {}, x being the layer's input (see `attnviz residual`).", wiring));
  }
  if (o.cell) {
    const auto [ci, cj] = *o.cell;
    const CellMath c = cell_math(t, ci, cj);
    const auto name = [&o](const std::string& token) {
      return o.format == TableFormat::markdown ? markdown_field(token) : token;
    };
    p.heading(fmt::format("Cell ({}, {}): query {} → key {}", ci, cj,
                          name(queries[static_cast<size_t>(ci)]),
                          name(keys[static_cast<size_t>(cj)])));
    std::vector<std::vector<std::string>> rows = {
        {"d", fmt::format("q_{}[d]", ci), fmt::format("k_{}[d]", cj), "product"}};
    // In text, a long dot product shows its 16 largest terms |q·k| in d order, "⋮" where terms are
    // left out (the sum below takes every term); Markdown, for notes, has them all.
    const bool text = o.format != TableFormat::markdown;
    std::vector<Eigen::Index> ds(static_cast<size_t>(dk));
    std::iota(ds.begin(), ds.end(), Eigen::Index{0});
    const size_t shown = text && dk > 32 ? 16 : ds.size();
    if (shown < ds.size()) {
      std::stable_sort(ds.begin(), ds.end(), [&](Eigen::Index a, Eigen::Index b) {
        return std::abs(c.terms[static_cast<size_t>(a)]) >
               std::abs(c.terms[static_cast<size_t>(b)]);
      });
      ds.resize(shown);
      std::sort(ds.begin(), ds.end());
    }
    for (size_t k = 0; k < ds.size(); ++k) {
      const Eigen::Index d = ds[k];
      if ((k == 0 && d > 0) || (k > 0 && d > ds[k - 1] + 1)) rows.push_back({"⋮", "⋮", "⋮", "⋮"});
      rows.push_back({std::to_string(d), number(t.q(ci, d), o.precision + 2),
                      number(t.k(cj, d), o.precision + 2),
                      number(c.terms[static_cast<size_t>(d)], o.precision + 2)});
    }
    if (ds.back() < dk - 1) rows.push_back({"⋮", "⋮", "⋮", "⋮"});
    std::vector<size_t> columns = {0, 1, 2, 3};
    std::string table = aligned_columns(
        rows, column_widths(rows), columns, [](size_t) { return false; }, !text);
    out += p.take();
    if (text) {  // indented as the steps' matrices are
      table = indented(table);
      if (shown < static_cast<size_t>(dk)) {
        table += fmt::format("   ({} terms: the {} largest |products| shown; the sum takes all)\n",
                             dk, shown);
      }
    } else {
      table += "\n";
    }
    out += table;
    p.line(fmt::format(
        "q_{}·k_{} = Σ_d q_{}[d]·k_{}[d] = {:.6g}; × {:.6g}{}{} = {:.6g} (the model: {})", ci, cj,
        ci, cj, c.dot, info.scale,
        info.relative_bias
            ? fmt::format(", + B = {:.6g} (bucket {})", c.bias, info.relative_bias->bucket(cj - ci))
            : "",
        cap > 0 ? fmt::format(", then {0:g}·tanh(· / {0:g})", cap) : "", c.scaled,
        number(t.scores(ci, cj), 6)));
    if (c.allowed) {
      p.line(fmt::format(
          "softmax over row {}'s allowed keys{}: exp({:.6g} − {:.6g}) / {:.6g} = {:.6g} "
          "(the model: {:.6g})",
          ci, info.sink_logit ? " and the sink logit" : "", static_cast<double>(t.scores(ci, cj)),
          c.row_max, c.exp_sum, c.weight, t.probs(ci, cj)));
    } else {
      p.line(fmt::format(
          "key {} is masked for query {}: its score is −inf and its weight 0 (the model: {})", cj,
          ci, number(t.probs(ci, cj), 6)));
    }
  }
  return out + p.take();
}

}  // namespace attnviz
