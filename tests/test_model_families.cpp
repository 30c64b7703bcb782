// The model vocabulary as data: RMSNorm, gated FFNs, rotary positions, GQA, q/k norms and tied
// embeddings come from a layout file and config.json (the Llama / Qwen3 fixtures of
// make_fixtures.py), and every contradiction between them and the weights is an error naming both.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "attnviz/core/error.hpp"
#include "attnviz/io/safetensors.hpp"
#include "attnviz/model/layout.hpp"
#include "attnviz/model/model.hpp"
#include "error_of.hpp"
#include "run_cli.hpp"  // contains
#include "temp_dir.hpp"
#include "torch_fixtures.hpp"

using namespace attnviz;
using attnviz::test::contains;
using attnviz::test::error_of;
using attnviz::test::k_torch;
using attnviz::test::llama_layout;
using attnviz::test::TempDir;

namespace {

// The error loading a copy of a fixture's weights with this config.json gives.
std::string load_error(const std::string& fixture, const std::string& config,
                       ConfigOverrides o = llama_layout()) {
  TempDir dir;
  std::filesystem::copy_file(k_torch / fixture / "model.safetensors", dir / "model.safetensors");
  std::ofstream(dir / "config.json") << config;
  return error_of([&] { (void)load_model(dir.path(), o); });
}

}  // namespace

TEST_CASE(
    "families: a Llama checkpoint through a layout file: GQA from k's shape, RMSNorm, SwiGLU, "
    "RoPE") {
  const Model m = load_model(k_torch / "hf_llama", llama_layout());
  const Config& c = m.config;
  CHECK(c.layout == "llama");
  CHECK(c.n_heads == 4);
  CHECK(c.n_kv_heads == 2);  // k_proj [16, 32] = 2 heads of d_k 8
  CHECK(c.d_k() == 8);
  CHECK(c.k_rows() == 16);
  CHECK(c.norm == NormKind::rms_norm);
  CHECK(c.ffn == FeedForwardKind::gated);
  CHECK(c.activation == Activation::silu);
  CHECK(c.positional == Positional::rotary);
  CHECK(c.rotary_dim == 8);
  CHECK(c.rope_theta == 10000.0f);
  CHECK(c.layer_norm_eps == 1e-6f);
  CHECK_FALSE(c.tied_embeddings);
  REQUIRE(m.weights.decoder.n_layers() == 2);
  std::optional<LayerWeights> held;
  CHECK(m.weights.decoder.layer(1, held).ffn->gate.has_value());
  CHECK(describe_config(c) ==
        "layout llama, decoder, 2 layers, d_model 32, 4 heads (d_k 8, d_v 8, 2 key/value heads), "
        "d_ff 48, "
        "pre-norm RMSNorm, gated silu, eps 1e-06, causal, positions rotary (theta 10000, max 64), "
        "vocab 40");
}

TEST_CASE("families: a Qwen3-like checkpoint: q/k norms, MQA, partial rotary, tied embeddings") {
  const Model m = load_model(k_torch / "hf_qwen3", llama_layout());
  const Config& c = m.config;
  CHECK(c.n_kv_heads == 1);
  CHECK(c.qk_norm == QkNorm::per_head);
  CHECK(c.rotary_dim == 4);  // int(8 · 0.5)
  CHECK(c.rope_theta == 1e6f);
  CHECK(c.tied_embeddings);
  std::optional<LayerWeights> held;
  CHECK(m.weights.decoder.layer(0, held).self_attn.q_norm.size() == 8);
  CHECK(held->self_attn.k.bias.size() == 8);
  CHECK(describe_config(c) ==
        "layout llama, decoder, 2 layers, d_model 32, 4 heads (d_k 8, d_v 8, 1 key/value head), "
        "d_ff 48, "
        "pre-norm RMSNorm, gated silu, eps 1e-06, q/k norm, causal, positions rotary (theta "
        "1000000, 4 of 8 dims, "
        "max 64), vocab 40, tied embeddings");
}

