// Phi-3 (Phi3ForCausalLM, Phi-3 mini's settings for init): Llama's block with q/k/v fused in
// qkv_proj ([q; k; v] rows) and gate/up in gate_up_proj, every layer in a sliding window.
#include "attnviz/model/layout_roles.hpp"
#include "family_records.hpp"

namespace attnviz::detail {

using namespace roles;

Family phi3_record() {
  Family f{.title = "Phi-3", .layout = llama_layout("phi3", "phi3")};
  Layout& l = f.layout;
  l.sliding = SlidingLayers::all;
  l.layer_norm_eps = 1e-5f;  // Phi3Config's rms_norm_eps
  const std::string p = "model.layers.{layer}.";
  add(l.roles, "decoder.self.qkv.weight", p + "self_attn.qkv_proj.weight");
  add(l.roles, "decoder.ffn.gate_up.weight", p + "mlp.gate_up_proj.weight");
  // q/k/v are qkv_proj or (in a GGUF file, as llama.cpp's phi3 reads them) attn_q/k/v, one of which
  // the binder requires; the FFN is always gate_up_proj (GGUF's ffn_up) and down_proj.
  require(l.roles,
          {"decoder.self.q.weight", "decoder.self.k.weight", "decoder.self.v.weight",
           "decoder.ffn.gate.weight", "decoder.ffn.up.weight"},
          false);
  require(l.roles, {"decoder.ffn.gate_up.weight"});
  // llama.cpp keeps qkv_proj fused (ATTN_QKV) and gate_up_proj as FFN_UP: [gate; up], as
  // ggml_swiglu splits it; its gate is the first half of ffn_up, never a tensor of its own.
  f.gguf = {.arch = "phi3",
            .layer_names = {{"attn_qkv", "self_attn.qkv_proj"}, {"ffn_up", "mlp.gate_up_proj"}},
            .unread = {"ffn_gate"},
            .keys = {"attention.sliding_window"},
            .written_keys = {{"rope.dimension_count", "head_dim"},
                             {"attention.sliding_window", "sliding_window"}}};
  f.init = FamilyInit{.hf_class = "Phi3ForCausalLM",
                      .config = {{"sliding_window", 2047}, {"max_position_embeddings", 4096}},
                      .fused_qkv = true,
                      .fused_gate_up = true,
                      .special_tokens = {"<unk>", "<s>", "<|endoftext|>"},
                      .bos = "<s>",
                      .eos = "<|endoftext|>"};
  return f;
}

}  // namespace attnviz::detail
