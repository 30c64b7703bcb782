// GGUF models: files written from the PyTorch fixtures as convert_hf_to_gguf.py writes them
// (gguf_from_hf.hpp) must give PyTorch's maps and logits, or, where llama.cpp fixes a constant the
// Hugging Face config sets otherwise, the maps of the Hugging Face folder with that constant; Q8_0
// files the maps of their dequantised twin; and each malformed file its own error.
#include <doctest/doctest.h>
#include <fmt/ranges.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "attnviz/compute/embedding.hpp"
#include "attnviz/compute/forward.hpp"
#include "attnviz/compute/logits.hpp"
#include "attnviz/inputs/tokens.hpp"
#include "attnviz/model/model.hpp"
#include "check_close.hpp"
#include "error_of.hpp"
#include "gguf_from_hf.hpp"
#include "run_cli.hpp"
#include "saved_maps.hpp"
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

SafetensorsFile saved(const fs::path& model, const fs::path& ids, const TempDir& tmp,
                      const std::string& tag) {
  return test::run_and_save(model, ids, tmp / (tag + ".safetensors"));
}

fs::path write_gguf(const HfToGguf& h, const TempDir& tmp, const std::string& name = "model.gguf") {
  h.write(tmp / name);
  return tmp / name;
}

// A copy of a fixture folder with config.json edited (llama.cpp's constant where HF's config
// differs).
fs::path edited_copy(const std::string& fixture, const TempDir& tmp,
                     const std::function<void(nlohmann::json&)>& edit) {
  const fs::path dir = tmp / ("hf_" + fixture);
  fs::create_directories(dir);
  fs::copy_file(k_torch / fixture / "model.safetensors", dir / "model.safetensors");
  nlohmann::json c;
  std::ifstream(k_torch / fixture / "config.json") >> c;
  edit(c);
  std::ofstream(dir / "config.json") << c.dump();
  return dir;
}

std::string load_error(HfToGguf h, int* code = nullptr) {
  TempDir tmp;
  const fs::path path = write_gguf(h, tmp);
  return error_of([&] { (void)load_model(path, {}); }, code);
}

HfToGguf llama32() {
  return HfToGguf::convert(k_torch / "hf_llama32", "llama");
}

}  // namespace

TEST_CASE(
    "gguf models: Llama (q/k permuted, Llama 3's rope_freqs), Qwen3, Gemma (norms + 1) and Phi-3 "
    "files give PyTorch's maps") {
  const struct {
    const char* fixture;
    const char* arch;
  } k_cases[] = {{"hf_llama", "llama"},
                 {"hf_llama32", "llama"},
                 {"hf_qwen3_builtin", "qwen3"},
                 {"hf_gemma", "gemma"},
                 {"hf_phi3", "phi3"}};
  for (const auto& c : k_cases) {
    CAPTURE(c.fixture);
    TempDir tmp;
    const fs::path gguf = write_gguf(HfToGguf::convert(k_torch / c.fixture, c.arch), tmp);
    test::check_saved_maps(saved(gguf, k_torch / c.fixture / "ids.txt", tmp, "gguf"),
                           SafetensorsFile::open(k_torch / c.fixture / "expected.safetensors"));
  }
}

TEST_CASE("gguf models: --logits' numbers from a GGUF file are PyTorch's logits") {
  for (const auto& [fixture, arch] :
       {std::pair{"hf_llama32", "llama"}, std::pair{"hf_gemma", "gemma"},
        std::pair{"hf_phi3", "phi3"}}) {
    CAPTURE(fixture);
    TempDir tmp;
    const Model m = load_model(write_gguf(HfToGguf::convert(k_torch / fixture, arch), tmp), {});
    const auto ids = parse_ids(test::slurp(k_torch / fixture / "ids.txt"), "ids.txt");
    const Sequence s = embed_ids(m, ids, std::vector<std::string>(ids.size(), "t"));
    const Matrix hidden = forward(m, ForwardInputs{s, {}, {}, {}}, {}, nullptr).hidden;
    const SafetensorsFile expected =
        SafetensorsFile::open(k_torch / fixture / "logits.safetensors");
    const Tensor logits = expected.load("logits");
    const Matrix want =
        Eigen::Map<const Matrix>(logits.data.data(), logits.shape[0], logits.shape[1]);
    REQUIRE(unembedding(m) != nullptr);
    test::check_close(unembedding(m)->times_transposed(hidden), want, 1e-4f, "hidden · W_unembedᵀ");
  }
}

