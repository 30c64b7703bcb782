// The registry of model families: every record, in detection order, and the lists read from it.
#include <fmt/format.h>

#include "attnviz/model/family.hpp"
#include "family_records.hpp"

namespace attnviz {

const std::vector<Family>& families() {
  // Most specific first among those chosen by tensor names alone: a torch Transformer also has
  // "layers.{i}.linear1" under encoder; the Llama line shares its names; the single attention
  // modules last.
  static const std::vector<Family> records{detail::torch_transformer_record(),
                                           detail::torch_decoder_record(),
                                           detail::torch_encoder_record(),
                                           detail::gpt2_record(),
                                           detail::nanogpt_record(),
                                           detail::bert_record(),
                                           detail::llama_record(),
                                           detail::mistral_record(),
                                           detail::qwen2_record(),
                                           detail::qwen3_record(),
                                           detail::gemma_record(),
                                           detail::gemma2_record(),
                                           detail::gemma3_record(),
                                           detail::phi3_record(),
                                           detail::gpt_neox_record(),
                                           detail::olmo2_record(),
                                           detail::mixtral_record(),
                                           detail::qwen3_moe_record(),
                                           detail::marian_record(),
                                           detail::bart_record(),
                                           detail::mbart_record(),
                                           detail::m2m100_record(),
                                           detail::t5_record(),
                                           detail::t5_gated_record(),
                                           detail::gru_bahdanau_record(),
                                           detail::vit_record(),
                                           detail::deit_record(),
                                           detail::dinov2_record(),
                                           detail::dinov2_registers_record(),
                                           detail::clip_vision_record(),
                                           detail::siglip_vision_record(),
                                           detail::sagan_record(),
                                           detail::torch_mha_record(),
                                           detail::annotated_transformer_record(),
                                           detail::fused_qkv_record(),
                                           detail::qkv_linears_record()};
  return records;
}

const Family* init_family(const std::string& name) {
  for (const auto& f : families()) {
    if (f.init && f.init_arch() == name) return &f;
  }
  return nullptr;
}

const Family* gguf_family(const std::string& arch) {
  for (const auto& f : families()) {
    if (!f.gguf.arch.empty() && f.gguf.arch == arch) return &f;
  }
  return nullptr;
}

std::vector<std::string> init_family_names() {
  std::vector<std::string> names;
  for (const auto& f : families()) {
    if (f.init) names.push_back(f.init_arch());
  }
  return names;
}

std::vector<std::string> gguf_family_archs() {
  std::vector<std::string> archs;
  for (const auto& f : families()) {
    if (!f.gguf.arch.empty() && gguf_family(f.gguf.arch) == &f) archs.push_back(f.gguf.arch);
  }
  return archs;
}

std::string or_list(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    out += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  }
  return out;
}

}  // namespace attnviz
