// Names and titles of attention maps: the --save tensor prefixes and the figure titles.
#include <fmt/format.h>

#include "attnviz/event/attention_block.hpp"

namespace attnviz {

const char* site_name(Site site) {
  return site == Site::self ? "self" : "cross";
}

std::string HeadId::map_name() const {
  std::string name = fmt::format("layer{}.{}", layer, site_name(site));
  return stack.empty() ? name : stack + "." + name;
}

std::string HeadId::title() const {
  std::string t = fmt::format("layer {} · {} · head {}", layer, site_name(site), head);
  if (kv_head >= 0) t += fmt::format(" · kv {}", kv_head);
  return stack.empty() ? t : stack + " · " + t;
}

}  // namespace attnviz
