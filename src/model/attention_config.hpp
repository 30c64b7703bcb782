// The attention settings of config.json that change the maps: rotary scaling, sliding windows,
// soft-capping and the score scale, and the fields attnviz refuses by name.
#pragma once

#include "attnviz/model/config.hpp"
#include "attnviz/model/layout.hpp"
#include "config_sources.hpp"

namespace attnviz::detail {

// rope_scaling (transformers < 5) or rope_parameters.* (>= 5): none, linear or llama3; any other
// rope type, or a key of the scaling object attnviz does not read, is a usage error naming it.
RopeScaling read_rope_scaling(const ConfigSources& cfg);

// Which of the stack's n_layers attend within `sliding_window`: config.json's layer_types when
// given, else the family's rule (Layout::sliding) with max_window_layers / sliding_window_pattern.
void derive_sliding_layers(Config& c, const Layout& layout, const ConfigSources& cfg, int n_layers);

// attn_logit_softcapping, query_pre_attn_scalar (Gemma) and rope_local_base_freq (Gemma 3).
void derive_attention_extras(Config& c, const ConfigSources& cfg);

// The config keys the layout refuses (its record's refused_keys: Granite's multipliers, OLMo's
// clip_qkv, Llama 4's chunked attention, …): an Error naming the first one set.
void refuse_unsupported_fields(const ConfigSources& cfg, const Layout& layout);

}  // namespace attnviz::detail