TEST_CASE(
    "gguf models: Gemma 2/3, Qwen2 and Mistral run with llama.cpp's constants, as HF with those "
    "values") {
  // llama.cpp: Gemma's query scale 1/sqrt(head_dim); Gemma 3's window on all but every 6th layer;
  // no window for Qwen2 or a Mistral converted as llama. The HF folders get those values in
  // config.json.
  const struct {
    const char* fixture;
    const char* arch;
    std::function<void(nlohmann::json&)> edit;
  } k_cases[] = {
      {"hf_gemma2", "gemma2", [](nlohmann::json& c) { c["query_pre_attn_scalar"] = 16; }},
      {"hf_gemma3", "gemma3",
       [](nlohmann::json& c) {
         c["query_pre_attn_scalar"] = 8;
         c["sliding_window_pattern"] = 6;
       }},
      {"hf_qwen2", "qwen2", [](nlohmann::json& c) { c["use_sliding_window"] = false; }},
      {"hf_mistral", "llama", [](nlohmann::json& c) { c["sliding_window"] = nullptr; }},
      // Qwen2 is Llama with q/k/v biases: converted as llama, the q and k biases (1-D, one kv head)
      // are permuted like their weights and must be un-permuted as vectors.
      {"hf_qwen2", "llama", [](nlohmann::json& c) { c["use_sliding_window"] = false; }},
  };
  for (const auto& c : k_cases) {
    CAPTURE(c.fixture);
    TempDir tmp;
    const fs::path gguf = write_gguf(HfToGguf::convert(k_torch / c.fixture, c.arch), tmp);
    const fs::path ids = k_torch / c.fixture / "ids.txt";
    test::check_saved_maps(saved(gguf, ids, tmp, "gguf"),
                           saved(edited_copy(c.fixture, tmp, c.edit), ids, tmp, "hf"));
  }
}

TEST_CASE("gguf models: the config read from the metadata and llama.cpp's rules") {
  TempDir tmp;
  const auto config = [&](const char* fixture, const char* arch) {
    return load_model(write_gguf(HfToGguf::convert(k_torch / fixture, arch), tmp,
                                 std::string(fixture) + ".gguf"),
                      {})
        .config;
  };
  const Config g2 = config("hf_gemma2", "gemma2");
  CHECK(g2.layout == "gemma2");
  REQUIRE(g2.attn_scale.has_value());
  CHECK(*g2.attn_scale ==
        doctest::Approx(0.25));  // 1/sqrt(head_dim 16), not query_pre_attn_scalar 24
  CHECK(g2.attn_softcap == 5.0f);
  CHECK(g2.final_logit_softcap == 30.0f);
  CHECK(g2.sliding_layers == std::vector<bool>{true, false, true});
  CHECK(g2.tied_embeddings);
  const Config g3 = config("hf_gemma3", "gemma3");
  CHECK(g3.layout == "gemma3");
  CHECK(g3.sliding_layers == std::vector<bool>{true, true, true});  // (i + 1) % 6 != 0
  CHECK(g3.rope_local_theta == 10000.0f);
  CHECK(g3.rope_scaling.kind == RopeScaling::Kind::linear);
  CHECK(g3.rope_scaling.factor == 4.0f);
  CHECK(g3.attn_softcap == 0.0f);
  const Config l = config("hf_llama32", "llama");
  CHECK(l.rope_scaling.kind == RopeScaling::Kind::freq_factors);
  REQUIRE(l.rope_scaling.freq_factors.size() == 4);
  CHECK(l.rope_scaling.freq_factors[0] ==
        1.0f);  // the shortest wavelength is kept, the longest stretched × 8
  CHECK(l.rope_scaling.freq_factors[3] == 8.0f);
  CHECK(contains(describe_config(l), "rope_freqs factors"));
  const Config p = config("hf_phi3", "phi3");
  CHECK(p.sliding_layers ==
        std::vector<bool>{true, true});  // HF's Phi-3 window (llama.cpp turns it off)
  CHECK(p.sliding_window == 6);
  CHECK(p.rotary_dim == 8);
  CHECK_FALSE(p.tied_embeddings);
}

