// Parsing and checking --panel's head names.
#include "attnviz/event/panel.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <regex>

#include "attnviz/core/error.hpp"

namespace attnviz {

std::vector<HeadId> parse_panel(const std::string& spec) {
  static const std::regex item(
      R"(^(?:([A-Za-z_][A-Za-z0-9_]*)\.)?L(\d{1,6})H(\d{1,6})(?:\.(self|cross))?$)");
  std::vector<HeadId> heads;
  size_t start = 0;
  while (start <= spec.size()) {
    const size_t end = std::min(spec.find(',', start), spec.size());
    const std::string text = spec.substr(start, end - start);
    std::smatch m;
    if (!std::regex_match(text, m, item)) {
      throw usage_error(fmt::format(
          "--panel '{}': '{}' is not a head (write L<layer>H<head>, e.g. L3H5, with an optional "
          "stack before and site after: decoder.L1H0.cross)",
          spec, text));
    }
    HeadId id{m[1].str(), std::stoi(m[2].str()), m[4].str() == "cross" ? Site::cross : Site::self,
              std::stoi(m[3].str())};
    for (const auto& h : heads) {
      if (h.stack == id.stack && h.layer == id.layer && h.site == id.site && h.head == id.head) {
        throw usage_error(fmt::format("--panel '{}': {} is named twice", spec, text));
      }
    }
    heads.push_back(id);
    start = end + 1;
  }
  if (heads.size() > k_max_panel_heads) {
    throw usage_error(fmt::format("--panel '{}': {} heads; a panel shows at most {}", spec,
                                  heads.size(), k_max_panel_heads));
  }
  return heads;
}

std::string panel_name(const HeadId& id) {
  std::string s = fmt::format("L{}H{}", id.layer, id.head);
  if (!id.stack.empty()) s = id.stack + "." + s;
  if (id.site == Site::cross) s += ".cross";
  return s;
}

void check_panel(const std::vector<HeadId>& panel, const MapList& list) {
  for (const auto& id : panel) {
    const bool map_exists = std::any_of(list.maps.begin(), list.maps.end(), [&](const HeadId& m) {
      return m.stack == id.stack && m.layer == id.layer && m.site == id.site;
    });
    if (!map_exists) {
      std::string known;
      for (const auto& m : list.maps) known += (known.empty() ? "" : ", ") + m.map_name();
      throw usage_error(fmt::format(
          "--panel: {} names a map this model does not make on this input (its maps: {})",
          panel_name(id), known));
    }
    if (id.head >= list.n_heads) {
      throw usage_error(
          fmt::format("--panel: {} names head {}, but the maps have {} heads (0 to {})",
                      panel_name(id), id.head, list.n_heads, list.n_heads - 1));
    }
  }
}

}  // namespace attnviz
