// Gemma 3 (Gemma3ForCausalLM, model_type gemma3_text): Gemma 2's block with q/k norms, five sliding
// layers to one global, a local rotary base, and no attention soft-cap.
#include "attnviz/model/layout_roles.hpp"
#include "family_records.hpp"

namespace attnviz::detail {

Family gemma3_record() {
  Family f{.title = "Gemma 1, Gemma 2, Gemma 3",
           .layout = gemma_layout("gemma3", "gemma3_text", SlidingLayers::pattern)};
  f.layout.config_defaults.insert(f.layout.config_defaults.end(),
                                  {{"rope_theta", 1000000.0}, {"rope_local_base_freq", 10000.0}});
  roles::require(f.layout.roles, {"decoder.self.q_norm.weight", "decoder.self.k_norm.weight"});
  // llama.cpp: set_swa_pattern(6), rope_freq_base_train_swa 10000, no attention soft-cap; the 27B
  // model (62 layers) scales by n_embd / n_head.
  f.gguf = {.arch = "gemma3",
            .qk_norm = true,
            .layer_names = gemma_gguf_names(),
            .keys = {"rope.freq_base_swa", "attention.sliding_window", "final_logit_softcapping"},
            .constants = {{"sliding_window", nullptr},
                          {"sliding_window_pattern", 6, true},
                          {"rope_local_base_freq", 10000.0},
                          {"attn_logit_softcapping", nullptr, true},
                          {"final_logit_softcapping", nullptr}},
            .wide_scale_layers = 62};
  return f;
}

}  // namespace attnviz::detail
