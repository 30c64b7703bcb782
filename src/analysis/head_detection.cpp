// Head detection scores (TransformerLens's detect_head), summed row by row as blocks arrive.
#include "attnviz/analysis/head_detection.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>
#include <utility>

#include "attnviz/core/error.hpp"

namespace attnviz {

PatternSpec builtin_pattern(const std::string& name) {
  if (name == "previous-token") return {DetectionPattern::previous_token, name, nullptr};
  if (name == "duplicate-token") return {DetectionPattern::duplicate_token, name, nullptr};
  if (name == "induction") return {DetectionPattern::induction, name, nullptr};
  if (name == "sink") return {DetectionPattern::sink, name, nullptr};
  throw usage_error(
      fmt::format("unknown pattern '{}' (known: previous-token, duplicate-token, induction, sink, "
                  "or a 0/1 matrix file)",
                  name));
}

bool needs_tokens(DetectionPattern kind) {
  return kind == DetectionPattern::duplicate_token || kind == DetectionPattern::induction;
}

ErrorMeasure parse_error_measure(const std::string& name) {
  if (name == "mul") return ErrorMeasure::mul;
  if (name == "abs") return ErrorMeasure::abs;
  throw usage_error(fmt::format("unknown error measure '{}' (known: mul, abs)", name));
}

namespace {
// links[i]: the nearest earlier position holding token i's token; following the links from i visits
// every earlier copy, so a row costs as many steps as it has copies.
std::vector<int> earlier_copies(const std::vector<int64_t>& tokens) {
  std::unordered_map<int64_t, int> last;
  std::vector<int> links(tokens.size(), -1);
  for (size_t i = 0; i < tokens.size(); ++i) {
    const auto [it, inserted] = last.try_emplace(tokens[i], static_cast<int>(i));
    if (!inserted) links[i] = std::exchange(it->second, static_cast<int>(i));
  }
  return links;
}
}  // namespace

HeadDetector::HeadDetector(DetectionOptions options)
    : options_(std::move(options)),
      target_links_(earlier_copies(options_.tokens)),
      source_links_(earlier_copies(options_.source_tokens)) {}

void HeadDetector::begin_map(const MapInfo& info) {
  active_ = info.id.site == Site::self && info.n_query == info.n_key &&
            options_.selection.matches(info.id);
  if (!active_) return;
  const bool over_source = info.id.stack == "encoder";  // an encoder-decoder's encoder
  previous_same_ = over_source ? &source_links_ : &target_links_;
  for (const auto& p : options_.patterns) {
    if (needs_tokens(p.kind) && static_cast<size_t>(info.n_query) != previous_same_->size()) {
      throw Error(fmt::format(
          "heads: {} has {} tokens, but the {} pattern was made for {} {} tokens", info.id.title(),
          info.n_query, p.name, previous_same_->size(), over_source ? "source" : "target"));
    }
    if (p.matrix && (p.matrix->rows() != info.n_query || p.matrix->cols() != info.n_key)) {
      throw Error(fmt::format("heads: {} is [{}, {}], but the pattern {} is [{}, {}]",
                              info.id.title(), info.n_query, info.n_key, p.name, p.matrix->rows(),
                              p.matrix->cols()));
    }
  }
  attention_sum_ = 0.0;
  on_pattern_.assign(options_.patterns.size(), 0.0);
  abs_correction_.assign(options_.patterns.size(), 0.0);
}

bool HeadDetector::excluded(int i, int j) const {
  return (options_.exclude_bos && j == 0) || (options_.exclude_current && j == i);
}

void HeadDetector::pattern_keys(DetectionPattern kind, int i, std::vector<int>& keys) const {
  keys.clear();
  switch (kind) {
    case DetectionPattern::previous_token:
      if (i >= 1) keys.push_back(i - 1);
      break;
    case DetectionPattern::sink:
      keys.push_back(0);
      break;
    case DetectionPattern::duplicate_token:
      for (int j = (*previous_same_)[static_cast<size_t>(i)]; j >= 0;
           j = (*previous_same_)[static_cast<size_t>(j)]) {
        keys.push_back(j);
      }
      break;
    case DetectionPattern::induction:  // the token after each earlier copy of token i
      for (int j = (*previous_same_)[static_cast<size_t>(i)]; j >= 0;
           j = (*previous_same_)[static_cast<size_t>(j)]) {
        keys.push_back(j + 1);
      }
      break;
    case DetectionPattern::user:
      break;
  }
}

void HeadDetector::on_block(const AttentionBlock& block) {
  if (!active_) return;
  const MapInfo& info = *block.info;
  const int n = info.n_key;
  for (int r = 0; r < block.row_end - block.row_begin; ++r) {
    const int i = block.row_begin + r;
    const float* a = block.probs.row(r).data();
    // Every weight outside [lo, hi) is 0 (the event's contract), so the sums run over the range.
    const auto [lo, hi] = info.mask->key_range(i, n);
    const auto weight = [&](int j) { return j >= lo && j < hi ? static_cast<double>(a[j]) : 0.0; };
    // Σ A over the row's keys but the excluded ones, summed around them (not subtracted after: a
    // head with all its weight on an excluded key must leave 0, not a rounding error).
    const auto sum = [&](int b, int e) {
      return e > b ? static_cast<double>(Eigen::Map<const Eigen::VectorXf>(a + b, e - b).sum())
                   : 0.0;
    };
    const int from = options_.exclude_bos ? std::max(lo, 1) : lo;
    attention_sum_ += options_.exclude_current && i >= from && i < hi
                          ? sum(from, i) + sum(i + 1, hi)
                          : sum(from, hi);
    for (size_t p = 0; p < options_.patterns.size(); ++p) {
      const PatternSpec& spec = options_.patterns[p];
      const auto add = [&](int j) {
        if (excluded(i, j)) return;
        const double w = weight(j);
        on_pattern_[p] += w;
        abs_correction_[p] +=
            std::fabs(w - 1.0) - w;  // |A − 1| in place of the A counted in the sum
      };
      if (spec.kind == DetectionPattern::user) {
        const uint8_t* cells = spec.matrix->row(i).data();
        for (int j = 0; j < n; ++j) {
          if (cells[j] != 0) add(j);
        }
      } else {
        pattern_keys(spec.kind, i, keys_);
        for (const int j : keys_) add(j);
      }
    }
  }
}

void HeadDetector::end_map(const MapInfo& info) {
  if (!active_) return;
  active_ = false;
  HeadScores h;
  h.id = info.id;
  h.n = info.n_query;
  h.attention_left = attention_sum_ / static_cast<double>(info.n_query);
  for (size_t p = 0; p < options_.patterns.size(); ++p) {
    if (options_.measure == ErrorMeasure::mul) {
      // 0 / 0 (a head whose every weight is excluded or masked) is NaN, as in TransformerLens.
      h.scores.push_back(on_pattern_[p] / attention_sum_);
    } else {
      h.scores.push_back(1.0 -
                         (attention_sum_ + abs_correction_[p]) / static_cast<double>(info.n_query));
    }
  }
  heads_.push_back(std::move(h));
}

void ScoreAggregate::add(const std::vector<HeadScores>& item) {
  if (items_ == 0) {
    for (const auto& h : item) {
      const size_t p = h.scores.size();
      const double nan = std::numeric_limits<double>::quiet_NaN();
      heads_.push_back(Running{h, std::vector<double>(p, 0.0), std::vector<double>(p, 0.0),
                               std::vector<double>(p, nan), std::vector<double>(p, nan),
                               std::vector<int64_t>(p, 0), 0.0});
    }
  }
  if (item.size() != heads_.size()) {
    throw Error(fmt::format("batch: input {} scored {} heads, the first input {}", items_,
                            item.size(), heads_.size()));
  }
  ++items_;
  for (size_t k = 0; k < item.size(); ++k) {
    Running& r = heads_[k];
    const HeadScores& h = item[k];
    if (h.id.map_name() != r.head.id.map_name() || h.id.head != r.head.id.head ||
        h.scores.size() != r.mean.size()) {
      throw Error(fmt::format("batch: input {} scored {} where the first input scored {}",
                              items_ - 1, h.id.title(), r.head.id.title()));
    }
    r.attention_left += (h.attention_left - r.attention_left) / static_cast<double>(items_);
    for (size_t p = 0; p < h.scores.size(); ++p) {
      const double x = h.scores[p];
      if (skip_undefined_ && std::isnan(x)) continue;
      const auto n = static_cast<double>(++r.count[p]);
      const double delta = x - r.mean[p];
      r.mean[p] += delta / n;
      r.m2[p] += delta * (x - r.mean[p]);
      if (n == 1) {
        r.min[p] = r.max[p] = x;
        continue;
      }
      if (!(x >= r.min[p])) r.min[p] = std::isnan(r.min[p]) ? r.min[p] : x;  // a NaN stays
      if (!(x <= r.max[p])) r.max[p] = std::isnan(r.max[p]) ? r.max[p] : x;
    }
  }
}

std::vector<HeadScores> ScoreAggregate::summary() const {
  std::vector<HeadScores> out;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (const auto& r : heads_) {
    HeadScores h = r.head;
    h.items = items_;
    h.scores = r.mean;
    h.attention_left = r.attention_left;
    h.stddev.clear();
    for (size_t p = 0; p < r.m2.size(); ++p) {
      h.stddev.push_back(r.count[p] > 0 ? std::sqrt(r.m2[p] / static_cast<double>(r.count[p]))
                                        : nan);
      if (r.count[p] == 0) h.scores[p] = nan;  // no input had this figure
    }
    h.min = r.min;
    h.max = r.max;
    h.counts = skip_undefined_ ? r.count : std::vector<int64_t>{};
    out.push_back(std::move(h));
  }
  return out;
}

}  // namespace attnviz
