// Qwen2 (Qwen2ForCausalLM, Qwen2.5's settings for init): Llama's block with q/k/v biases, windows
// from max_window_layers on when use_sliding_window; and what Qwen3 keeps of it.
#include "attnviz/model/layout_roles.hpp"
#include "family_records.hpp"

namespace attnviz::detail {

Family qwen_record(const std::string& name) {
  Family f{.title = "Qwen2 / 2.5, Qwen3", .layout = llama_layout(name, name)};
  f.layout.sliding = SlidingLayers::from_max_window;
  f.gguf = {.arch = name,
            .constants = {{"use_sliding_window", false, true}}};  // llama.cpp has no window for it
  f.init = FamilyInit{.hf_class = {},
                      .config = {{"rope_theta", 1000000.0},
                                 {"rms_norm_eps", 1e-6},
                                 {"tie_word_embeddings", true},
                                 {"use_sliding_window", false},
                                 {"sliding_window", nullptr},
                                 {"max_window_layers", nullptr, InitConfigKey::From::layers}},
                      .special_tokens = {"<|endoftext|>", "<|im_start|>", "<|im_end|>"},
                      .eos = "<|endoftext|>"};
  return f;
}

Family qwen2_record() {
  Family f = qwen_record("qwen2");
  // Qwen2Attention's q/k/v_proj always have a bias.
  roles::require(f.layout.roles,
                 {"decoder.self.q.bias", "decoder.self.k.bias", "decoder.self.v.bias"});
  f.init->hf_class = "Qwen2ForCausalLM";
  f.init->qkv_bias = true;
  return f;
}

}  // namespace attnviz::detail