TEST_CASE("gguf models: Gemma 1 (arch gemma) reads as transformers' GemmaConfig and llama.cpp do") {
  TempDir tmp;
  const Config g =
      load_model(write_gguf(HfToGguf::convert(k_torch / "hf_gemma", "gemma"), tmp), {}).config;
  CHECK(g.layout == "gemma");
  CHECK(g.activation == Activation::gelu_tanh);
  CHECK(g.scale_embeddings);
  CHECK(g.tied_embeddings);
  CHECK(g.n_heads == 2);
  CHECK(g.n_kv_heads == 1);               // MQA
  CHECK(g.d_k() == 12);                   // attention.key_length, not 16 / 2
  CHECK_FALSE(g.attn_scale.has_value());  // 1/sqrt(head_dim): no query_pre_attn_scalar
  CHECK_FALSE(g.sliding(0));
  CHECK_FALSE(g.sliding(1));
  // Without key_length llama.cpp takes n_embd / n_head: GemmaConfig's head_dim 256 does not apply.
  HfToGguf silent = HfToGguf::convert(k_torch / "hf_gemma", "gemma");
  silent.drop("gemma.attention.key_length");
  silent.drop("gemma.attention.value_length");
  CHECK(load_model(write_gguf(silent, tmp, "silent.gguf"), {}).config.d_k() == 12);
  // A Hugging Face folder without head_dim: GemmaConfig's 256, which the weights contradict.
  const fs::path hf = edited_copy("hf_gemma", tmp, [](nlohmann::json& c) { c.erase("head_dim"); });
  const std::string msg = error_of([&] { (void)load_model(hf, {}); });
  CHECK_MESSAGE(contains(msg, "head_dim = 256"), msg);
  CHECK_MESSAGE(contains(msg, "the weights have 12"), msg);
}

TEST_CASE(
    "gguf models: Q8_0 weights and token table, dequantised by rows per layer, give their F32 "
    "twin's maps") {
  for (const auto& [fixture, arch] :
       {std::pair{"hf_llama32", "llama"}, std::pair{"hf_phi3", "phi3"}}) {
    CAPTURE(fixture);
    TempDir tmp;
    HfToGguf twin;
    const HfToGguf q8 = HfToGguf::convert(k_torch / fixture, arch, true, &twin);
    const fs::path ids = k_torch / fixture / "ids.txt";
    const fs::path q8_path = write_gguf(q8, tmp, "q8.gguf"),
                   twin_path = write_gguf(twin, tmp, "f32.gguf");
    test::check_saved_maps(saved(q8_path, ids, tmp, "q8"), saved(twin_path, ids, tmp, "f32"));
    CHECK(load_model(q8_path, {}).weights.embed.token.has_value());
    const auto r =
        test::run_attnviz(fmt::format("run --model '{}' --ids '{}' --logits 2 --no-heatmap "
                                      "--table none",
                                      q8_path.string(), ids.string()));
    CHECK_MESSAGE(r.exit_code == 0, r.err);
  }
}

