// A family's required tensors: a checkpoint (GGUF or Hugging Face folder) without a norm, bias, q/k
// norm or FFN that its family always has is refused naming the file, the tensor and its role (exit
// 1), as llama.cpp's loader refuses a "missing tensor", never run as a layer without it.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "attnviz/io/safetensors.hpp"
#include "attnviz/model/model.hpp"
#include "error_of.hpp"
#include "gguf_from_hf.hpp"
#include "run_cli.hpp"
#include "temp_dir.hpp"
#include "torch_fixtures.hpp"

using namespace attnviz;
using attnviz::test::contains;
using attnviz::test::error_of;
using attnviz::test::HfToGguf;
using attnviz::test::k_torch;
using attnviz::test::TempDir;

namespace fs = std::filesystem;

namespace {

// The error (and exit code) of loading the fixture converted to GGUF without the tensors `drop`.
std::string gguf_error_without(const char* fixture, const char* arch,
                               const std::set<std::string>& drop, int& code) {
  HfToGguf h = HfToGguf::convert(k_torch / fixture, arch);
  const size_t before = h.gguf.tensors.size();
  std::erase_if(h.gguf.tensors, [&](const auto& t) { return drop.count(t.name) != 0; });
  REQUIRE(h.gguf.tensors.size() + drop.size() == before);  // each dropped name was in the file
  TempDir tmp;
  h.write(tmp / "model.gguf");
  return error_of([&] { (void)load_model(tmp / "model.gguf", {}); }, &code);
}

// A copy of a Hugging Face fixture folder (every file) whose model.safetensors lacks the tensor
// `drop` (and the integer buffers no role reads, such as BERT's position_ids: the copy is float32),
// and has a 4-element tensor `add` when one is named.
void copy_without(const fs::path& from, const fs::path& to, const std::string& drop,
                  const std::string& add = "") {
  for (const auto& entry : fs::directory_iterator(from)) {
    if (entry.path().filename() != "model.safetensors")
      fs::copy_file(entry.path(), to / entry.path().filename());
  }
  const SafetensorsFile st = SafetensorsFile::open(from / "model.safetensors");
  std::vector<Tensor> kept;
  std::vector<std::string> names;
  bool dropped = drop.empty();
  for (const auto& info : st.tensors()) {
    dropped |= info.name == drop;
    if (info.name == drop || info.dtype == "I64") continue;
    kept.push_back(st.load(info.name));
    names.push_back(info.name);
  }
  REQUIRE(dropped);
  if (!add.empty()) {
    kept.push_back(Tensor{{4}, std::vector<float>(4, 0.5f)});
    names.push_back(add);
  }
  std::vector<TensorView> views;
  for (size_t i = 0; i < kept.size(); ++i)
    views.push_back({names[i], kept[i].shape, kept[i].data.data()});
  write_safetensors(to / "model.safetensors", views, {});
}

}  // namespace

TEST_CASE(
    "required tensors: a GGUF file without a norm, bias, q/k norm or FFN its family has is refused "
    "by name") {
  const struct {
    const char* fixture;
    const char* arch;
    std::set<std::string> drop;
    const char* message;
  } k_cases[] = {
      {"hf_llama32",
       "llama",
       {"blk.1.ffn_gate.weight", "blk.1.ffn_up.weight", "blk.1.ffn_down.weight"},
       "missing tensor 'blk.1.ffn_up.weight' (decoder.ffn.up.weight of layout llama), which the "
       "family requires in "
       "every layer"},
      {"hf_llama32",
       "llama",
       {"blk.0.attn_norm.weight"},
       "'blk.0.attn_norm.weight' (decoder.norm_self.weight of layout llama)"},
      {"hf_llama32",
       "llama",
       {"blk.1.ffn_norm.weight"},
       "'blk.1.ffn_norm.weight' (decoder.norm_ffn.weight of layout llama)"},
      {"hf_llama32",
       "llama",
       {"output_norm.weight"},
       "missing tensor 'output_norm.weight' (decoder.final_norm.weight of layout llama), which the "
       "family requires"},
      {"hf_llama32",
       "llama",
       {"token_embd.weight"},
       "'token_embd.weight' (embed.token of layout llama)"},
      {"hf_qwen3_builtin",
       "qwen3",
       {"blk.0.attn_q_norm.weight"},
       "'blk.0.attn_q_norm.weight' (decoder.self.q_norm.weight of layout qwen3)"},
      {"hf_qwen3_builtin",
       "qwen3",
       {"blk.1.attn_k_norm.weight"},
       "'blk.1.attn_k_norm.weight' (decoder.self.k_norm.weight of layout qwen3)"},
      {"hf_gemma3",
       "gemma3",
       {"blk.1.attn_k_norm.weight"},
       "'blk.1.attn_k_norm.weight' (decoder.self.k_norm.weight of layout gemma3)"},
      {"hf_gemma3",
       "gemma3",
       {"blk.0.post_attention_norm.weight"},
       "'blk.0.post_attention_norm.weight' (decoder.norm_self_post.weight of layout gemma3)"},
      {"hf_gemma",
       "gemma",
       {"blk.1.ffn_norm.weight"},
       "'blk.1.ffn_norm.weight' (decoder.norm_ffn.weight of layout gemma)"},
      {"hf_gemma",
       "gemma",
       {"output_norm.weight"},
       "'output_norm.weight' (decoder.final_norm.weight of layout gemma)"},
      {"hf_gemma2",
       "gemma2",
       {"blk.0.ffn_norm.weight"},
       "'blk.0.ffn_norm.weight' (decoder.norm_ffn.weight of layout gemma2)"},
      {"hf_gemma2",
       "gemma2",
       {"blk.1.post_ffw_norm.weight"},
       "'blk.1.post_ffw_norm.weight' (decoder.norm_ffn_post.weight of layout gemma2)"},
      {"hf_qwen2",
       "qwen2",
       {"blk.0.attn_q.bias"},
       "'blk.0.attn_q.bias' (decoder.self.q.bias of layout qwen2)"},
      {"hf_phi3",
       "phi3",
       {"blk.1.ffn_up.weight"},
       "'blk.1.ffn_up.weight' (decoder.ffn.gate_up.weight of layout phi3)"},
      {"hf_phi3",
       "phi3",
       {"blk.1.attn_output.weight"},
       "'blk.1.attn_output.weight' (decoder.self.out.weight of layout phi3)"},
      // Llama's biases are optional, but a file has them in every layer or in none (Qwen2 converted
      // as llama).
      {"hf_qwen2",
       "llama",
       {"blk.1.attn_q.bias"},
       "missing tensor 'blk.1.attn_q.bias' (decoder.self.q.bias of layout llama), which layer 0 "
       "has"},
  };
  for (const auto& c : k_cases) {
    CAPTURE(std::string(c.fixture));
    CAPTURE(*c.drop.begin());
    int code = 0;
    const std::string msg = gguf_error_without(c.fixture, c.arch, c.drop, code);
    CHECK_MESSAGE(contains(msg, c.message), msg);
    CHECK_MESSAGE(contains(msg, "model.gguf"), msg);  // the file is named
    CHECK(code == 1);
  }
}

