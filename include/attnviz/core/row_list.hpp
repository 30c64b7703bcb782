// Row lists for messages: "0-3, 7".
#pragma once

#include <string>
#include <vector>

namespace attnviz {

// Sorted row indices as ranges: {0, 1, 2, 3, 7} → "0-3, 7".
std::string format_row_list(const std::vector<int>& rows);

}  // namespace attnviz