// llama.cpp's own ids (tests/fixtures/gguf_models/llama_cpp_records.json, node-llama-cpp's tokenize
// without special tokens) for the texts h12f's generator tokenized with each file's
// tokenizer.ggml.* metadata.
TEST_CASE("gguf models: --text reads the GGUF file's own tokenizer, with llama.cpp's ids") {
  const fs::path records_path =
      fs::path(ATTNVIZ_SOURCE_DIR) / "tests/fixtures/gguf_models/llama_cpp_records.json";
  std::ifstream in(records_path);
  REQUIRE(in);
  const auto records = nlohmann::json::parse(in);
  int texts = 0;
  for (const auto& [file, record] : records.at("models").items()) {
    for (const auto& t : record.at("tokenized")) {
      CAPTURE(file);
      const auto r = test::run_attnviz(
          fmt::format("tokenize --model '{}' --text '{}' --no-special-tokens --format json", file,
                      t.at("text").get<std::string>()));
      REQUIRE_MESSAGE(r.exit_code == 0, r.err);
      std::vector<int> ids;
      const auto doc =
          nlohmann::json::parse(r.out);  // named: a temporary would die before the loop
      for (const auto& tok : doc.at("tokens")) ids.push_back(tok.at("id").get<int>());
      const auto expected = t.at("ids").get<std::vector<int>>();
      CHECK_MESSAGE(ids == expected,
                    fmt::format("{} vs {}", fmt::join(ids, " "), fmt::join(expected, " ")));
      ++texts;
    }
  }
  CHECK(texts >= 40);  // 2 texts for each of the 24 files
  // run --text: BOS first (add_bos_token), the maps labelled with the file's pieces.
  const auto r = test::run_attnviz(
      "run --model tests/fixtures/gguf_models/llama-Q4_K_M.gguf --text 'the thing is on' "
      "--layer 0 --head 0 --table probs --no-heatmap --logits 1");
  CHECK_MESSAGE(r.exit_code == 0, r.err);
  CHECK(contains(r.out, "<s>"));
}

TEST_CASE("gguf models: a missing required key is refused by name") {
  HfToGguf h = llama32();
  h.drop("llama.embedding_length");
  CHECK(contains(load_error(h),
                 "missing metadata key 'llama.embedding_length' (llama.cpp requires it too)"));
}

TEST_CASE("gguf models: a key of the wrong type is refused by name") {
  HfToGguf h = llama32();
  h.drop("llama.attention.head_count");
  h.gguf.kv<float>("llama.attention.head_count", test::k_gguf_f32, 4.0f);
  CHECK(contains(
      load_error(h),
      "metadata key 'llama.attention.head_count' is f32, expected a non-negative integer"));
  HfToGguf e = llama32();
  e.drop("llama.rope.freq_base");
  e.gguf.kv<uint32_t>("llama.rope.freq_base", test::k_gguf_u32, 500000);
  CHECK(contains(load_error(e), "metadata key 'llama.rope.freq_base' is u32, expected f32"));
}

TEST_CASE("gguf models: counts stored as u64 (some writers) read as llama.cpp's u32") {
  HfToGguf h = llama32();
  const std::pair<const char*, uint64_t> k_counts[] = {
      {"llama.embedding_length", 32}, {"llama.attention.head_count", 4}, {"llama.block_count", 2}};
  for (const auto& [key, value] : k_counts) {
    h.drop(key);
    h.gguf.kv<uint64_t>(key, 10, value);  // gguf type 10: u64
  }
  CHECK(load_error(h) == "(no error)");
}

TEST_CASE(
    "gguf models: an architecture attnviz does not run is refused, listing the ones it does") {
  HfToGguf h = llama32();
  h.drop("general.architecture");
  h.gguf.kv_string("general.architecture", "mamba");
  int code = 0;
  CHECK(
      contains(load_error(h, &code),
               "general.architecture 'mamba' is not one attnviz runs (it runs llama, qwen2, qwen3, "
               "gemma, gemma2, gemma3, phi3)"));
  CHECK(code == 1);
}

