// Layouts: data that maps a checkpoint's tensor names to roles, one table per family.
//
// Roles are canonical names:  embed.token, embed.position, embed.token_type,
// embed.norm.{weight,bias}; per layer, with stack ∈ {encoder, decoder} and site ∈ {self, cross}:
//   {stack}.{site}.{q,k,v,out}.{weight,bias}   separate projections
//   {stack}.{site}.qkv.{weight,bias}           fused [3C, C] projection, split into q, k, v by rows
//   {stack}.{site}.{q_norm,k_norm}.weight      RMSNorm gains of q and k: [d_k] per head (Qwen3),
//                                              or [Q] and [K] over the projection (OLMo 2)
//   {stack}.{site}.sinks                       learned sink logits [heads] (gpt-oss)
//   {stack}.ffn.{up,down,gate}.{weight,bias}   feed-forward (gate: gated FFNs only)
//   {stack}.ffn.gate_up.weight                 fused [2F, D]: gate rows [0, F), up rows [F, 2F)
//   (Phi-3)
//   {stack}.ffn.router.{weight,bias}           a mixture of experts' router [n_experts, D]
//   {stack}.ffn.experts.{up,down,gate}.{weight,bias}  each expert's FFN, "{expert}" in the pattern
//   {stack}.norm_{self,cross,ffn}.{weight,bias} {stack}.norm_{self,ffn}_post.weight norms
//   of a sub-layer's output before the residual (Gemma 2)
// and per stack {stack}.final_norm.{weight,bias}; unembed.weight (lm_head, when not tied),
// unembed.bias (Marian's final_logits_bias, [N] or [1, N]); embed.sinusoid, the sinusoidal table a
// file stores beside the model that computes it (Marian's embed_positions); an encoder-decoder's
// {stack}.embed.position and {stack}.embed.norm.{weight,bias}, a stack's own embedding parts
// (BART's); {stack}.self.relative_bias, T5's table of relative position biases [buckets, heads],
// stored in layer 0 and used by every layer. The translation tutorial's recurrent stacks
// (Layout::recurrent) have their own: {stack}.embed.token (each side's vocabulary),
// {stack}.gru.{weight_ih,weight_hh,bias_ih,bias_hh} (nn.GRU's layer 0) and
// decoder.cross.{wa,ua,va}.{weight,bias} (BahdanauAttention's Wa, Ua, Va). A pattern holds
// "{layer}" where the layer index goes. A role may have several patterns (tied copies under other
// names, Marian's model.shared / model.encoder.embed_tokens): the first the file has is bound, and
// every other one it has must hold the same values.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "attnviz/model/config.hpp"