TEST_CASE(
    "required tensors: a Hugging Face folder without a tensor its family has is refused by name") {
  const struct {
    const char* fixture;
    const char* drop;
    const char* role;
  } k_cases[] = {
      {"hf_qwen3_builtin", "model.layers.1.self_attn.k_norm.weight",
       "decoder.self.k_norm.weight of layout qwen3"},
      {"hf_qwen2", "model.layers.0.self_attn.v_proj.bias", "decoder.self.v.bias of layout qwen2"},
      {"hf_gemma", "model.layers.0.post_attention_layernorm.weight",
       "decoder.norm_ffn.weight of layout gemma"},
      {"hf_gemma2", "model.layers.1.pre_feedforward_layernorm.weight",
       "decoder.norm_ffn.weight of layout gemma2"},
      {"hf_llama32", "model.norm.weight", "decoder.final_norm.weight of layout llama"},
      {"hf_gpt2", "transformer.h.1.ln_2.bias", "decoder.norm_ffn.bias of layout gpt2"},
      {"hf_bert", "bert.embeddings.token_type_embeddings.weight",
       "embed.token_type of layout bert"},
      {"torch_encoder_pre", "layers.1.norm2.weight",
       "encoder.norm_ffn.weight of layout torch-encoder"},
      {"torch_decoder", "layers.1.multihead_attn.out_proj.weight",
       "decoder.cross.out.weight of layout torch-decoder"},
      {"hf_marian", "model.decoder.layers.1.encoder_attn.v_proj.bias",
       "decoder.cross.v.bias of layout marian"},
      {"hf_marian_text", "model.shared.weight", "embed.token of layout marian"},
      {"hf_bart", "model.decoder.layernorm_embedding.weight",
       "decoder.embed.norm.weight of layout bart"},
      {"hf_bart", "model.encoder.embed_positions.weight", "encoder.embed.position of layout bart"},
      {"hf_mbart", "model.encoder.layer_norm.bias", "encoder.final_norm.bias of layout mbart"},
      {"hf_m2m100", "model.decoder.layer_norm.weight",
       "decoder.final_norm.weight of layout m2m100"},
      {"hf_t5", "decoder.block.1.layer.2.layer_norm.weight",
       "decoder.norm_ffn.weight of layout t5"},
      {"hf_flan_t5", "encoder.block.0.layer.1.DenseReluDense.wi_1.weight",
       "encoder.ffn.up.weight of layout t5-gated"},
      {"hf_flan_t5", "decoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight",
       "decoder.self.relative_bias of layout t5-gated"},
      {"hf_vit", "vit.encoder.layer.1.layernorm_after.bias", "encoder.norm_ffn.bias of layout vit"},
      {"hf_deit", "embeddings.distillation_token", "embed.distillation of layout deit"},
      {"hf_dinov2", "encoder.layer.0.layer_scale2.lambda1",
       "encoder.layer_scale_ffn of layout dinov2"},
      {"hf_dinov2_registers", "embeddings.register_tokens",
       "embed.registers of layout dinov2_with_registers"},
      {"hf_clip_vision", "vision_model.pre_layrnorm.weight",
       "embed.norm.weight of layout clip_vision"},
      {"hf_siglip_vision", "vision_model.post_layernorm.weight",
       "encoder.final_norm.weight of layout siglip_vision"},
  };
  for (const auto& c : k_cases) {
    CAPTURE(std::string(c.drop));
    TempDir tmp;
    copy_without(k_torch / c.fixture, tmp.path(), c.drop);
    int code = 0;
    const std::string msg = error_of([&] { (void)load_model(tmp.path(), {}); }, &code);
    CHECK_MESSAGE(contains(msg, fmt::format("missing tensor '{}' ({})", c.drop, c.role)), msg);
    CHECK_MESSAGE(contains(msg, "model.safetensors"), msg);
    CHECK(code == 1);
  }
}

