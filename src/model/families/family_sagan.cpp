// Self-attention over a CNN's feature map (SAGAN, Zhang et al. 2019; the tutorials' "CNN with
// self-attention"), by the names of its common PyTorch module (Self_Attn: query_conv, key_conv,
// value_conv, gamma): 1 × 1 convolutions make each pixel's query, key and value, every pixel
// attends to every pixel with unscaled scores f(x_i)·g(x_j), and the block returns x + γ·o.
#include "attnviz/model/layout_roles.hpp"
#include "family_records.hpp"

namespace attnviz::detail {

Family sagan_record() {
  using namespace roles;
  Layout l{.name = "sagan",
           .arch = Arch::encoder,  // one layer: the attention and its γ-scaled residual, no norm
           .detect = "query_conv.weight",
           .every_tensor_bound = true};
  l.prefixes = {"attn.", ""};
  linear(l.roles, "encoder.self.q", "query_conv");
  linear(l.roles, "encoder.self.k", "key_conv");
  linear(l.roles, "encoder.self.v", "value_conv");
  add(l.roles, "encoder.self_gain", "gamma");
  for (auto& r : l.roles) r.required = true;
  l.unscaled_scores = true;  // SAGAN's energy is q·k, not divided by √d_k
  l.default_heads = 1;
  l.max_position_keys = {};
  return Family{.title = "SAGAN's self-attention over a CNN feature map (1 × 1 convolutions)",
                .layout = l};
}

}  // namespace attnviz::detail
