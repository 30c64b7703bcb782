// The findings of `attnviz check` as JSON.
#pragma once

#include <string>

#include "attnviz/analysis/check.hpp"

namespace attnviz {

// `check --format json`: {"findings": [{"stack", "layer", "site", "head", "test", "rows", "value",
// "threshold", "message"}…], "summary": {"maps", "maps_with_problems", "problems", "message"}}
// (src/reports/check_json.cpp). value/threshold: the worst leaked mass / |sum − 1| / non-finite
// cell count and the limit it exceeded; null for a fully masked row.
std::string check_json(const CheckCollector& check);

}  // namespace attnviz
