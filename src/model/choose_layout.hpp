// Which family a checkpoint is, and a whole-model folder's config read as the part the family runs.
#pragma once

#include <string>
#include <utility>

#include "attnviz/model/config.hpp"
#include "attnviz/model/layout.hpp"
#include "attnviz/model/tensor_source.hpp"
#include "config_sources.hpp"

namespace attnviz::detail {

// --layout or --layout-file; else the family config.json's model_type names (or the whole-model
// folder kind that holds it as a part, with the part's tensor naming), else the one whose tensor
// names fit; with the prefix its names carry. An Error names what was tried.
std::pair<Layout, std::string> choose_layout(const TensorSource& src, const ConfigSources& cfg,
                                             const ConfigOverrides& o);

// When config.json is a whole-model folder's that holds `layout`'s family (NestedConfig), its
// part's section read as the config, with the part's class defaults (the "section.key" entries
// of Layout::config_defaults); otherwise nothing.
void read_nested_part(ConfigSources& cfg, const Layout& layout);

}  // namespace attnviz::detail