TEST_CASE("families: config values that contradict the weights are errors naming both") {
  const std::string base = R"("num_attention_heads": 4, "max_position_embeddings": 64)";
  CHECK(contains(load_error("hf_llama", "{" + base + R"(, "num_key_value_heads": 4})"),
                 "config.json: num_key_value_heads = 4, but the weights have 2 (key/value heads of "
                 "d_k = 8, from tensor "
                 "'model.layers.0.self_attn.k_proj.weight' of shape [16, 32])"));
  CHECK(contains(load_error("hf_llama", "{" + base + R"(, "head_dim": 16})"),
                 "config.json: head_dim = 16, but the weights have 8"));
  // One head: d_k = 32, and k_proj's 16 rows hold no whole head; the k tensor is named with its
  // shape.
  const std::string msg = load_error("hf_llama", R"({"num_attention_heads": 1})");
  CHECK_MESSAGE(
      contains(msg,
               "model.layers.0.self_attn.k_proj.weight' has shape [16, 32], expected "
               "[n_kv_heads · d_k, 32] with d_k = 32 (32 / 1 heads) and n_kv_heads dividing 1"),
      msg);
  const std::string mha3 = load_error("hf_llama", R"({"num_attention_heads": 3})");
  CHECK_MESSAGE(contains(mha3, "3 heads do not divide d_qk = 32"), mha3);
  // Tied, but lm_head.weight is its own matrix.
  const std::string tied = load_error("hf_llama", "{" + base + R"(, "tie_word_embeddings": true})");
  CHECK_MESSAGE(
      contains(tied,
               "tie_word_embeddings = true, but 'lm_head.weight' differs from the token table "
               "'model.embed_tokens.weight'"),
      tied);
  CHECK(
      contains(load_error("hf_llama", "{" + base + R"(, "rope_scaling": {"rope_type": "llama3"}})"),
               R"(rope_scaling = {"rope_type":"llama3"}: "factor" is missing)"));
  CHECK(contains(load_error("hf_llama", "{" + base + R"(, "partial_rotary_factor": 0.1})"),
                 "rotary positions rotate 0 of d_k = 8 dims per head"));
  CHECK(contains(load_error("hf_llama", "{" + base + R"(, "hidden_act": "mish"})"),
                 "activation 'mish': expected relu, gelu, gelu_tanh, silu or quick_gelu"));
}

TEST_CASE(
    "families: layout traits the weights contradict, and bad layout-file fields, are errors") {
  TempDir dir;
  auto layout_with = [&](const std::string& from, const std::string& to) {
    std::ifstream in(k_torch / "llama_layout.json");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    text.replace(at, from.size(), to);
    std::ofstream(dir / "map.json") << text;
    ConfigOverrides o;
    o.layout_file = (dir / "map.json").string();
    return o;
  };
  const std::string plain = error_of([&] {
    (void)load_model(k_torch / "hf_llama", layout_with(R"("ffn": "gated")", R"("ffn": "plain")"));
  });
  CHECK_MESSAGE(
      contains(plain,
               "'model.layers.0.mlp.gate_proj.weight' is a feed-forward gate, but layout llama "
               "has a plain FFN"),
      plain);
  const std::string norm = error_of([&] {
    (void)load_model(k_torch / "hf_llama",
                     layout_with(R"("norm": "rms_norm")", R"("norm": "rms")"));
  });
  CHECK_MESSAGE(contains(norm, "map.json: \"norm\" must be layer_norm or rms_norm"), norm);
  const std::string rope = error_of([&] {
    (void)load_model(k_torch / "hf_llama",
                     layout_with(R"("causal")", R"("rope_theta": -1, "causal")"));
  });
  CHECK_MESSAGE(contains(rope, "map.json: \"rope_theta\" = -1: expected a number in (0, 1e+30]"),
                rope);
  // Rotary positions with cross-attention: no family defines which positions a source's keys have.
  const std::string cross = error_of([&] {
    (void)load_model(k_torch / "hf_llama",
                     layout_with(R"("causal")", R"("decoder_cross": true, "causal")"));
  });
  CHECK_MESSAGE(
      contains(cross,
               "rotary positions apply to the self-attention of transformer layers; layout llama "
               "(decoder) has cross-attention"),
      cross);
}

TEST_CASE("families: fused-qkv's single head is a layout field, not a test of the layout's name") {
  CHECK(layout_by_name("fused-qkv").default_heads == 1);
  CHECK(layout_by_name("qkv-linears").default_heads == 0);  // the others must be told
}

TEST_CASE(
    "families: the tutorial layouts' older names select the same layouts, under their new names") {
  CHECK(layout_by_name("seed000").name == "qkv-linears");
  CHECK(layout_by_name("seed001").name == "annotated-transformer");
  CHECK(layout_by_name("seed002").name == "fused-qkv");
  CHECK_THROWS_AS(layout_by_name("seed003"), Error);
}

