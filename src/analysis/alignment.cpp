// Word alignments from a cross-attention map, Pharaoh lines, and Och & Ney's AER.
#include "attnviz/analysis/alignment.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <limits>

#include "attnviz/core/error.hpp"

namespace attnviz {

Alignment align_words(const Matrix& weights, const std::vector<int>& target_words,
                      const std::vector<int>& source_words, const AlignRule& rule) {
  Alignment links;
  for (Eigen::Index t = 0; t < weights.rows(); ++t) {
    const int tw = target_words.at(static_cast<size_t>(t));
    if (tw < 0) continue;
    Eigen::Index best = -1;
    for (Eigen::Index s = 0; s < weights.cols(); ++s) {
      const int sw = source_words.at(static_cast<size_t>(s));
      if (sw < 0) continue;
      const float w = weights(t, s);
      if (rule.kind == AlignRule::Kind::threshold) {
        if (w >= rule.threshold) links.push_back({sw, tw});
      } else if (best < 0 || w > weights(t, best)) {  // ties keep the lower index
        best = s;
      }
    }
    if (best >= 0) links.push_back({source_words[static_cast<size_t>(best)], tw});
  }
  std::sort(links.begin(), links.end());
  links.erase(std::unique(links.begin(), links.end()), links.end());
  return links;
}

std::string pharaoh(const Alignment& a) {
  std::string out;
  for (const AlignLink& l : a)
    out += fmt::format("{}{}-{}", out.empty() ? "" : " ", l.source, l.target);
  return out;
}

namespace {

int index_of(std::string_view text, int limit, std::string_view pair, const char* side,
             const std::string& where) {
  int v = -1;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < 0) {
    throw Error(
        fmt::format("{}: '{}': expected i-j (sure) or i?j (possible) with word indices "
                    "from 0",
                    where, pair));
  }
  if (v >= limit) {
    throw Error(fmt::format("{}: '{}': the {} has {} words (indices 0 to {})", where, pair, side,
                            limit, limit - 1));
  }
  return v;
}

}  // namespace

GoldAlignment parse_gold_line(std::string_view line, int n_source, int n_target,
                              const std::string& where) {
  GoldAlignment g;
  size_t at = 0;
  while (at < line.size()) {
    while (at < line.size() && (line[at] == ' ' || line[at] == '\t' || line[at] == '\r')) ++at;
    if (at >= line.size()) break;
    size_t end = at;
    while (end < line.size() && line[end] != ' ' && line[end] != '\t' && line[end] != '\r') ++end;
    const std::string_view pair = line.substr(at, end - at);
    const size_t sep = pair.find_first_of("-?");
    if (sep == std::string_view::npos) {
      throw Error(
          fmt::format("{}: '{}': expected i-j (sure) or i?j (possible) with word indices "
                      "from 0",
                      where, pair));
    }
    const AlignLink link{index_of(pair.substr(0, sep), n_source, pair, "source", where),
                         index_of(pair.substr(sep + 1), n_target, pair, "target", where)};
    if (pair[sep] == '-') g.sure.push_back(link);
    g.possible.push_back(link);
    at = end;
  }
  for (Alignment* a : {&g.sure, &g.possible}) {
    std::sort(a->begin(), a->end());
    a->erase(std::unique(a->begin(), a->end()), a->end());
  }
  return g;
}

void AerCounts::add(const Alignment& links, const GoldAlignment& gold) {
  const auto in = [](const Alignment& set, const AlignLink& l) {
    return std::binary_search(set.begin(), set.end(), l);
  };
  this->a += static_cast<int64_t>(links.size());
  s += static_cast<int64_t>(gold.sure.size());
  for (const AlignLink& l : links) {
    a_and_s += in(gold.sure, l);
    a_and_p += in(gold.possible, l);
  }
}

double AerCounts::aer() const {
  if (a + s == 0) return std::numeric_limits<double>::quiet_NaN();
  return 1.0 - static_cast<double>(a_and_s + a_and_p) / static_cast<double>(a + s);
}

}  // namespace attnviz
