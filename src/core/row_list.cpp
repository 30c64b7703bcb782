// Row lists for messages.
#include "attnviz/core/row_list.hpp"

#include <fmt/format.h>

namespace attnviz {

std::string format_row_list(const std::vector<int>& rows) {
  std::string out;
  for (size_t i = 0; i < rows.size();) {
    size_t j = i;
    while (j + 1 < rows.size() && rows[j + 1] == rows[j] + 1) ++j;
    if (!out.empty()) out += ", ";
    out += j == i ? fmt::format("{}", rows[i]) : fmt::format("{}-{}", rows[i], rows[j]);
    i = j + 1;
  }
  return out;
}

}  // namespace attnviz