TEST_CASE(
    "families: a layout file alone gives rope_theta, partial_rotary_factor, tied_embeddings, "
    "default_heads") {
  TempDir dir;
  std::filesystem::copy_file(k_torch / "hf_qwen3" / "model.safetensors", dir / "model.safetensors");
  std::ifstream in(k_torch / "llama_layout.json");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string causal = R"("causal": true)";
  text.replace(
      text.find(causal), causal.size(),
      causal + R"(, "rope_theta": 500000, "partial_rotary_factor": 0.25, "tied_embeddings": true, )"
               R"("default_heads": 4, "layer_norm_eps": 1e-6)");
  std::ofstream(dir / "map.json") << text;
  ConfigOverrides o;
  o.layout_file = (dir / "map.json").string();
  const Config c = load_model(dir / "model.safetensors", o).config;  // no config.json
  CHECK(c.n_heads == 4);
  CHECK(c.n_kv_heads == 1);
  CHECK(c.rope_theta == 500000.0f);
  CHECK(c.rotary_dim == 2);  // int(8 · 0.25)
  CHECK(c.tied_embeddings);
  CHECK(c.layer_norm_eps == 1e-6f);
}

TEST_CASE(
    "families: transformers 5's rope_parameters, GPT-NeoX's rotary_pct, and what is refused") {
  const std::string base = R"("num_attention_heads": 4, "rope_theta": 10000.0)";
  TempDir dir;
  std::filesystem::copy_file(k_torch / "hf_qwen3" / "model.safetensors", dir / "model.safetensors");
  auto load_with = [&](const std::string& config) {
    std::ofstream(dir / "config.json") << config;
    return load_model(dir.path(), llama_layout());
  };
  // Nested as transformers >= 5 writes it: the same theta and share as the top-level keys give.
  const Model nested =
      load_with(R"({"num_attention_heads": 4, "rope_parameters": {"rope_type": "default",
      "rope_theta": 1000000.0, "partial_rotary_factor": 0.5}})");
  CHECK(nested.config.rope_theta == 1e6f);
  CHECK(nested.config.rotary_dim == 4);
  CHECK(load_with(R"({"num_attention_heads": 4, "rotary_pct": 0.25})").config.rotary_dim == 2);
  CHECK(contains(load_error("hf_qwen3", R"({"num_attention_heads": 4, "rope_theta": 5.0,
      "rope_parameters": {"rope_theta": 6.0}})"),
                 "rope_theta = 5.0 but rope_parameters.rope_theta = 6.0"));
  CHECK(contains(
      load_error("hf_qwen3",
                 R"({"num_attention_heads": 4, "rope_parameters": {"rope_type": "yarn"}})"),
      "rope_scaling type 'yarn' is not implemented (attnviz implements default, linear and "
      "llama3)"));
  CHECK(contains(load_error("hf_qwen3", "{" + base + R"(, "rotary_dim": 4})"),
                 "rotary_dim = 4: GPT-J's interleaved rotary positions are not supported"));
  CHECK(contains(load_error("hf_qwen3", "{" + base + R"(, "partial_rotary_factor": 1.5})"),
                 "partial_rotary_factor = 1.5: expected a number in (0, 1]"));
  // A window changes every map past it: a layout that does not say which layers use it refuses it,
  // unless it is switched off.
  CHECK(contains(load_error("hf_qwen3", "{" + base + R"(, "sliding_window": 4})"),
                 "sliding_window = 4: layout llama has no sliding-window layers"));
  CHECK(load_with("{" + base + R"(, "sliding_window": 4, "use_sliding_window": false})")
            .config.n_heads == 4);
  CHECK(load_with("{" + base + R"(, "sliding_window": null})").config.n_heads == 4);
}

TEST_CASE("families: a learned position table and the positional kind must agree") {
  // nanoGPT's layout is attnviz's own (no transformers config class): its config.json may set
  // "positional", which must then agree with the wpe table.
  TempDir dir;
  std::filesystem::copy_file(k_torch / "nanogpt" / "model.safetensors", dir / "model.safetensors");
  std::ofstream(dir / "config.json") << R"({"n_head": 2, "positional": "rotary"})";
  const std::string dropped = error_of([&] { (void)load_model(dir.path(), {}); });
  CHECK_MESSAGE(contains(dropped,
                         "tensor 'transformer.wpe.weight' is a learned position table, but the "
                         "positions are rotary"),
                dropped);
  const std::string none =
      load_error("hf_llama", R"({"num_attention_heads": 4, "positional": "learned"})");
  CHECK_MESSAGE(
      contains(none, "layout llama has learned positions, but the weights have no position table"),
      none);
}