TEST_CASE("gguf models: metadata the tensors contradict is refused, naming both") {
  struct Case {
    const char* key;  // after "llama."
    uint32_t value;
    const char* message;
  };
  const Case cases[] = {
      {"feed_forward_length", 40, "llama.feed_forward_length = 40, but the tensors have d_ff = 48"},
      {"vocab_size", 50, "llama.vocab_size = 50, but the tensors have vocab rows = 48"},
      {"embedding_length", 64, "llama.embedding_length = 64, but the tensors have d_model = 32"},
      {"block_count", 3, "llama.block_count = 3, but the tensors have layers = 2"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.key);
    HfToGguf h = llama32();
    h.drop(std::string("llama.") + c.key);
    h.u32(c.key, c.value);
    const std::string msg = load_error(h);
    CHECK_MESSAGE(contains(msg, c.message), msg);
  }
}

TEST_CASE(
    "gguf models: a tensor type attnviz cannot convert is refused at load, naming tensor and "
    "type") {
  HfToGguf h = llama32();
  for (auto& t : h.gguf.tensors) {
    if (t.name != "blk.1.ffn_gate.weight") continue;
    t.type = 9;  // Q8_1: blocks of 32 in 36 bytes, a type llama.cpp only uses for activations
    t.data.assign(size_t(t.dims[1] * t.dims[0] / 32 * 36), '\0');
  }
  CHECK(contains(load_error(h),
                 "tensor 'blk.1.ffn_gate.weight' (model.layers.1.mlp.gate_proj.weight) has type "
                 "Q8_1, which attnviz cannot convert"));
}

TEST_CASE("gguf models: a metadata key or tensor attnviz does not read is refused, never ignored") {
  HfToGguf k = llama32();
  k.f32("attention.clamp_kqv", 8.0);
  CHECK(contains(load_error(k),
                 "metadata key 'llama.attention.clamp_kqv' is not one attnviz reads for "
                 "architecture llama; it may change the model's math"));
  HfToGguf s = llama32();  // llama.cpp has no window for llama: a window there is not understood
  s.u32("attention.sliding_window", 4);
  CHECK(contains(load_error(s),
                 "metadata key 'llama.attention.sliding_window' is not one attnviz reads"));
  HfToGguf t = llama32();
  t.gguf.tensor(
      test::spec("blk.0.attn_sinks.weight", test::k_ggml_f32, {4}, std::string(16, '\0')));
  CHECK(
      contains(load_error(t),
               "tensor 'blk.0.attn_sinks.weight' is not one attnviz reads for architecture llama"));
  HfToGguf n = llama32();  // llama.cpp's llama graph has no q/k norms
  n.gguf.tensor(
      test::spec("blk.0.attn_q_norm.weight", test::k_ggml_f32, {8}, std::string(32, '\0')));
  CHECK(contains(
      load_error(n),
      "tensor 'blk.0.attn_q_norm.weight' is not one attnviz reads for architecture llama"));
  HfToGguf p = HfToGguf::convert(k_torch / "hf_phi3", "phi3");
  p.gguf.tensor(
      test::spec("rope_factors_long.weight", test::k_ggml_f32, {4}, std::string(16, '\0')));
  CHECK(contains(load_error(p), "tensor 'rope_factors_long.weight': LongRoPE frequency factors"));
}

TEST_CASE(
    "gguf models: rope scaling other than linear, experts and a wrong rope_freqs are refused") {
  HfToGguf y = llama32();
  y.gguf.kv_string("llama.rope.scaling.type", "yarn");
  CHECK(
      contains(load_error(y),
               "llama.rope.scaling.type = 'yarn': not supported (attnviz reads none and linear)"));
  HfToGguf e = llama32();
  e.u32("expert_count", 8);
  CHECK(contains(load_error(e), "llama.expert_count: mixture-of-experts layers are not supported"));
  HfToGguf f = llama32();
  for (auto& t : f.gguf.tensors) {
    if (t.name == "rope_freqs.weight")
      t = test::spec("rope_freqs.weight", test::k_ggml_f32, {3}, std::string(12, '\0'));
  }
  CHECK(contains(load_error(f),
                 "tensor 'rope_freqs.weight' has 3 values, expected 4 (rotary dims / 2)"));
  HfToGguf both = llama32();
  both.f32("rope.scaling.factor", 2.0);
  CHECK(contains(load_error(both), "rope_freqs.weight beside rope.scaling (linear × 2)"));
}

