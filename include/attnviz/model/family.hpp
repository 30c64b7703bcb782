// A model family as one record: its Hugging Face layout, how llama.cpp converts and reads it as
// GGUF, and what `attnviz init --arch` writes for it. One file per family in src/model/families/;
// the code that loads, maps, configures and writes models reads these records and names no family.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "attnviz/model/layout.hpp"

namespace attnviz {

// llama.cpp's name of a layer tensor (gguf-py's tensor_mapping.py, without .weight / .bias) and
// transformers' name under model.layers.N.
struct GgufNameRule {
  std::string gguf;
  std::string hf;
};

// A value llama.cpp's load_hparams gives a config key (config.json's name): always (`fixed`,
// whatever the file says) or where the file is silent.
struct GgufConstant {
  std::string key;
  nlohmann::json value;
  bool fixed = false;
};

// A `<arch>.*` key convert_hf_to_gguf.py writes from a config.json key: a u32 count, or an f32.
struct GgufWrittenKey {
  std::string key;  // after "<arch>."
  std::string hf;
  bool number = false;
};

// The family in llama.cpp: its converter's output and what llama-model.cpp reads of it.
struct FamilyGguf {
  // general.architecture the converter writes; a file of it runs as the first family (in
  // detection order) with this arch. "": no GGUF form.
  std::string arch;
  bool permuted_qk = false;  // LlamaModel.permute: q rows per n_head, k rows per n_head_kv
  bool rope_freqs = false;   // rope_freqs.weight (Llama 3's per-frequency divisors) is read
  bool qk_norm = false;      // the graph reads attn_q_norm / attn_k_norm
  std::vector<GgufNameRule> layer_names{};  // tried before the names every family shares
  std::vector<std::string> unread{};        // shared names its graph never reads
  std::vector<std::string> keys{};          // `<arch>.*` keys its code reads beyond the shared ones
  std::vector<GgufConstant> constants{};    // in the order they are applied
  // f_attention_scale: 1/sqrt(n_embd / n_head) for models of this many layers, else
  // 1/sqrt(head_dim), as query_pre_attn_scalar; 0: llama.cpp scales by head_dim with no scalar.
  int wide_scale_layers = 0;
  std::vector<GgufWrittenKey> written_keys{};  // init --gguf: beyond the shared ones, in order
};

// A config.json key `init` writes over the shared settings: a value, or one of the model's dims.
struct InitConfigKey {
  enum class From { value, layers, head_dim };
  std::string key;
  nlohmann::ordered_json value = nullptr;
  From from = From::value;
};

class InitWriter;  // attnviz/model/init_writer.hpp
struct InitDims;
struct InitOptions;  // attnviz/model/init.hpp

// Where the token table of `attnviz init` gets its rows.
enum class InitVocabulary {
  tokenizer,  // a tokenizer.json always: --tokenizer, else a byte-level one (--vocab refused)
  tokenizer_default,  // --vocab or --tokenizer, else the byte-level tokenizer
  required,           // --vocab or --tokenizer, one of them given
  optional,           // --vocab or --tokenizer, or no table at all
  none,               // the layout holds no table: --vocab and --tokenizer refused
};

// What `attnviz init --arch NAME` writes: by default the *ForCausalLM checkpoint of the Llama
// line's releases, from the fields below; a record with its own `write` writes its tensors itself.
struct FamilyInit {
  std::string arch{};  // --arch's name when it is not the layout's
  InitVocabulary vocabulary = InitVocabulary::tokenizer;
  // The tensors into w, returning config.json (also the checkpoint's __metadata__); nullptr: the
  // Llama line's writer, from hf_class … eos, with {"format": "pt"} as the metadata.
  nlohmann::ordered_json (*write)(InitWriter& w, const InitDims& n, const InitOptions& o) = nullptr;
  // The flags beyond the shared ones its writer reads (the others are refused, not ignored):
  bool head_widths = false;             // --d-qk, --d-v, --no-out-proj
  bool norm_first = false;              // --norm-first
  bool ffn = true;                      // --d-ff (a feed-forward layer)
  std::string hf_class{};               // config.json's architectures[0]
  std::vector<InitConfigKey> config{};  // over the shared settings, in this order
  bool fused_qkv = false;               // self_attn.qkv_proj ([q; k; v] rows)
  bool qkv_bias = false;                // q/k/v_proj have biases
  bool qk_norm = false;                 // self_attn.q_norm / k_norm
  bool sandwich_norms = false;          // pre/post_feedforward_layernorm
  bool fused_gate_up = false;           // mlp.gate_up_proj ([gate; up] rows)
  // The default tokenizer's special tokens (after the 256 bytes) and its BOS / EOS ("": none).
  std::vector<std::string> special_tokens{};
  std::string bos{}, eos{};
  // A vision family's preprocessor_config.json, written beside the weights ("": none).
  std::string preprocessor_config{};
};

struct Family {
  // Its row in the table of families (`attnviz families`, README.md): records with the same title
  // share a row, in the order the first of them is registered.
  std::string title;
  Layout layout;  // name, model_type, tensor names per role, traits, config defaults
  FamilyGguf gguf{};
  std::optional<FamilyInit> init{};  // nullopt: `init --arch` does not write it

  // The --arch name init writes it under ("" when it does not).
  std::string init_arch() const {
    return !init ? "" : init->arch.empty() ? layout.name : init->arch;
  }
};

// The registered families, in detection order (src/model/families/families.cpp).
const std::vector<Family>& families();
// The family `init --arch name` writes (its FamilyInit::arch, else its layout's name); nullptr
// when none.
const Family* init_family(const std::string& name);
// The family a GGUF file of general.architecture `arch` runs as; nullptr when none.
const Family* gguf_family(const std::string& arch);
// The --arch names of the families `init` writes, in registry order.
std::vector<std::string> init_family_names();
// The GGUF architectures attnviz reads, in registry order, each once.
std::vector<std::string> gguf_family_archs();
// "a, b or c", for messages.
std::string or_list(const std::vector<std::string>& names);

}  // namespace attnviz
