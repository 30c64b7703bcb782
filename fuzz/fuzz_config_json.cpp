// Fuzzes config.json: read beside a small valid model.safetensors by ConfigSources, then asked for
// the hyperparameters load_model asks for (integers, numbers, booleans, text, model_type) and the
// attention settings (rope scaling, sliding layers under each family rule, soft-caps, refused
// fields).
#include <cstddef>
#include <cstdint>

#include "attnviz/core/error.hpp"
#include "attnviz/model/layout.hpp"
#include "attnviz/model/tensor_source.hpp"
#include "fuzz_input.hpp"
#include "model/attention_config.hpp"
#include "model/config_sources.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace fs = std::filesystem;
  static const fs::path dir =
      attnviz::fuzz::folder_with_weights("model", "model.safetensors", {{"n_head", "2"}});
  attnviz::fuzz::write_input("model/config.json", data, size);
  try {
    const auto source = attnviz::TensorSource::open(dir);
    const attnviz::detail::ConfigSources config(source, attnviz::ConfigOverrides{});
    (void)config.model_type();
    (void)config.integer({"n_head", "num_attention_heads"});
    (void)config.number({"layer_norm_eps", "layer_norm_epsilon"}, 0.0, 1.0);
    (void)config.boolean({"causal"});
    (void)config.text({"activation_function", "hidden_act"});
  } catch (const attnviz::Error&) {
  }
  try {
    const auto source = attnviz::TensorSource::open(dir);
    const attnviz::detail::ConfigSources config(source, attnviz::ConfigOverrides{});
    attnviz::Config c;
    (void)attnviz::detail::read_rope_scaling(config);
    attnviz::detail::derive_attention_extras(c, config);
    for (const char* family : {"mistral", "qwen2", "gemma2", "gemma3"}) {
      attnviz::detail::derive_sliding_layers(c, attnviz::layout_by_name(family), config, 5);
      attnviz::detail::refuse_unsupported_fields(config, attnviz::layout_by_name(family));
    }
  } catch (const attnviz::Error&) {
  }
  return 0;
}
