// An encoder-decoder's own parts of loading: the layer counts and start token it declares, its
// logit bias (Marian's final_logits_bias), T5's relative position buckets and bias tables, and
// fairseq's positions counted from the padding id (M2M100) (private to model/).
#pragma once

#include "attnviz/model/config.hpp"
#include "attnviz/model/weights.hpp"
#include "binder.hpp"
#include "config_sources.hpp"

namespace attnviz::detail {

// T5's relative_attention_num_buckets and _max_distance, when the positions are relative.
void derive_relative_buckets(Config& c, const ConfigSources& cfg);
// Each stack's T5 bias table [buckets, heads] from its layer 0: present when the positions are
// relative, and only then.
void bind_relative_bias(const Config& c, Weights& w, const Binder& b);
// final_logits_bias, [N] or [1, N]; empty when the file has none.
RowVector bind_logit_bias(const Config& c, const Binder& b);
// The declared layer counts against the tensors', and decoder_start_token_id.
void check_encoder_decoder(Config& c, const ConfigSources& cfg);
// fairseq's positions: pad_token_id (an id of the vocabulary) and the offset after it.
void derive_fairseq_positions(Config& c, const ConfigSources& cfg);

}  // namespace attnviz::detail
