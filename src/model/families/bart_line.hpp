// What the encoder-decoders of BART's line share in their Hugging Face files (modeling_bart.py,
// copied into Marian's, mBART's and M2M100's): model.shared tied to both stacks' embed_tokens and
// to lm_head, final_logits_bias, each layer's q/k/v/out_proj with biases, self_attn_layer_norm,
// encoder_attn (decoders), fc1 → act → fc2 and final_layer_norm, every one required; and the
// config keys their config classes name per stack.
#pragma once

#include "attnviz/model/layout.hpp"

namespace attnviz::detail {

// The roles above (the stacks' own embedding parts and final norms are each record's) and the
// config aliases; `name` and `model_type` as given.
Layout bart_line_layout(const std::string& name, const std::string& model_type);

}  // namespace attnviz::detail
