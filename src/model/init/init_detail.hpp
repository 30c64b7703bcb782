// init's two writers of the Llama line's records (the records without a writer of their own).
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>

#include "attnviz/model/init.hpp"
#include "attnviz/model/init_writer.hpp"

namespace attnviz::detail {

// Their *ForCausalLM tensors into w; returns config.json as the family's config class writes it.
nlohmann::ordered_json write_llama_family(InitWriter& w, const InitOptions& o, int d, int heads,
                                          int d_ff, int layers);

// w's family checkpoint (config: its config.json) written to `file` as GGUF of type o.gguf_type.
void write_family_gguf(const std::filesystem::path& file, InitWriter& w,
                       const nlohmann::ordered_json& config, const InitOptions& o);

}  // namespace attnviz::detail