namespace attnviz {

struct RolePattern {
  std::string role;
  std::string pattern;     // tensor name, "{layer}" replaced by the layer index
  bool transpose = false;  // HF Conv1D stores [in, out]: transpose to nn.Linear's [out, in]
  // The family has this tensor (in every layer, for a per-layer role): a file without it is an
  // error naming the tensor and its role, as llama.cpp's loader refuses a "missing tensor", never a
  // layer silently run without its norm, bias or FFN. Optional roles must still be alike in every
  // layer.
  bool required = false;
};

// How a fused q/k/v weight is laid out, to tell nanoGPT's Linear [3C, C] from GPT-2's Conv1D [C,
// 3C].
enum class FusedShape { any, rows, cols };

// Which layers of a family attend within a sliding window when config.json sets `sliding_window`
// (config.json's `layer_types` list, when present, says it per layer instead).
enum class SlidingLayers {
  none,             // the family has no sliding window: a sliding_window in its config is refused
  all,              // every layer (Mistral, Phi-3)
  from_max_window,  // layers >= max_window_layers, when use_sliding_window (Qwen2, Qwen3)
  even,             // layers 0, 2, 4, … (Gemma 2)
  pattern,          // all but every sliding_window_pattern-th layer (Gemma 3: 5 sliding, 1 global)
};

// The config.json keys of a mixture of experts, read when the layout maps a router: the expert
// count (checked against the experts the tensors hold), how many run per token, and whether their
// weights are renormalised over the chosen ones.
struct ExpertKeys {
  std::vector<std::string> count{"num_local_experts", "num_experts"};
  std::vector<std::string> top_k{"num_experts_per_tok"};
  std::vector<std::string> normalise{};  // Qwen2/3-MoE's norm_topk_prob
  bool normalise_default = true;         // Mixtral always renormalises
  // The key of an expert's width (d_ff): Mixtral's intermediate_size; Qwen3-MoE's
  // moe_intermediate_size, its intermediate_size being a dense layer's.
  std::vector<std::string> width{"intermediate_size"};
};

// A config.json key a family refuses, and what its setting would change.
struct RefusedKey {
  std::string key;
  std::string what;  // "parallel attention and MLP (GPT-NeoX)"
  // Refused when set to false instead: a feature the family has by default that the file turns off
  // (Marian's share_encoder_decoder_embeddings).
  bool when_false = false;
};
// The keys of other families' features that no built-in family computes (chunked attention,
// Granite's multipliers, clipped q/k/v, mixtures of experts, …): every record starts from them.
std::vector<RefusedKey> common_refused_keys();

// Tensors of a checkpoint that belong to parts attnviz does not run (a classification head, a
// pooler, the other tower of a CLIP model): bound to no role, and named in a note when the file has
// them, never silently dropped. `pattern` is a regular expression over the whole tensor name.
struct UnrunPart {
  std::string pattern;
  std::string what;  // "the classification head"
};

// Where a part's tensors are in a whole-model folder: `prefix` before the family's names
// ("language_model."), and, when `lead_from` is set, each name's leading `lead_from` replaced by
// `lead_to` ("model." → "model.language_model.", as transformers ≥ 4.52 saves Gemma 3's).
struct NestedNaming {
  std::string prefix;
  std::string lead_from{}, lead_to{};
};

struct NestedConfig {
  std::string model_type;  // "clip"
  std::string section;     // "vision_config"
  // A legacy key whose values override the section's, each missing key taking the part's config
  // class default (CLIPConfig's vision_config_dict); empty: none.
  std::string legacy_section{};
  // The namings tried in order; empty: the family's own prefixes.
  std::vector<NestedNaming> namings{};
};

struct Layout {
  std::string name{};
  std::string alias{};  // an older name still accepted by --layout
  Arch arch = Arch::mha;
  std::vector<std::string> prefixes{""};  // tried in order: "transformer.", "bert.", …
  std::string detect{};  // a pattern (layer 0) whose presence identifies the family
  FusedShape detect_fused = FusedShape::any;
  std::vector<RolePattern> roles{};
  // What a state dict cannot say: the family's defaults (config.json and flags override them).
  bool norm_first = false;
  NormKind norm = NormKind::layer_norm;
  FeedForwardKind ffn = FeedForwardKind::plain;
  Activation activation = Activation::relu;
  float layer_norm_eps = 1e-5f;
  bool causal = false;         // self-attention is always causal (GPT-2, nanoGPT, fused-qkv)
  bool decoder_cross = false;  // decoder layers have cross-attention
  Positional positional = Positional::none;
  SinusoidLayout sinusoid = SinusoidLayout::interleaved;  // a sinusoidal table's columns
  int position_offset = 0;  // learned positions: the table row of position 0 (BART's 2)
  // Positions counted from pad_token_id + 1, padding tokens at the zero row pad_token_id
  // (fairseq's make_positions: M2M100, NLLB); sets Config::position_offset and position_pad_id.
  bool positions_after_pad = false;
  float rope_theta = 10000.0f;  // rotary positions: base of the frequencies
  float partial_rotary_factor =
      1.0f;  // rotary positions: the share of each head's dims that rotate
  // The config keys of the rotary base and of the rotated share, as the family's config class reads
  // them (GPT-NeoX: rotary_emb_base and rotary_pct; GPTNeoXConfig overwrites a top-level rope_theta
  // or partial_rotary_factor with them, so those are not read).
  std::vector<std::string> rope_theta_keys{"rope_theta", "rope_parameters.rope_theta"};
  std::vector<std::string> rotary_share_keys{"partial_rotary_factor",
                                             "rope_parameters.partial_rotary_factor", "rotary_pct"};
  bool tied_embeddings = false;  // the unembedding is the token table
  int default_heads = 0;         // heads when no source gives them (0: must be given)
  bool scale_embeddings = false;
  float norm_offset = 0.0f;  // RMSNorm gains are stored as w and applied as (offset + w) (Gemma: 1)
  SlidingLayers sliding = SlidingLayers::none;
  // q·kᵀ is not scaled (T5, whose initialisation folds 1/√d_k into W_q): Config::attn_scale 1.
  bool unscaled_scores = false;
  // A tied unembedding reads the decoder's output × d_model^−½ (T5's tie_word_embeddings).
  bool scale_tied_unembedding = false;
  // The config keys that limit the input's length (T5 has none: its n_positions is a legacy key no
  // part of transformers' T5 reads, and relative positions have no table).
  std::vector<std::string> max_position_keys{"max_positions", "n_positions",
                                             "max_position_embeddings"};
  // The values of the activation key the family accepts, when it names them its own way (T5's
  // feed_forward_proj "relu", "gated-gelu"); empty: parse_activation's names.
  std::vector<std::pair<std::string, Activation>> activation_values{};
  // Every tensor of the file must be bound to a role (a tensor no role reads would be silently
  // ignored, e.g. a norm of a related family); `buffers` are the patterns of names that are saved
  // buffers, not weights (a causal mask, rotary frequencies), and are read by no role.
  bool every_tensor_bound = false;
  std::vector<std::string> buffers{};
  std::string model_type{};  // HF config.json "model_type" that selects this layout
  // Chosen only by config.json's model_type, never by tensor names alone: names other families
  // share (BART's line: Marian, BART, mBART), whose config defaults would be another model's.
  bool needs_model_type = false;
  // The stacks are the translation tutorial's GRUs with additive attention (Config::recurrent),
  // bound from the recurrent roles; none of the transformer roles applies.
  bool recurrent = false;
  // A target text is read after its last token (Config::decoder_starts_with_last_label: mBART).
  bool decoder_starts_with_last_label = false;
  // Config keys the family names otherwise, each read as the key attnviz reads (Marian's
  // encoder_attention_heads and decoder_attention_heads as num_attention_heads): the names of one
  // key must agree within a file.
  std::vector<std::pair<std::string, std::vector<std::string>>> config_aliases{};
  // What the family's transformers config class fills in when config.json leaves a key out. A key
  // written "section.key" (text_config.hidden_size) is the default of the part's config class when
  // the family is read from a whole-model folder's nested `section` (NestedConfig), and only then.
  std::vector<std::pair<std::string, double>> config_defaults{};
  // The config keys that name the activation (Gemma reads hidden_activation, not hidden_act).
  std::vector<std::string> activation_keys{"activation", "activation_function", "hidden_act"};
  // Attention and FFN in parallel on the layer's input (Config::parallel_residual), and the config
  // keys that switch it: none for a record unless its family has one (GPT-NeoX's
  // use_parallel_residual), since transformers ignores any other; "parallel_residual" in a layout
  // file's model.
  bool parallel_residual = false;
  std::vector<std::string> parallel_residual_keys{};
  // A fused q/k/v weight's rows grouped per head, [heads, 3, d_k] (GPT-NeoX's query_key_value),
  // instead of [q; k; v].
  bool fused_qkv_per_head = false;
  // What q_norm / k_norm gains normalise when the weights have them: each head, or the whole
  // projection (OLMo 2). The gains' shapes are checked against it.
  QkNorm qk_norm = QkNorm::per_head;
  ExpertKeys experts{};
  // The config.json keys whose settings the family does not compute: set (not null, false, 0, 1 or
  // an empty list) in a file of this family, each is refused with what it would change.
  std::vector<RefusedKey> refused_keys = common_refused_keys();
  // A vision transformer (Config::vision): the roles embed.patch.{weight,bias}, embed.cls,
  // embed.distillation and embed.registers hold its patch embedding and prefix tokens.
  bool vision = false;
  PositionResize resize_positions = PositionResize::none;  // VisionConfig::resize_positions
  // The config.json model_types of whole-model folders that hold this family as a part, and the
  // key of its nested config (CLIPModel's "clip" folder: the vision tower's keys under
  // "vision_config"); only the part's tensors are run, the rest named by `unrun`.
  std::vector<NestedConfig> nested_in{};
  std::vector<UnrunPart> unrun{};
};

// The built-in families, in detection order.
const std::vector<Layout>& builtin_layouts();
// --layout NAME; usage Error listing the names when unknown.
const Layout& layout_by_name(const std::string& name);
// A user mapping file: {"name", "arch", "norm_first", "norm", "ffn", "activation",
// "layer_norm_eps", "causal", "decoder_cross", "positional", "sinusoid", "position_offset",
// "rope_theta", "partial_rotary_factor", "tied_embeddings", "default_heads", "norm_offset",
// "parallel_residual", "fused_qkv_per_head", "qk_norm", "roles": {role: pattern | {"pattern": …,
// "transpose": true}}}; any other field is an Error.
Layout read_layout_file(const std::filesystem::path& path);

}  // namespace attnviz
