// Which family a checkpoint is: the layout flags, config.json's model_type (a whole-model folder's
// part too), or the tensor names.
#include "choose_layout.hpp"

#include <fmt/format.h>

#include "attnviz/core/error.hpp"
#include "attnviz/core/unicode.hpp"
#include "attnviz/model/family.hpp"
#include "binder.hpp"

namespace attnviz::detail {

namespace {

// Where a layout's detection tensor sits under one of its prefixes, if it does.
std::optional<std::string> matching_prefix(const TensorSource& src, const Layout& layout) {
  for (const auto& prefix : layout.prefixes) {
    const std::string name = prefix + detail::with_layer(layout.detect, 0);
    if (!src.has(name)) continue;
    const auto& s = src.info(name).shape;
    // s[0] == 3 * s[1], by division: 3 * s[1] overflows int64 for a shape like [0, 2^62].
    const bool rows3 = s.size() == 2 && s[0] % 3 == 0 && s[0] / 3 == s[1];
    const bool cols3 = s.size() == 2 && s[1] % 3 == 0 && s[1] / 3 == s[0];
    if (layout.detect_fused == FusedShape::rows && !rows3) continue;
    if (layout.detect_fused == FusedShape::cols && !cols3) continue;
    return prefix;
  }
  return std::nullopt;
}

// The whole-model folder kind `model_type` that holds `layout`'s family as a part, if it is one.
const NestedConfig* nested_config(const Layout& layout, const std::string& model_type) {
  for (const auto& n : layout.nested_in) {
    if (!model_type.empty() && n.model_type == model_type) return &n;
  }
  return nullptr;
}

// The layout with its tensor names as a whole-model folder holds them (NestedNaming).
Layout with_naming(const Layout& layout, const NestedNaming& n) {
  Layout l = layout;
  l.prefixes = {n.prefix};
  if (n.lead_from.empty()) return l;
  const auto rename = [&](std::string& pattern) {
    if (pattern.starts_with(n.lead_from)) pattern = n.lead_to + pattern.substr(n.lead_from.size());
  };
  rename(l.detect);
  for (auto& r : l.roles) rename(r.pattern);
  for (auto& b : l.buffers) rename(b);
  return l;
}

}  // namespace

std::pair<Layout, std::string> choose_layout(const TensorSource& src, const ConfigSources& cfg,
                                             const ConfigOverrides& o) {
  if (!o.layout_file.empty() || !o.layout.empty()) {
    Layout layout =
        o.layout_file.empty() ? layout_by_name(o.layout) : read_layout_file(o.layout_file);
    return {layout, matching_prefix(src, layout).value_or(layout.prefixes.front())};
  }
  const std::string model_type = cfg.model_type();
  std::string known_types;
  bool known = false;
  std::string shared;  // the families whose names fit, when only model_type may choose them
  for (const auto& layout : builtin_layouts()) {
    if (!layout.model_type.empty())
      known_types += (known_types.empty() ? "" : ", ") + layout.model_type;
    for (const auto& n : layout.nested_in) known_types += ", " + n.model_type;
    const bool part = nested_config(layout, model_type) != nullptr;
    known |= layout.model_type == model_type || part;
    if (!model_type.empty() && layout.model_type != model_type && !part) continue;
    if (part && !nested_config(layout, model_type)->namings.empty()) {
      std::string tried;
      for (const auto& naming : nested_config(layout, model_type)->namings) {
        Layout named = with_naming(layout, naming);
        if (const auto prefix = matching_prefix(src, named)) return {named, *prefix};
        tried +=
            (tried.empty() ? "" : " or ") + naming.prefix + detail::with_layer(named.detect, 0);
      }
      const auto all = src.names();
      throw Error(fmt::format(
          "{}: config.json's model_type '{}' holds a {} model whose tensors are named {}, which "
          "this file does not have (it has {}{})",
          src.description(), printable_text(model_type), layout.model_type, tried,
          all.empty() ? "no tensor" : printable_text(all.front()), all.size() > 1 ? ", …" : ""));
    }
    const auto prefix = matching_prefix(src, layout);
    if (prefix && model_type.empty() && layout.needs_model_type) {
      shared += (shared.empty() ? "" : ", ") + layout.model_type;
      continue;
    }
    if (prefix) return {layout, *prefix};
  }
  if (!shared.empty()) {
    throw Error(fmt::format(
        "{}: these tensor names are those of several families ({}), and no config.json says "
        "which (its model_type): give the folder's config.json, or --layout",
        src.description(), shared));
  }
  if (!model_type.empty() && !known) {
    throw Error(
        fmt::format("{}: config.json's model_type '{}' is not a family attnviz knows ({}); name a "
                    "layout with --layout or map the names with --layout-file",
                    src.description(), printable_text(model_type), known_types));
  }
  std::string names;
  const auto all = src.names();
  // Names are the file's bytes: escaped, so ESC or OSC 52 in a name cannot drive the terminal.
  for (size_t i = 0; i < all.size() && i < 6; ++i)
    names += (i ? ", " : "") + printable_text(all[i]);
  throw Error(
      fmt::format("{}: no known layout fits these tensor names ({}{}); name one with --layout "
                  "or map the names with --layout-file",
                  src.description(), names, all.size() > 6 ? ", …" : ""));
}

void read_nested_part(ConfigSources& cfg, const Layout& layout) {
  if (const NestedConfig* n = nested_config(layout, cfg.model_type())) {
    // The part's config class defaults: the layout's "section.key" ones, and its own.
    std::vector<std::string> class_keys = layout.activation_keys;
    std::vector<std::pair<std::string, double>> part_defaults;
    const std::string nested = n->section + ".";
    for (const auto& [key, value] : layout.config_defaults) {
      const bool part = key.starts_with(nested);
      class_keys.push_back(part ? key.substr(nested.size()) : key);
      if (part) part_defaults.emplace_back(key.substr(nested.size()), value);
    }
    cfg.descend(*n, layout.model_type, class_keys, part_defaults);
  }
}

}  // namespace attnviz::detail
