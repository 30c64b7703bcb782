// A GGUF file's hyperparameters as config.json would give them (private to src/model/): the
// `<arch>.*` keys under transformers' names, and the constants llama.cpp uses where the file is
// silent.
#pragma once

#include "attnviz/model/config.hpp"
#include "attnviz/model/gguf_tensors.hpp"
#include "attnviz/model/tensor_source.hpp"
#include "config_sources.hpp"

namespace attnviz::detail {

// The metadata as a config source. A key of the architecture attnviz does not read is refused by
// name (it may change the math); so are rope scaling types other than linear, and experts.
ConfigSource gguf_config_source(const GgufTensors& tensors);

// After the shapes are known: Llama 3's rope_freqs tensor becomes the rotary scaling, and the
// widths the metadata declares (embedding_length, block_count, feed_forward_length, value_length,
// vocab_size) must be the tensors'.
void apply_gguf_facts(Config& c, const GgufTensors& tensors, const ConfigSources& cfg);

}  // namespace attnviz::detail
