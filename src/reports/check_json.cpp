// `attnviz check --format json`: every finding with its layer, site, head and rows as fields, so a
// script never parses the message.
#include <nlohmann/json.hpp>

#include "attnviz/io/json_write.hpp"
#include "attnviz/reports/check_report.hpp"

namespace attnviz {

namespace {

// The limit each test holds a row to: any leaked weight, |sum − 1| ≤ 1e-5, no non-finite cell.
nlohmann::ordered_json threshold_of(Problem p) {
  switch (p) {
    case Problem::masked_leak:
    case Problem::non_finite:
      return 0.0;
    case Problem::bad_sum:
      return k_row_sum_tolerance;
    case Problem::fully_masked:
      break;
  }
  return nullptr;
}

nlohmann::ordered_json finding_json(const Finding& f) {
  nlohmann::ordered_json j;
  j["stack"] = f.id.stack;
  j["layer"] = f.id.layer;
  j["site"] = site_name(f.id.site);
  j["head"] = f.id.head;
  j["test"] = problem_name(f.problem);
  j["rows"] = f.rows;
  j["n_query"] = f.n_query;
  if (f.problem == Problem::fully_masked) {
    j["value"] = nullptr;
  } else {
    j["value"] = f.worst;
  }
  j["threshold"] = threshold_of(f.problem);
  j["message"] = f.message();
  return j;
}

}  // namespace

std::string check_json(const CheckCollector& check) {
  nlohmann::ordered_json doc;
  doc["findings"] = nlohmann::ordered_json::array();
  for (const Finding& f : check.findings()) doc["findings"].push_back(finding_json(f));
  doc["summary"] = {{"maps", check.maps_checked()},
                    {"maps_with_problems", check.maps_with_problems()},
                    {"problems", check.findings().size()},
                    {"message", check.summary()}};
  return json_text(doc, 2) + '\n';
}

}  // namespace attnviz