TEST_CASE("gguf models: a tensor of the wrong shape is named both ways") {
  HfToGguf h = llama32();
  for (auto& t : h.gguf.tensors) {
    if (t.name == "blk.1.attn_output.weight")
      t = test::spec(t.name, test::k_ggml_f32, {32, 30}, std::string(32 * 30 * 4, '\0'));
  }
  CHECK(contains(
      load_error(h),
      "tensor 'model.layers.1.self_attn.o_proj.weight' has shape [30, 32], expected [32, 32] "
      "(GGUF 'blk.1.attn_output.weight', whose dims are listed reversed)"));
}

TEST_CASE("gguf models: a missing tensor is named as llama.cpp names it") {
  HfToGguf h = llama32();
  std::erase_if(h.gguf.tensors, [](const auto& t) { return t.name == "blk.1.ffn_down.weight"; });
  CHECK(
      contains(load_error(h),
               "missing tensor 'blk.1.ffn_down.weight' (decoder.ffn.down.weight of layout llama)"));
}

TEST_CASE(
    "gguf models: Gemma's 27B models (46 / 62 layers) scale scores by 1/sqrt(d_model / n_heads)") {
  // hf_gemma2: d_model 32, 4 heads, head_dim 16: 1/sqrt(8) at 27B's layer count, else 1/sqrt(16).
  for (const auto& [arch, layers] : {std::pair{"gemma2", 46}, std::pair{"gemma3", 62}}) {
    CAPTURE(arch);
    HfToGguf h = HfToGguf::convert(k_torch / "hf_gemma2", arch);
    std::vector<test::GgufTensorSpec> layer0;
    for (const auto& t : h.gguf.tensors)
      if (t.name.starts_with("blk.0.")) layer0.push_back(t);
    if (std::string(arch) ==
        "gemma3") {  // Gemma 3 requires q/k norms, which Gemma 2's weights lack: gains of 1
      for (const char* n : {"blk.0.attn_q_norm.weight", "blk.0.attn_k_norm.weight"}) {
        const auto spec =
            test::spec(n, test::k_ggml_f32, {16}, test::f32_bytes(std::vector<float>(16, 1.0f)));
        layer0.push_back(spec);
        h.gguf.tensors.push_back(spec);
      }
    }
    std::erase_if(h.gguf.tensors, [](const auto& t) {
      return t.name.starts_with("blk.") && !t.name.starts_with("blk.0.");
    });
    for (int l = 1; l < layers; ++l) {
      for (auto t : layer0) {
        t.name = "blk." + std::to_string(l) + t.name.substr(5);
        h.gguf.tensors.push_back(t);
      }
    }
    h.drop(std::string(arch) + ".block_count");
    h.u32("block_count", uint64_t(layers));
    TempDir tmp;
    const Config c = load_model(write_gguf(h, tmp), {}).config;
    REQUIRE(c.attn_scale.has_value());
    CHECK(*c.attn_scale == doctest::Approx(1 / std::sqrt(8.0)));
  }
}