TEST_CASE(
    "required tensors: a torch decoder without layer 0's cross out_proj is not run as an encoder") {
  // The decoder is told by layer 0's multihead_attn.out_proj: without it the file looked like an
  // nn.TransformerEncoder, and its cross-attention and norm3 were silently left out.
  TempDir tmp;
  copy_without(k_torch / "torch_decoder", tmp.path(), "layers.0.multihead_attn.out_proj.weight");
  int code = 0;
  const std::string msg = error_of([&] { (void)load_model(tmp.path(), {}); }, &code);
  CHECK_MESSAGE(
      contains(msg, "belong to no role of layout torch-encoder, so attnviz would ignore them"),
      msg);
  CHECK_MESSAGE(contains(msg, "multihead_attn"), msg);
  CHECK_MESSAGE(contains(msg, "--layout"), msg);
  CHECK(code == 1);
  // Named, the decoder's layout says exactly what is missing.
  ConfigOverrides named;
  named.layout = "torch-decoder";
  const std::string told = error_of([&] { (void)load_model(tmp.path(), named); }, &code);
  CHECK_MESSAGE(
      contains(
          told,
          "missing tensor 'layers.0.multihead_attn.out_proj.weight' (decoder.cross.out.weight"),
      told);
}

TEST_CASE(
    "required tensors: a tensor the tutorial and torch layouts do not read is refused, not "
    "ignored") {
  // nn.MultiheadAttention(add_bias_kv=True) stores bias_k and bias_v: attention over one more key.
  const struct {
    const char* fixture;
    const char* extra;
    const char* layout;
    int heads;  // for the files without a config.json
  } k_cases[] = {
      {"torch_mha_inproj", "bias_k", "torch-mha", 0},
      {"seed000_mha", "q_norm.weight", "qkv-linears", 4},
      {"seed001", "linears.4.weight", "annotated-transformer", 4},
      {"seed002", "attn.proj.bias", "fused-qkv",
       1},  // the causal-mask buffer `bias` alone is excused
      {"torch_transformer", "encoder.layers.0.norm3.weight", "torch-transformer", 0},
  };
  for (const auto& c : k_cases) {
    CAPTURE(std::string(c.extra));
    TempDir tmp;
    copy_without(k_torch / c.fixture, tmp.path(), "", c.extra);
    ConfigOverrides heads;
    if (c.heads > 0) heads.n_heads = c.heads;
    int code = 0;
    const std::string msg = error_of([&] { (void)load_model(tmp.path(), heads); }, &code);
    CHECK_MESSAGE(contains(msg, fmt::format("belong to no role of layout {}", c.layout)), msg);
    CHECK_MESSAGE(contains(msg, c.extra), msg);
    CHECK(code == 1);
  }
}

TEST_CASE("required tensors: run exits 1 on a Qwen3 folder without a layer's k_norm, naming it") {
  TempDir tmp;
  copy_without(k_torch / "hf_qwen3_builtin", tmp.path(), "model.layers.1.self_attn.k_norm.weight");
  const auto r = test::run_attnviz(fmt::format("run --model '{}' --ids '{}' --no-heatmap",
                                               tmp.path().string(), (tmp / "ids.txt").string()));
  CHECK(r.exit_code == 1);
  CHECK_MESSAGE(
      contains(
          r.err,
          "missing tensor 'model.layers.1.self_attn.k_norm.weight' (decoder.self.k_norm.weight"),
      r.err);
}

TEST_CASE(
    "required tensors: optional tensors stay optional (nanoGPT without biases, an encoder without "
    "a final norm)") {
  // make_fixtures.py's nanoGPT has bias=False, torch_encoder_post no final norm: both load as
  // before.
  ConfigOverrides two, four;  // their heads, as tests/fixtures/torch/cases.json gives them
  two.n_heads = 2;
  four.n_heads = 4;
  CHECK(error_of([&] { (void)load_model(k_torch / "nanogpt", two); }) == "(no error)");
  CHECK(error_of([&] { (void)load_model(k_torch / "torch_encoder_post", four); }) == "(no error)");
}
