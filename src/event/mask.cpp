// Human-readable description of a mask, for titles, warnings and saved metadata.
#include "attnviz/event/mask.hpp"

#include <fmt/format.h>

namespace attnviz {

std::string Mask::describe() const {
  std::string out;
  auto add = [&out](const std::string& part) { out += (out.empty() ? "" : "+") + part; };
  if (causal) add("causal");
  if (n_pad_keys > 0) add(fmt::format("padding({})", n_pad_keys));
  if (window > 0) add(fmt::format("window({})", window));
  if (matrix) add("file");
  return out.empty() ? "none" : out;
}

}  // namespace attnviz