TEST_CASE(
    "gguf models: stats, check and tokenize take a GGUF model (tokenize needs its tokenizer.ggml.* "
    "metadata)") {
  TempDir tmp;
  const fs::path gguf = write_gguf(HfToGguf::convert(k_torch / "hf_phi3", "phi3"), tmp);
  const fs::path ids = k_torch / "hf_phi3" / "ids.txt";
  const auto stats =
      test::run_attnviz(fmt::format("stats --model '{}' --ids '{}'", gguf.string(), ids.string()));
  CHECK_MESSAGE(stats.exit_code == 0, stats.err);
  CHECK(contains(stats.out, "layer1.self"));
  const auto check =
      test::run_attnviz(fmt::format("check --model '{}' --ids '{}'", gguf.string(), ids.string()));
  CHECK_MESSAGE(check.exit_code == 0, check.err);
  const auto tok = test::run_attnviz(fmt::format("tokenize --model '{}' --text hi", gguf.string()));
  CHECK(tok.exit_code ==
        1);  // this converted file has no tokenizer: the error names the missing key
  CHECK_MESSAGE(contains(tok.err, "tokenizer.ggml.model"), tok.err);
}

TEST_CASE("gguf models: errors about metadata name the GGUF file and its key, not config.json's") {
  // Qwen3: no q/k permutation, so the count is first read as the config's (Llama's file undoes it
  // by heads).
  HfToGguf zero = HfToGguf::convert(k_torch / "hf_qwen3_builtin", "qwen3");
  zero.drop("qwen3.attention.head_count");
  zero.u32("attention.head_count", 0);
  int code = 0;
  std::string msg = load_error(zero, &code);
  CHECK_MESSAGE(
      contains(msg,
               "model.gguf metadata: qwen3.attention.head_count = 0: expected an integer in [1, "),
      msg);
  CHECK_FALSE(contains(msg, "num_attention_heads"));
  CHECK(code == 1);
  HfToGguf kv = llama32();  // hf_llama32: k_proj [16, 32] holds 2 heads of 8
  kv.drop("llama.attention.head_count_kv");
  kv.u32("attention.head_count_kv", 1);
  msg = load_error(kv, &code);
  CHECK_MESSAGE(
      contains(msg,
               "model.gguf metadata: llama.attention.head_count_kv = 1, but the weights have 2 "
               "(key/value heads of d_k = 8, from tensor 'blk.0.attn_k.weight'"),
      msg);
  CHECK_FALSE(contains(msg, "num_key_value_heads"));
  HfToGguf rope = llama32();
  rope.drop("llama.rope.dimension_count");
  rope.u32("rope.dimension_count", 9);
  msg = load_error(rope, &code);
  CHECK_MESSAGE(contains(msg,
                         "model.gguf metadata: llama.rope.dimension_count = 9: expected an even "
                         "number <= d_k = 8"),
                msg);
  HfToGguf width = llama32();
  width.drop("llama.feed_forward_length");
  width.u32("feed_forward_length", 40);
  CHECK(contains(
      load_error(width),
      "model.gguf metadata: llama.feed_forward_length = 40, but the tensors have d_ff = 48"));
}

TEST_CASE(
    "gguf models: a rope scaling factor that is negative or NaN is the file's error (exit 1), "
    "named") {
  for (const double factor : {-2.0, std::nan("")}) {
    CAPTURE(factor);
    HfToGguf h =
        HfToGguf::convert(k_torch / "hf_gemma3", "gemma3");  // has rope.scaling.type linear
    h.drop("gemma3.rope.scaling.factor");
    h.f32("rope.scaling.factor", factor);
    int code = 0;
    const std::string msg = load_error(h, &code);
    CHECK_MESSAGE(contains(msg, "model.gguf: gemma3.rope.scaling.factor = "), msg);
    CHECK_MESSAGE(contains(msg, ": expected 0 (none) or a positive number"), msg);
    CHECK(code == 1);
  }
  // LongRoPE in a GGUF file (Phi-3's rope_factors_long) is exit 1 too, as in config.json.
  HfToGguf p = HfToGguf::convert(k_torch / "hf_phi3", "phi3");
  p.gguf.tensor(
      test::spec("rope_factors_long.weight", test::k_ggml_f32, {4}, std::string(16, '\0')));
  int code = 0;
  CHECK(contains(load_error(p, &code), "longrope"));
  CHECK(code == 1);
}
