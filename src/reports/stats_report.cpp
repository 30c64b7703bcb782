// `attnviz stats` as a terminal table: the key figures of each head beside its unscaled
// counterfactual.
#include "attnviz/reports/stats_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>

#include "attnviz/core/error.hpp"
#include "attnviz/core/unicode.hpp"

namespace attnviz {

namespace {

std::string fixed(double x, int precision) {
  return std::isfinite(x) ? fmt::format("{:.{}f}", x, precision) : "-";
}
std::string percent(double share) {
  return std::isfinite(share) ? fmt::format("{:.1f}%", 100.0 * share) : "-";
}

const char* const k_header[] = {"map",  "head", "role",   "max w",  "H",    "H/ln n", "keys",
                                "gap",  "J_F",  "sat",    "var qk", "pred", "var s",  "sink",
                                "prev", "self", "cf sat", "+rows",  "cf H"};
constexpr size_t k_columns = std::size(k_header);

std::vector<std::string> text_row(const HeadStats& h, const std::string& map,
                                  const std::string& head, const std::string& role, int p) {
  return {map,
          head,
          role,
          fixed(h.scaled.max_weight.mean(), p),
          fixed(h.scaled.entropy.mean(), p),
          fixed(h.scaled.entropy_normalized.mean(), p),
          fixed(h.scaled.effective_keys.mean(), p),
          fixed(h.scaled.top_gap.mean(), p),
          fixed(h.scaled.jacobian_norm.mean(), p),
          percent(h.scaled.saturated_share()),
          fixed(h.raw_logits.variance(), p),
          fixed(h.predicted_raw_variance.mean(), p),
          fixed(h.scaled_logits.variance(), p),
          fixed(h.scaled.first_key.mean(), p),
          fixed(h.scaled.previous.mean(), p),
          fixed(h.scaled.diagonal.mean(), p),
          percent(h.unscaled.saturated_share()),
          fmt::format("{:+d}", h.unscaled.saturated_rows - h.scaled.saturated_rows),
          fixed(h.unscaled.entropy.mean(), p)};
}

constexpr size_t k_label_columns = 3;  // map, head, role: repeated in every block of columns
constexpr int k_gap = 2;

// The figure columns of each block: as many as fit `width` after the label columns (0 = one
// block); one figure per block at least.
std::vector<std::vector<size_t>> column_blocks(const std::vector<int>& widths, int width) {
  int labels = 0;
  for (size_t c = 0; c < k_label_columns; ++c) labels += widths[c] + (c ? k_gap : 0);
  std::vector<std::vector<size_t>> blocks(1);
  int used = labels;
  for (size_t c = k_label_columns; c < k_columns; ++c) {
    if (width > 0 && blocks.back().size() > k_label_columns && used + k_gap + widths[c] > width) {
      blocks.emplace_back();
      used = labels;
    }
    if (blocks.back().empty()) {
      for (size_t l = 0; l < k_label_columns; ++l) blocks.back().push_back(l);
    }
    blocks.back().push_back(c);
    used += k_gap + widths[c];
  }
  return blocks;
}

std::string group_name(const HeadStats& h) {
  return printable_text(h.id.map_name());
}

std::string render_text(const std::vector<HeadStats>& shown, const std::vector<HeadStats>& layers,
                        const HeadStats& all, const StatsOptions& stats,
                        const StatsReportOptions& report) {
  const bool markdown = report.format == TableFormat::markdown;
  const int p = report.precision;
  std::vector<std::vector<std::string>> rows;
  rows.emplace_back(std::begin(k_header), std::end(k_header));
  for (const auto& h : shown) {
    rows.push_back(text_row(h, group_name(h), std::to_string(h.id.head), role_name(h.role()), p));
  }
  for (const auto& l : layers) rows.push_back(text_row(l, group_name(l), "all", "", p));
  if (layers.size() > 1) rows.push_back(text_row(all, "all", "all", "", p));
  const std::string counterfactual =
      stats.temperature == 1.0 ? "q·k unscaled" : fmt::format("q·k / {:g}", stats.temperature);
  const std::string title =
      fmt::format("{} · attention statistics · saturated: max weight >= {:g}{}",
                  printable_text(report.model_name), stats.saturation,
                  report.scale_note.empty() ? "" : " · " + report.scale_note);
  std::string out = markdown ? "**" + markdown_field(title) + "**\n\n" : title + '\n';
  if (markdown) {
    for (auto& row : rows) {
      for (auto& cell : row) cell = markdown_field(cell);
    }
  }
  const std::vector<int> widths = column_widths(rows);
  const int width = markdown ? 0 : report.width;
  const auto blocks = column_blocks(widths, width);
  for (size_t b = 0; b < blocks.size(); ++b) {
    if (b > 0) out += '\n';
    // Text columns (map, role) left-aligned, numbers right.
    out += aligned_columns(
        rows, widths, blocks[b], [](size_t c) { return c == 0 || c == 2; }, markdown);
  }
  if (markdown) out += '\n';
  out += wrap_lines(
      fmt::format(
          "H = -Σ p ln p (nats) · keys = exp(H) · gap = top-1 - top-2 score · "
          "J_F = ‖diag(p) - p pᵀ‖_F\n"
          "var qk = var(q·k), pred = d_k·var(q)·var(k), var s = var(scale·q·k) · "
          "sink/prev/self = mean weight on key 0 / i-1 / i\n"
          "cf = counterfactual softmax({}) · +rows = saturated rows then minus now "
          "(negative when the counterfactual is softer)\n"
          "figures are over rows with >= 2 allowed keys: a row with one key (row 0 of a causal "
          "map) has no "
          "choice, is one-hot by construction and is counted apart (single_key_rows in json)\n"
          "role: sink/previous-token/self when that key holds >= {:g} of the weight, "
          "broad when H/ln n >= {:g}, concentrated when max w >= {:g}, else mixed\n",
          counterfactual, k_role_mass, k_role_broad_entropy, k_role_mass),
      width);
  if (all.sink_logit_weight.count > 0) {
    out += wrap_lines(
        fmt::format("learned sink logits: each row's sink weight (which no key gets) counts as one "
                    "more outcome in max w, H and sat; its mean is {} over these heads "
                    "(per head: --sort sink_logit, or sink_logit_weight in --format json)\n",
                    fixed(all.sink_logit_weight.mean(), p)),
        width);
  }
  return out;
}

}  // namespace

// text wrapped at spaces to `width` columns (0 = as it is); a word wider than the width stays
// whole.
std::string wrap_lines(const std::string& text, int width) {
  if (width <= 0) return text;
  std::string out, line, word;
  size_t start = 0;
  while (start < text.size()) {
    const size_t end = text.find('\n', start);
    const std::string paragraph = text.substr(start, end - start);
    start = end == std::string::npos ? text.size() : end + 1;
    line.clear();
    size_t at = 0;
    while (at <= paragraph.size()) {
      const size_t space = std::min(paragraph.find(' ', at), paragraph.size());
      word = paragraph.substr(at, space - at);
      at = space + 1;
      if (!line.empty() && display_width(line) + 1 + display_width(word) > width) {
        out += line + '\n';
        line = "  " + word;  // continuation lines are indented
      } else {
        line += (line.empty() ? "" : " ") + word;
      }
    }
    out += line + '\n';
  }
  return out;
}

std::string render_stats(const std::vector<HeadStats>& heads, const StatsOptions& stats,
                         const StatsReportOptions& report) {
  const auto layers = pool_by_layer(heads);
  const HeadStats all = pool_all(heads);
  const auto shown = order_heads(heads, report.order);
  switch (report.format) {
    case TableFormat::text:
    case TableFormat::markdown:
      return render_text(shown, layers, all, stats, report);
    case TableFormat::csv:
      return detail::stats_csv(shown, layers, all, stats);
    case TableFormat::json:
      return detail::stats_json(shown, layers, all, stats, report);
  }
  throw Error("stats: unknown format");
}

}  // namespace attnviz
