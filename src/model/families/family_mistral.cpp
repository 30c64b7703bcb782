// Mistral (MistralForCausalLM, Mistral 7B v0.1's settings for init): Llama's block, every layer in
// a sliding window.
#include "family_records.hpp"

namespace attnviz::detail {

Family mistral_record() {
  Family f{.title = "Mistral", .layout = llama_layout("mistral", "mistral")};
  f.layout.sliding = SlidingLayers::all;
  f.layout.config_defaults = {{"sliding_window", 4096}};  // MistralConfig
  // Converted by LlamaModel: architecture llama (llama.cpp applies no window to it), so its file
  // runs as Llama's.
  f.gguf = {.arch = "llama",
            .written_keys = {{"vocab_size", "vocab_size"}, {"rope.dimension_count", "head_dim"}}};
  f.init = FamilyInit{.hf_class = "MistralForCausalLM",
                      .config = {{"sliding_window", 4096}, {"max_position_embeddings", 32768}},
                      .special_tokens = {"<unk>", "<s>", "</s>"},
                      .bos = "<s>",
                      .eos = "</s>"};
  return f;
}

}  // namespace attnviz::detail
