// Gemma 3 (Gemma3ForCausalLM, model_type gemma3_text, and the text model of Gemma3ForConditional-
// Generation's gemma3 folders): Gemma 2's block with q/k norms, five sliding layers to one global,
// a local rotary base, and no attention soft-cap.
#include "attnviz/model/layout_roles.hpp"
#include "family_records.hpp"

namespace attnviz::detail {

Family gemma3_record() {
  Family f{.title = "Gemma 1, Gemma 2, Gemma 3",
           .layout = gemma_layout("gemma3", "gemma3_text", SlidingLayers::pattern)};
  // Gemma3TextConfig's defaults; its shape's (gemma-3-1b's) only for a multimodal folder's sparse
  // text_config (a gemma3_text config.json or GGUF file gives every dimension).
  f.layout.config_defaults.insert(f.layout.config_defaults.end(),
                                  {{"rope_theta", 1000000.0},
                                   {"rope_local_base_freq", 10000.0},
                                   {"text_config.vocab_size", 262208},
                                   {"text_config.hidden_size", 2304},
                                   {"text_config.intermediate_size", 9216},
                                   {"text_config.num_hidden_layers", 26},
                                   {"text_config.num_attention_heads", 8},
                                   {"text_config.num_key_value_heads", 4},
                                   {"text_config.head_dim", 256},
                                   {"text_config.rms_norm_eps", 1e-6},
                                   {"text_config.max_position_embeddings", 131072},
                                   {"text_config.sliding_window_pattern", 6}});
  // Gemma3ForConditionalGeneration's folders (model_type gemma3: gemma-3-4b/12b/27b): the text
  // model's keys under text_config, its tensors under language_model.model.* (the first releases)
  // or model.language_model.* (transformers ≥ 4.52); the SigLIP tower and the projector not run.
  f.layout.nested_in = {
      {.model_type = "gemma3",
       .section = "text_config",
       .namings = {{.prefix = "language_model."},
                   {.prefix = "", .lead_from = "model.", .lead_to = "model.language_model."}}}};
  f.layout.unrun.push_back(
      {"(model\\.)?vision_tower\\..*", "the vision tower (SigLIP; the image is not an input yet)"});
  f.layout.unrun.push_back({"(model\\.)?multi_modal_projector\\..*", "the image projector"});
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
