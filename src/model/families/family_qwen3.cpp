// Qwen3 (Qwen3ForCausalLM): Qwen2's block with per-head q/k RMSNorms and no q/k/v biases (they
// follow attention_bias).
#include "attnviz/model/layout_roles.hpp"
#include "family_records.hpp"

namespace attnviz::detail {

Family qwen3_record() {
  Family f = qwen_record("qwen3");
  // Qwen3Attention always has q_norm and k_norm, and llama.cpp's graph reads them.
  roles::require(f.layout.roles, {"decoder.self.q_norm.weight", "decoder.self.k_norm.weight"});
  f.gguf.qk_norm = true;
  f.init->hf_class = "Qwen3ForCausalLM";
  f.init->qk_norm = true;
  return f;
}

}  // namespace attnviz::detail
