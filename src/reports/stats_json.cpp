// `stats --format json|csv`: every figure of every head, layer and the whole model (schema:
// docs/research-views.md).
#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "attnviz/io/json_write.hpp"
#include "attnviz/render/table.hpp"
#include "attnviz/reports/stats_report.hpp"

namespace attnviz::detail {

namespace {

using Json = nlohmann::ordered_json;

// The double whose shortest decimal form is the float's (0.25f → 0.25, 0.1f → 0.1, not
// 0.100000001).
double shortest_double(float v) {
  char buffer[32] = {};
  std::to_chars(buffer, buffer + sizeof buffer - 1, v);
  return std::strtod(buffer, nullptr);
}

// NaN / ±Inf have no JSON number: "nan" / "inf" / "-inf" (null is a figure with no value), the
// same text in CSV.
Json number(double x) {
  return std::isfinite(x) ? Json(x) : Json(non_finite_text(x));
}

Json summary_json(const Summary& s) {
  Json j;
  j["mean"] = s.count ? number(s.mean()) : Json(nullptr);  // no rows: no value, not a NaN
  j["min"] = s.count ? number(s.min) : Json(nullptr);
  j["max"] = s.count ? number(s.max) : Json(nullptr);
  return j;
}

Json figures_json(const RowSummary& r) {
  Json j;
  j["choice_rows"] =
      r.choice_rows;  // rows with >= 2 allowed keys: the denominator of saturated_share
  j["saturated_rows"] = r.saturated_rows;
  j["saturated_share"] = number(r.saturated_share());
  j["max_weight"] = summary_json(r.max_weight);
  j["entropy"] = summary_json(r.entropy);
  j["entropy_normalized"] = summary_json(r.entropy_normalized);
  j["effective_keys"] = summary_json(r.effective_keys);
  j["top_gap"] = summary_json(r.top_gap);
  j["jacobian_norm"] = summary_json(r.jacobian_norm);
  j["first_key"] = summary_json(r.first_key);
  j["previous"] = summary_json(r.previous);
  j["diagonal"] = summary_json(r.diagonal);
  j["max_weight_histogram"] = r.max_weight_histogram;
  return j;
}

Json logits_json(const HeadStats& h) {
  Json j;
  // A mean of no value (an additive map's q·k, which it has none of) is NaN, as its variance.
  const double none = std::nan("");
  j["raw_mean"] = number(h.raw_logits.count > 0 ? h.raw_logits.mean : none);
  j["raw_variance"] = number(h.raw_logits.variance());
  j["predicted_raw_variance"] = number(h.predicted_raw_variance.mean());
  j["scaled_mean"] = number(h.scaled_logits.count > 0 ? h.scaled_logits.mean : none);
  j["scaled_variance"] = number(h.scaled_logits.variance());
  j["predicted_scaled_variance"] = number(h.predicted_scaled_variance.mean());
  j["q_variance"] = number(h.q_variance.mean());
  j["k_variance"] = number(h.k_variance.mean());
  return j;
}

// scope "head": one map; "layer": the heads of one (stack, layer, site); "all": every head.
Json entry_json(const HeadStats& h, const char* scope) {
  const bool head = std::string_view(scope) == "head";
  const bool all = std::string_view(scope) == "all";
  Json j;
  j["scope"] = scope;
  j["stack"] = all ? Json(nullptr) : Json(h.id.stack);
  j["layer"] = all ? Json(nullptr) : Json(h.id.layer);
  j["site"] = all ? Json(nullptr) : Json(site_name(h.id.site));
  j["head"] = head ? Json(h.id.head) : Json(nullptr);
  j["heads"] = h.heads;
  j["role"] = head ? Json(role_name(h.role())) : Json(nullptr);
  j["n_query"] = head ? Json(h.n_query) : Json(nullptr);
  j["n_key"] = head ? Json(h.n_key) : Json(nullptr);
  j["d_k"] = head ? Json(h.d_k) : Json(nullptr);
  // Bahdanau's additive scores have no scale of q·k.
  j["score"] = head ? Json(h.additive ? "additive" : "dot product") : Json(nullptr);
  j["scale"] =
      head && !h.additive ? number(shortest_double(static_cast<float>(h.scale))) : Json(nullptr);
  j["mask"] = head ? Json(h.mask) : Json(nullptr);
  j["rows"] = h.scaled.rows;
  j["fully_masked_rows"] = h.fully_masked_rows;
  j["single_key_rows"] = h.single_key_rows;
  j["non_finite_rows"] = h.non_finite_rows;
  j["extra_saturated_rows"] = h.unscaled.saturated_rows - h.scaled.saturated_rows;
  j["scaled"] = figures_json(h.scaled);
  j["unscaled"] = figures_json(h.unscaled);
  j["logits"] = logits_json(h);
  // gpt-oss's learned sink: the mean share of a row no key gets (null for heads without one).
  j["sink_logit_weight"] =
      h.sink_logit_weight.count > 0 ? summary_json(h.sink_logit_weight) : Json(nullptr);
  return j;
}

// Leaves of a JSON object as "a.b.c" → text; arrays (the histograms) are left out of CSV.
void flatten(const Json& j, const std::string& prefix,
             std::vector<std::pair<std::string, std::string>>& out) {
  for (const auto& [key, value] : j.items()) {
    const std::string name = prefix.empty() ? key : prefix + "." + key;
    if (value.is_object()) {
      flatten(value, name, out);
    } else if (value.is_null()) {
      out.emplace_back(name, "");
    } else if (value.is_string()) {
      out.emplace_back(name, value.get<std::string>());
    } else if (!value.is_array()) {
      out.emplace_back(name, value.dump());
    }
  }
}

}  // namespace

std::string stats_json(const std::vector<HeadStats>& shown, const std::vector<HeadStats>& layers,
                       const HeadStats& all, const StatsOptions& stats,
                       const StatsReportOptions& report) {
  Json doc;
  doc["model"] = report.model_name;
  doc["saturation"] = stats.saturation;
  doc["temperature"] = stats.temperature;
  doc["role_thresholds"] = {{"mass", k_role_mass}, {"broad_entropy", k_role_broad_entropy}};
  doc["histogram_bins"] = k_histogram_bins;
  doc["heads"] = Json::array();
  for (const auto& h : shown) doc["heads"].push_back(entry_json(h, "head"));
  doc["layers"] = Json::array();
  for (const auto& l : layers) doc["layers"].push_back(entry_json(l, "layer"));
  doc["all"] = entry_json(all, "all");
  return json_text(doc, 2) + '\n';
}

// One line per head, then per layer, then "all"; columns are the JSON leaf paths
// ("scaled.entropy.mean").
std::string stats_csv(const std::vector<HeadStats>& shown, const std::vector<HeadStats>& layers,
                      const HeadStats& all, const StatsOptions& /*stats*/) {
  std::vector<Json> entries;
  for (const auto& h : shown) entries.push_back(entry_json(h, "head"));
  for (const auto& l : layers) entries.push_back(entry_json(l, "layer"));
  entries.push_back(entry_json(all, "all"));
  std::string out;
  for (size_t e = 0; e < entries.size(); ++e) {
    std::vector<std::pair<std::string, std::string>> cells;
    flatten(entries[e], "", cells);
    if (e == 0) {
      for (size_t c = 0; c < cells.size(); ++c) out += (c ? "," : "") + csv_field(cells[c].first);
      out += '\n';
    }
    for (size_t c = 0; c < cells.size(); ++c) out += (c ? "," : "") + csv_field(cells[c].second);
    out += '\n';
  }
  return out;
}

}  // namespace attnviz::detail
