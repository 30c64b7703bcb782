// Gemma 1 (GemmaForCausalLM, model_type gemma): Llama's block and names with embeddings ·
// sqrt(d_model), RMSNorm gains (1 + w), GeGLU (tanh GELU) and one key/value head in the 2B model.
#include "family_records.hpp"

namespace attnviz::detail {

// transformers' models/gemma/modeling_gemma.py: GemmaRMSNorm computes x · rsqrt(mean(x²) + eps) in
// float32 and multiplies by (1.0 + weight); GemmaModel scales the embeddings by
// torch.tensor(hidden_size ** 0.5, dtype=hidden dtype); GemmaMLP is down(act(gate(x)) · up(x));
// GemmaAttention scales by 1 / sqrt(head_dim), with no query_pre_attn_scalar, soft-cap, sliding
// window or sandwich norms (the decoder layer is Llama's: input_layernorm before attention,
// post_attention_layernorm before the MLP).
Family gemma_record() {
  Family f{.title = "Gemma 1, Gemma 2, Gemma 3", .layout = llama_layout("gemma", "gemma")};
  f.layout.activation = Activation::gelu_tanh;
  f.layout.scale_embeddings = true;
  f.layout.tied_embeddings = true;
  f.layout.norm_offset = 1.0f;
  // GemmaMLP (transformers 4.40+): ACT2FN[config.hidden_activation], "gelu_pytorch_tanh" when it
  // is None; config.hidden_act is ignored ("`config.hidden_act` is ignored, you should use
  // `config.hidden_activation` instead", PR 29402). Released configs say hidden_act "gelu" beside
  // hidden_activation "gelu_pytorch_tanh", so hidden_act is not read: as a second name it would
  // contradict the first.
  f.layout.activation_keys = {"activation", "hidden_activation"};
  // configuration_gemma.py's GemmaConfig: head_dim 256, not hidden_size / num_attention_heads (the
  // 7B model: 16 heads of 256 on a 3072 wide stream); rms_norm_eps 1e-6, rope_theta 1e4 and tied
  // embeddings are the layout's already.
  f.layout.config_defaults = {{"head_dim", 256}};
  // convert_hf_to_gguf.py's GemmaModel: arch gemma, the shared keys (key_length / value_length
  // from head_dim, no rope.freq_base), norm gains written as w + 1, lm_head dropped (llama.cpp
  // predicts with token_embd). llama-model.cpp's LLM_ARCH_GEMMA reads only the RMS eps beyond the
  // shared keys; its graph (src/models/gemma.cpp) scales the embeddings by sqrtf(n_embd) and Q by
  // 1 / sqrtf(n_embd_head), with ffn_norm (post_attention_layernorm) before a GELU-gated FFN.
  // Without key_length llama.cpp's head width is n_embd / n_head, so GemmaConfig's 256 must not
  // fill it.
  f.gguf = {.arch = "gemma", .constants = {{"head_dim", nullptr}}};
  // google/gemma-2b's config.json (the 2B model: MQA, one key/value head: --kv-heads 1).
  f.init = FamilyInit{.hf_class = "GemmaForCausalLM",
                      .config = {{"hidden_activation", "gelu_pytorch_tanh"},
                                 {"hidden_act", "gelu_pytorch_tanh"},
                                 {"rms_norm_eps", 1e-6},
                                 {"tie_word_embeddings", true},
                                 {"max_position_embeddings", 8192}},
                      .special_tokens = {"<pad>", "<eos>", "<bos>"},
                      .bos = "<bos>",
                      .eos = "<eos>"};
  return f;
}

}  // namespace attnviz::detail
