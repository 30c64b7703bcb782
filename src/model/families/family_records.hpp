// The family records' constructors and the pieces families share (private to src/model/families/).
#pragma once

#include <string>
#include <vector>

#include "attnviz/model/family.hpp"

namespace attnviz::detail {

// Hugging Face's LlamaForCausalLM tensor names, which every family here starts from.
Layout llama_layout(const std::string& name, const std::string& model_type);
// Llama's MLP roles replaced by a mixture of experts: `router`, the router's weight, and
// `expert` + each of `parts` (gate, up, down) + ".weight", the projections of expert {expert}.
void replace_mlp_with_experts(Layout& l, const std::string& router, const std::string& expert,
                              const std::vector<std::string>& parts);
// Gemma 2 / 3's block: Llama's names with the sandwich norms, (1 + w) gains and GeGLU.
Layout gemma_layout(const std::string& name, const std::string& model_type, SlidingLayers sliding);
// Gemma 2 / 3's sandwich in llama.cpp's names.
std::vector<GgufNameRule> gemma_gguf_names();
// Qwen2 / Qwen3's shared record (model_type, GGUF architecture and init settings): `name`'s.
Family qwen_record(const std::string& name);

Family torch_mha_record();
Family torch_encoder_record();
Family torch_decoder_record();
Family torch_transformer_record();
Family qkv_linears_record();
Family annotated_transformer_record();
Family fused_qkv_record();
Family gpt2_record();
Family nanogpt_record();
Family bert_record();
Family llama_record();
Family mistral_record();
Family qwen2_record();
Family qwen3_record();
Family gemma_record();
Family gemma2_record();
Family gemma3_record();
Family phi3_record();
Family gpt_neox_record();
Family olmo2_record();
Family mixtral_record();
Family qwen3_moe_record();
Family marian_record();
Family m2m100_record();
Family t5_record();
Family t5_gated_record();
Family bart_record();
Family mbart_record();
Family gru_bahdanau_record();
Family vit_record();
Family deit_record();
Family dinov2_record();
Family dinov2_registers_record();
Family clip_vision_record();
Family siglip_vision_record();
Family sagan_record();

}  // namespace attnviz::detail