TEST_CASE("families: a fused q/k/v bias splits by the key/value width under GQA (MQA here)") {
  // hf_qwen3 has separate q/k/v biases of 32, 8 and 8; the same numbers as one fused [48] bias, as
  // nn.MultiheadAttention's in_proj_bias sits beside separate weights, must give the same model.
  TempDir dir;
  const SafetensorsFile src = SafetensorsFile::open(k_torch / "hf_qwen3" / "model.safetensors");
  std::vector<Tensor> kept;  // owns the data the views point at
  std::vector<TensorView> views;
  kept.reserve(src.tensors().size() + 2);
  for (const TensorInfo& t : src.tensors()) {
    if (t.name.find("_proj.bias") != std::string::npos) continue;
    kept.push_back(src.load(t.name));
    views.push_back({t.name, kept.back().shape, kept.back().data.data()});
  }
  for (int layer = 0; layer < 2; ++layer) {
    Tensor fused{{0}, {}};
    for (const char* p : {"q", "k", "v"}) {
      const Tensor b = src.load(fmt::format("model.layers.{}.self_attn.{}_proj.bias", layer, p));
      fused.data.insert(fused.data.end(), b.data.begin(), b.data.end());
    }
    fused.shape = {static_cast<int64_t>(fused.data.size())};
    CHECK(fused.shape[0] == 48);
    kept.push_back(std::move(fused));
    views.push_back({fmt::format("model.layers.{}.self_attn.in_proj_bias", layer),
                     kept.back().shape, kept.back().data.data()});
  }
  write_safetensors(dir / "model.safetensors", views, {});
  std::filesystem::copy_file(k_torch / "hf_qwen3" / "config.json", dir / "config.json");
  std::ifstream in(k_torch / "llama_layout.json");
  std::string layout((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  layout.replace(
      layout.find(R"("roles": {)"), 10,
      R"("roles": { "decoder.self.qkv.bias": "model.layers.{layer}.self_attn.in_proj_bias",)");
  std::ofstream(dir / "map.json") << layout;
  ConfigOverrides o;
  o.layout_file = (dir / "map.json").string();
  const Model fused = load_model(dir.path(), o),
              separate = load_model(k_torch / "hf_qwen3", llama_layout());
  for (int layer = 0; layer < 2; ++layer) {
    std::optional<LayerWeights> held_a, held_b;
    const AttentionWeights& a = fused.weights.decoder.layer(layer, held_a).self_attn;
    const AttentionWeights& b = separate.weights.decoder.layer(layer, held_b).self_attn;
    CHECK(a.q.bias == b.q.bias);
    CHECK(a.k.bias == b.k.bias);
    CHECK(a.v.bias == b.v.bias);
  }
}

namespace {

// A copy of a built-in family's fixture loaded with its config.json changed by `edit`.
Model load_edited(const std::string& fixture, const std::function<void(nlohmann::json&)>& edit) {
  TempDir dir;
  std::filesystem::copy_file(k_torch / fixture / "model.safetensors", dir / "model.safetensors");
  std::ifstream in(k_torch / fixture / "config.json");
  nlohmann::json config = nlohmann::json::parse(in);
  edit(config);
  std::ofstream(dir / "config.json") << config.dump();
  return load_model(dir.path(), {});
}

// The error that load gives.
std::string family_error(const std::string& fixture,
                         const std::function<void(nlohmann::json&)>& edit) {
  return error_of([&] { (void)load_edited(fixture, edit); });
}

Config edited_config(const std::string& fixture, const std::function<void(nlohmann::json&)>& edit) {
  return load_edited(fixture, edit).config;
}

Config family_config(const std::string& fixture) {
  return load_model(k_torch / fixture, {}).config;
}

}  // namespace

TEST_CASE(
    "families: config.json's model_type picks the built-in family, with its windows and settings") {
  const Config gemma2 = family_config("hf_gemma2");
  CHECK(gemma2.layout == "gemma2");
  CHECK(gemma2.sliding_window == 4);
  CHECK(gemma2.sliding_layers ==
        std::vector<bool>{true, false, true});  // layers 0, 2, … (i + 1) % 2
  CHECK(gemma2.attn_softcap == 5.0f);
  CHECK(gemma2.attn_scale == doctest::Approx(1.0 / std::sqrt(24.0)));
  CHECK(gemma2.activation == Activation::gelu_tanh);
  CHECK(gemma2.scale_embeddings);
  const Config qwen2 = family_config("hf_qwen2");
  CHECK(qwen2.sliding_layers == std::vector<bool>{false, true});    // max_window_layers 1
  CHECK(family_config("hf_qwen3_builtin").sliding_layers.empty());  // use_sliding_window false
  CHECK(family_config("hf_mistral").sliding_layers == std::vector<bool>{true, true});
  const Config llama = family_config("hf_llama32");
  CHECK(llama.rope_scaling.kind == RopeScaling::Kind::llama3);
  CHECK(llama.rope_scaling.original_max_positions == 512);
  const Config phi3 = family_config("hf_phi3");
  CHECK(phi3.n_kv_heads == 2);  // from the fused qkv_proj [(4 + 2·2) · 8, 32]
  CHECK(phi3.d_ff == 40);       // gate_up_proj [2 · 40, 32]
}

TEST_CASE(
    "families: layer_types in config.json says which layers slide, checked against the layer "
    "count") {
  const auto types = [](std::vector<std::string> t) {
    return [t](nlohmann::json& c) { c["layer_types"] = t; };
  };
  CHECK(contains(family_error("hf_gemma2", types({"full_attention"})),
                 R"(layer_types = ["full_attention"]: expected a list of 3 layer types)"));
  CHECK(contains(
      family_error("hf_gemma2", types({"full_attention", "chunked_attention", "full_attention"})),
      R"(layer_types: '"chunked_attention"' is not supported)"));
  CHECK(contains(
      family_error("hf_gemma2",
                   [](nlohmann::json& c) {
                     c["layer_types"] = {"sliding_attention", "full_attention", "full_attention"};
                     c["sliding_window"] = nullptr;
                   }),
      "layer_types has sliding_attention layers, but sliding_window is not set"));
  const Config c = edited_config("hf_gemma2", [](nlohmann::json& config) {
    config["layer_types"] = {"full_attention", "full_attention", "sliding_attention"};
  });
  CHECK(c.sliding_layers == std::vector<bool>{false, false, true});
}

TEST_CASE("families: rope scaling and config fields attnviz does not compute are refused by name") {
  const auto set = [](const char* key, nlohmann::json v) {
    return [=](nlohmann::json& c) { c[key] = v; };
  };
  CHECK(contains(
      family_error("hf_llama32", set("rope_scaling", {{"rope_type", "yarn"}, {"factor", 4.0}})),
      "config.json: rope_scaling type 'yarn' is not implemented"));
  CHECK(contains(
      family_error("hf_llama32", set("rope_scaling", {{"type", "dynamic"}, {"factor", 2.0}})),
      "rope_scaling type 'dynamic' is not implemented"));
  CHECK(contains(family_error("hf_llama32", set("rope_scaling", {{"rope_type", "linear"},
                                                                 {"factor", 2.0},
                                                                 {"attention_factor", 0.5}})),
                 "rope_scaling.attention_factor = 0.5: not supported"));
  CHECK(contains(
      family_error("hf_llama32", set("rope_scaling", {{"rope_type", "linear"}, {"factor", -2.0}})),
      "rope_scaling.factor = -2.0: expected a positive number"));
  CHECK(contains(family_error("hf_llama32", set("clip_qkv", 8.0)),
                 "config clip_qkv = 8.0: clipped q/k/v (OLMo, DBRX) is not supported"));
  CHECK(contains(family_error("hf_llama32", set("attention_chunk_size", 8192)),
                 "attention_chunk_size = 8192: chunked attention (Llama 4) is not supported"));
  CHECK(contains(family_error("hf_llama32", set("residual_multiplier", 0.22)),
                 "Granite's residual multiplier"));
  CHECK(contains(family_error("hf_llama32", set("sliding_window", 4)),
                 "sliding_window = 4: layout llama has no sliding-window layers"));
  CHECK(contains(
      family_error("hf_gemma3",
                   set("rope_parameters", {{"full_attention", {{"rope_theta", 1e6}}}})),
      "rope_parameters.full_attention: rotary settings per layer type are not supported yet"));
  // Switched off, or at their neutral value, they change nothing.
  CHECK(family_error("hf_llama32", set("clip_qkv", nullptr)) == "(no error)");
  CHECK(family_error("hf_llama32", set("residual_multiplier", 1.0)) == "(no error)");
}

TEST_CASE(
    "families: a tensor no role of the family reads is refused, not ignored (a wrong model_type)") {
  // Gemma 2's weights read as Llama would drop pre/post_feedforward_layernorm.
  const std::string e =
      family_error("hf_gemma2", [](nlohmann::json& c) { c["model_type"] = "llama"; });
  CHECK_MESSAGE(contains(e,
                         "tensors belong to no role of layout llama, so attnviz would ignore them: "
                         "model.layers.0.post_feedforward_layernorm.weight"),
                e);
  CHECK_MESSAGE(contains(e, "is config.json's model_type right?"), e);
  // Phi-3's fused names are not Llama's: refused the same way rather than half-bound.
  const std::string phi =
      family_error("hf_phi3", [](nlohmann::json& c) { c["model_type"] = "mistral"; });
  CHECK_MESSAGE(contains(phi, "missing tensor 'model.layers.0.self_attn.q_proj.weight'"), phi);
  // An unknown model_type names itself rather than guessing a family.
  const std::string olmo =
      family_error("hf_llama32", [](nlohmann::json& c) { c["model_type"] = "olmo3000"; });
  CHECK_MESSAGE(contains(olmo, "model_type 'olmo3000' is not a family attnviz knows"), olmo);
  // Qwen3-MoE's experts are moe_intermediate_size wide (default 768), not intermediate_size (the
  // dense layers'): a file without the key is read with the default, and its 24-wide experts
  // contradict it.
  const std::string moe =
      family_error("hf_qwen3_moe", [](nlohmann::json& c) { c.erase("moe_intermediate_size"); });
  CHECK_MESSAGE(contains(moe,
                         "the defaults of qwen3_moe's config class: moe_intermediate_size = "
                         "768, but the weights have 24 (an expert's d_ff"),
                moe);
  // OLMo 2 normalises q and k: Llama's checkpoint lacks the norms it requires.
  const std::string llama_as_olmo =
      family_error("hf_llama32", [](nlohmann::json& c) { c["model_type"] = "olmo2"; });
  CHECK_MESSAGE(contains(llama_as_olmo,
                         "missing tensor 'model.layers.0.self_attn.q_norm.weight' "
                         "(decoder.self.q_norm.weight of layout olmo2)"),
                llama_as_olmo);
}

TEST_CASE("families: Phi-3's fused qkv_proj must hold n_heads + 2 · n_kv_heads heads") {
  const std::string e =
      family_error("hf_phi3", [](nlohmann::json& c) { c["num_key_value_heads"] = 1; });
  CHECK_MESSAGE(
      contains(e,
               "fused q/k/v weight 'model.layers.0.self_attn.qkv_proj.weight' has shape [64, 32], "
               "expected [48, 32]: 4 query and 2 × 1 key/value heads of 8 dims"),
      e);
}

TEST_CASE("families: attention_bias and mlp_bias in config.json must match the weights") {
  const auto set = [](const char* key, bool v) { return [=](nlohmann::json& c) { c[key] = v; }; };
  CHECK(contains(family_error("hf_llama32", set("attention_bias", true)),
                 "attention_bias = true in config.json, but layer 0 of the weights has no "
                 "decoder.self.q.bias"));
  CHECK(contains(
      family_error("hf_qwen2", set("attention_bias", false)),
      "attention_bias = false in config.json, but layer 0 of the weights has decoder.self.q.bias"));
  CHECK(contains(
      family_error("hf_llama32", set("mlp_bias", true)),
      "mlp_bias = true in config.json, but layer 0 of the weights has no decoder.ffn.up.bias"));
  CHECK(family_error("hf_qwen2", set("attention_bias", true)) == "(no error)");
}

TEST_CASE("families: inspect's description names the windows, soft-cap, scale and rope scaling") {
  // 1/sqrt(24) = 0.204124; Gemma 2 slides in the even layers.
  CHECK(contains(describe_config(family_config("hf_gemma2")),
                 "sliding window 4 in layers 0, 2, scores soft-capped at 5, scale 0.204124, "
                 "embeddings × sqrt(d_model)"));
  CHECK(contains(describe_config(family_config("hf_llama32")), "theta 500000, llama3 scaling × 8"));
  CHECK(contains(describe_config(family_config("hf_gemma3")),
                 "linear scaling × 4, local theta 10000"));
  CHECK(contains(describe_config(family_config("hf_mistral")), "sliding window 5 in every layer"));
}

TEST_CASE(
    "families: a key config.json leaves out takes the family's config-class default, null stays "
    "none") {
  // Gemma2Config: query_pre_attn_scalar 256, sliding_window 4096, attn/final soft-caps 50/30.
  const Config gemma2 = edited_config("hf_gemma2", [](nlohmann::json& c) {
    for (const char* key : {"query_pre_attn_scalar", "sliding_window", "attn_logit_softcapping",
                            "final_logit_softcapping"}) {
      c.erase(key);
    }
  });
  CHECK(gemma2.attn_scale == doctest::Approx(1.0 / 16));
  CHECK(gemma2.sliding_window == 4096);
  CHECK(gemma2.attn_softcap == 50.0f);
  CHECK(gemma2.final_logit_softcap == 30.0f);
  const Config none = edited_config("hf_gemma2", [](nlohmann::json& c) {
    c["sliding_window"] = nullptr;
    c["attn_logit_softcapping"] = nullptr;
  });
  CHECK(none.sliding_layers.empty());
  CHECK(none.attn_softcap == 0.0f);
  // Gemma3TextConfig: rope_theta 1e6, rope_local_base_freq 1e4.
  const Config gemma3 = edited_config("hf_gemma3", [](nlohmann::json& c) {
    c.erase("rope_theta");
    c.erase("rope_local_base_freq");
  });
  CHECK(gemma3.rope_theta == 1e6f);
  CHECK(gemma3.rope_local_theta == 1e4f);
  // MistralConfig: sliding_window 4096; Phi3Config: rms_norm_eps 1e-5 (Llama's is 1e-6).
  CHECK(edited_config("hf_mistral", [](nlohmann::json& c) {
          c.erase("sliding_window");
        }).sliding_window == 4096);
  CHECK(edited_config("hf_mistral", [](nlohmann::json& c) {
          c["sliding_window"] = nullptr;
        }).sliding_layers.empty());
  CHECK(edited_config("hf_phi3", [](nlohmann::json& c) {
          c.erase("rms_norm_eps");
        }).layer_norm_eps == 1e-5f);
  CHECK(edited_config("hf_llama32", [](nlohmann::json& c) {
          c.erase("rms_norm_eps");
        }).layer_norm_eps == 1e-6f);
}

TEST_CASE("families: each family reads only the keys its transformers code reads") {
  // MistralModel windows every layer whenever sliding_window is set: use_sliding_window and
  // layer_types are not its keys.
  const Config mistral = edited_config("hf_mistral", [](nlohmann::json& c) {
    c["use_sliding_window"] = false;
    c["layer_types"] = {"full_attention", "full_attention"};
  });
  CHECK(mistral.sliding_layers == std::vector<bool>{true, true});
  // Gemma's MLP reads hidden_activation (default gelu_pytorch_tanh), never hidden_act.
  const Config gemma = edited_config("hf_gemma2", [](nlohmann::json& c) {
    c.erase("hidden_activation");
    c["hidden_act"] = "gelu";
  });
  CHECK(gemma.activation == Activation::gelu_tanh);
  // rope_scaling.get("rope_type", rope_scaling.get("type")): rope_type wins.
  const Config both = edited_config("hf_llama32", [](nlohmann::json& c) {
    c["rope_scaling"] = {{"type", "yarn"}, {"rope_type", "linear"}, {"factor", 2.0}};
  });
  CHECK(both.rope_scaling.kind == RopeScaling::Kind::linear);
  // A multimodal Gemma 3 folder (model_type gemma3) holds its text model under language_model.:
  // gemma3_text's own names are not where it looks.
  CHECK(contains(family_error("hf_gemma3", [](nlohmann::json& c) { c["model_type"] = "gemma3"; }),
                 "config.json's model_type 'gemma3' holds a gemma3_text model whose tensors are "
                 "named language_model.model.layers.0.self_attn.o_proj.weight or "
                 "model.language_model.layers.0.self_attn.o_proj.weight, which this file does not "
                 "have"));
  // attnviz's own keys (its torch layouts read them) are no transformers family's: LlamaConfig
  // keeps "norm_first": false and ignores it, so attnviz refuses to run another model than it.
  for (const char* key : {"norm_first", "causal", "scale_embeddings"}) {
    const std::string own = family_error("hf_llama", [&](nlohmann::json& c) { c[key] = false; });
    CHECK_MESSAGE(contains(own, fmt::format("config.json: \"{}\" = false: a key of attnviz's own "
                                            "layouts, which transformers' llama config does not "
                                            "read",
                                            key)),
                  own);
  }
  CHECK(contains(family_error("hf_gpt2", [](nlohmann::json& c) { c["positional"] = "none"; }),
                 "\"positional\" = \"none\": a key of attnviz's own layouts"));
}

TEST_CASE(
    "families: config.json sizes the weights contradict are errors naming the key, its file and "
    "the tensor") {
  const auto set = [](const char* key, nlohmann::json v) {
    return [=](nlohmann::json& c) { c[key] = v; };
  };
  int code = 0;
  // hf_llama32: up_proj [48, 32], embed_tokens [48, 32], q_proj [32, 32].
  std::string e = error_of(
      [&] { (void)load_edited("hf_llama32", set("intermediate_size", 2147483648LL)); }, &code);
  CHECK_MESSAGE(
      contains(
          e,
          "config.json: intermediate_size = 2147483648, but the weights have 48 (d_ff, from tensor "
          "'model.layers.0.mlp.up_proj.weight' of shape [48, 32])"),
      e);
  CHECK(code == 1);
  e = family_error("hf_llama32", set("vocab_size", 2147483648LL));
  CHECK_MESSAGE(
      contains(
          e,
          "config.json: vocab_size = 2147483648, but the weights have 48 (token rows, from tensor "
          "'model.embed_tokens.weight' of shape [48, 32])"),
      e);
  e = family_error("hf_llama32", set("hidden_size", 64));
  CHECK_MESSAGE(contains(e, "config.json: hidden_size = 64, but the weights have 32 (d_model"), e);
  // GPT-2's n_inner (null: 4 · n_embd) and Phi-3's fused gate_up_proj [2 · 40, 32].
  e = family_error("hf_gpt2", set("n_inner", 64));
  CHECK_MESSAGE(contains(e, "config.json: n_inner = 64, but the weights have 128 (d_ff"), e);
  e = family_error("hf_phi3", set("intermediate_size", 80));
  CHECK_MESSAGE(
      contains(e,
               "config.json: intermediate_size = 80, but the weights have 40 (d_ff, from tensor "
               "'model.layers.0.mlp.gate_up_proj.weight'"),
      e);
}

TEST_CASE("families: rope_scaling values are the file's (exit 1), LongRoPE named by its type") {
  const auto set = [](nlohmann::json v) {
    return [=](nlohmann::json& c) { c["rope_scaling"] = v; };
  };
  const struct {
    nlohmann::json scaling;
    const char* message;
  } k_cases[] = {
      {{{"rope_type", "linear"}, {"factor", nullptr}}, R"("factor" is missing)"},
      {{{"rope_type", "linear"}, {"factor", -2.0}},
       "rope_scaling.factor = -2.0: expected a positive number"},
      // Phi-3's LongRoPE: the type is the reason, not the short_factor / long_factor lists it
      // brings.
      {{{"type", "longrope"},
        {"short_factor", {1.0, 1.0}},
        {"long_factor", {2.0, 2.0}},
        {"original_max_position_embeddings", 4096}},
       "config.json: rope_scaling type 'longrope' is not implemented (attnviz implements default, "
       "linear and llama3)"},
      {{{"rope_type", "longrope"}, {"short_factor", {1.0}}, {"long_factor", {2.0}}},
       "rope_scaling type 'longrope'"},
  };
  for (const auto& c : k_cases) {
    CAPTURE(c.scaling.dump());
    int code = 0;
    const std::string e = error_of([&] { (void)load_edited("hf_phi3", set(c.scaling)); }, &code);
    CHECK_MESSAGE(contains(e, c.message), e);
    CHECK(code == 1);
  }
  int code = 0;
  (void)error_of(
      [&] { (void)load_edited("hf_llama32", [](nlohmann::json& c) { c["clip_qkv"] = 8.0; }); },
      &code);
  CHECK(code ==
        1);  // a config field attnviz does not compute is the file's, not the command line's
}
