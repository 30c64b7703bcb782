// `attnviz init`: seeded random models of every architecture, written in the layout of their
// family.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace attnviz {

struct InitOptions {
  std::string arch = "mha";  // a registered family's --arch name (init_family_names(),
                             // model/family.hpp): mha, encoder, decoder (nanoGPT), gpt2, llama, …
  int d_model = 128;
  int n_heads = 4;
  int d_qk = 0;  // mha only; 0: d_model, as in a standard nn.MultiheadAttention
  int d_v = 0;   // mha only; 0: d_model
  int d_ff = 0;  // 0: 4 · d_model
  int n_layers = 2;
  bool out_proj = true;     // mha only
  bool norm_first = false;  // encoder / encoder-decoder
  int max_positions = 0;  // 0: no limit for mha/encoder/encoder-decoder, 512 for learned positions
  uint64_t seed = 0;
  std::vector<std::string>
      vocab;           // when non-empty: an embedding table [vocab, d_model] and vocab.txt
  int n_kv_heads = 0;  // Llama-like families: key/value heads (0: half the heads, when even)
  int vocab_size =
      0;  // rows of the token table when tokenizer_json is given (the tokenizer's size)
  std::string tokenizer_json;  // written as tokenizer.json beside the weights (Llama-like families
                               // always; mha, decoder, gpt2, bert instead of vocab)
  std::string tokenizer_config_json;  // written as tokenizer_config.json beside it, when given
  std::string bos_token,
      eos_token;  // Llama-like families: the tokenizer's (GGUF's bos/eos_token_id)
  std::string
      gguf_type;  // Llama-like families: non-empty → one GGUF file of this type (F32, Q4_K_M, …)
};

// Writes dir/model.safetensors (hyperparameters also in its __metadata__) and dir/config.json.
//  mha: q/k/v/out Linear modules (qkv-linears);  encoder: nn.TransformerEncoder (sinusoidal
//  positions);  encoder-decoder: nn.Transformer (sinusoidal);  a registered family
//  (model/family.hpp): what its record's init writes (nanoGPT for decoder, GPT2Model, BertModel),
//  or for the Llama line the *ForCausalLM checkpoint and config.json its record describes (its
//  usual settings: GQA, rope theta and scaling, windows, soft-caps), with tokenizer_json.
// Weights follow each family's init: torch's U(±1/√in) for Linear, N(0, 1) for embeddings, HF's
// N(0, 0.02) with zero biases; LayerNorm γ = 1, β = 0.
// Returns the names of the files written in dir (the GGUF file's own name for --gguf).
std::vector<std::string> init_model(const std::filesystem::path& dir, const InitOptions& options);

// With options.gguf_type set (the Llama line's families only), `dir` is the GGUF file written
// instead: the same tensors as llama.cpp's convert_hf_to_gguf.py and llama-quantize would make
// them.
// The --arch values init --gguf writes (the Llama line's families with a GGUF architecture).
std::vector<std::string> init_gguf_family_names();
// Whether `options` (its tokenizer_json still empty) gets the family's default byte-level
// tokenizer.
bool init_writes_tokenizer(const InitOptions& options);

}  // namespace attnviz
