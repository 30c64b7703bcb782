// `attnviz init --gguf`: a family's random model as llama.cpp's converter and quantiser write it;
// its maps are the Hugging Face folder's from the same seed, and its tensor types are llama.cpp's
// own choices.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "../src/model/init/gguf_quant_mix.hpp"
#include "attnviz/io/gguf/gguf.hpp"
#include "attnviz/io/gguf/gguf_write.hpp"
#include "attnviz/io/safetensors.hpp"
#include "run_cli.hpp"
#include "saved_maps.hpp"
#include "temp_dir.hpp"

using namespace attnviz;
using attnviz::test::contains;
using attnviz::test::run_attnviz;
using attnviz::test::TempDir;

namespace fs = std::filesystem;

namespace {

const fs::path k_root = ATTNVIZ_SOURCE_DIR;

fs::path init(const TempDir& tmp, const std::string& arch, const std::string& gguf,
              const std::string& dims) {
  const fs::path out = tmp / (arch + (gguf.empty() ? "_hf" : "_" + gguf + ".gguf"));
  const auto r = run_attnviz(fmt::format("init --arch {} {} --seed 7 -o '{}'{}", arch, dims,
                                         out.string(), gguf.empty() ? "" : " --gguf " + gguf));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  return out;
}

fs::path ids_file(const TempDir& tmp) {
  std::ofstream(tmp / "ids.txt") << "5 17 250 3 99 42 7 128 200 1 64 33\n";
  return tmp / "ids.txt";
}

std::string type_of(const GgufFile& f, const std::string& name) {
  for (const auto& t : f.tensors()) {
    if (t.name == name) return ggml_type_name(t.type);
  }
  return "absent";
}

// The same file with every tensor dequantised and stored as F32 (metadata unchanged).
fs::path dequantised_twin(const fs::path& file, const fs::path& out) {
  const GgufFile f = GgufFile::open(file);
  GgufWriter w;
  for (const auto& [key, value] : f.metadata().entries()) w.set(key, value);
  w.set("general.file_type", gguf_scalar<uint32_t>(0));
  for (const auto& t : f.tensors())
    w.add_tensor(t.name, t.dims, uint32_t(GgmlType::F32), f.dequantize(t));
  w.write(out);
  return out;
}

}  // namespace

TEST_CASE(
    "init --gguf F32: each family's file gives the maps of the Hugging Face folder of the same "
    "seed") {
  TempDir tmp;
  const fs::path ids = ids_file(tmp);
  for (const char* arch : {"llama", "mistral", "qwen2", "qwen3", "gemma2", "phi3"}) {
    CAPTURE(arch);
    const std::string dims = "--d-model 64 --heads 4 --layers 2";
    const fs::path hf = init(tmp, arch, "", dims), gguf = init(tmp, arch, "F32", dims);
    const GgufFile f = GgufFile::open(gguf);
    CHECK(f.metadata().get<std::string>("general.architecture") ==
          (std::string(arch) == "mistral" ? "llama" : arch));
    CHECK(f.metadata().get<std::string>("tokenizer.ggml.model") == "gpt2");
    // llama.cpp sets token attributes by general.name: a name with "phi3" makes it look up a
    // "</s>".
    CHECK(f.metadata().get<std::string>("general.name").find("phi") == std::string::npos);
    test::check_saved_maps(test::run_and_save(gguf, ids, tmp / "gguf.safetensors"),
                           test::run_and_save(hf, ids, tmp / "hf.safetensors"));
  }
}

TEST_CASE(
    "init --gguf: counts are u32, the tokenizer is init's byte-level one, Llama's q rows are "
    "permuted") {
  TempDir tmp;
  const fs::path gguf = init(tmp, "llama", "F32", "--d-model 32 --heads 4 --kv-heads 2 --layers 1");
  const GgufFile f = GgufFile::open(gguf);
  const GgufMetadata& m = f.metadata();
  CHECK(m.get<uint32_t>("llama.block_count") == 1);
  CHECK(m.get<uint32_t>("llama.attention.head_count_kv") == 2);
  const auto tokens = m.get_array<std::string>("tokenizer.ggml.tokens");
  REQUIRE(tokens.size() == 258);
  CHECK(tokens[32] == "\xC4\xA0");  // byte 0x20 (space) in GPT-2's alphabet: Ġ
  CHECK(tokens[256] == "<|begin_of_text|>");
  CHECK(m.get<uint32_t>("tokenizer.ggml.bos_token_id") == 256);
  CHECK(m.get<uint32_t>("tokenizer.ggml.eos_token_id") == 257);
  CHECK(m.get<bool>("tokenizer.ggml.add_bos_token"));
  CHECK(m.get_array<int32_t>("tokenizer.ggml.token_type")[256] == 3);
  // HF row j · d/2 + i of a head is GGUF row 2i + j: GGUF row 1 of q is HF row d/2 = 4 (head_dim
  // 8).
  const SafetensorsFile hf = SafetensorsFile::open(init(tmp, "llama", "",
                                                        "--d-model 32 --heads 4 --kv-heads 2 "
                                                        "--layers 1") /
                                                   "model.safetensors");
  const Tensor q = hf.load("model.layers.0.self_attn.q_proj.weight");
  for (const auto& t : f.tensors()) {
    if (t.name != "blk.0.attn_q.weight") continue;
    const std::vector<float> g = f.dequantize(t);
    CHECK(std::equal(g.begin() + 32, g.begin() + 64, q.data.begin() + 4 * 32));
    CHECK(std::equal(g.begin() + 64, g.begin() + 96, q.data.begin() + 1 * 32));
  }
  CHECK(type_of(f, "rope_freqs.weight") == "F32");
  CHECK(type_of(f, "output.weight") == "absent");  // Llama 3.2 ties its table
}

TEST_CASE(
    "init --gguf: the chosen tensor types are llama.cpp's own for its quantised fixtures "
    "(models.json)") {
  nlohmann::json models;
  std::ifstream(k_root / "tests/fixtures/gguf_models/models.json") >> models;
  int compared = 0;
  for (const auto& entry : models) {
    const auto* type = detail::gguf_file_type(entry.at("ftype").get<std::string>());
    if (!type) continue;
    CAPTURE(entry.at("file").get<std::string>());
    const GgufFile f = GgufFile::open(k_root / entry.at("file").get<std::string>());
    const std::string a = entry.at("arch").get<std::string>() + ".";
    const GgufMetadata& m = f.metadata();
    const detail::MixModel model{int(m.get_count(a + "block_count")),
                                 int(m.get_count(a + "attention.head_count")),
                                 int(m.get_count(a + "attention.head_count_kv"))};
    std::vector<detail::MixTensor> tensors;
    for (const auto& t : f.tensors()) tensors.push_back({t.name, t.dims});
    const auto types = detail::llama_quant_types(tensors, model, *type);
    for (size_t i = 0; i < tensors.size(); ++i) {
      CAPTURE(tensors[i].name);
      CHECK(ggml_type_name(types[i]) ==
            entry.at("tensor_types").at(tensors[i].name).get<std::string>());
      ++compared;
    }
  }
  CHECK(compared > 200);
}

TEST_CASE(
    "init --gguf: rows that are not whole blocks fall back as llama.cpp's tensor_type_fallback") {
  TempDir tmp;
  // d_model 128: K-quant rows of 128 are not whole 256-blocks; attn_v/ffn_down of layer 1 get more
  // bits.
  const GgufFile f =
      GgufFile::open(init(tmp, "llama", "Q4_K_M", "--d-model 128 --heads 4 --layers 2"));
  CHECK(type_of(f, "token_embd.weight") == "Q8_0");  // the output's rule: Q8_0 when 128 % 256 != 0
  CHECK(type_of(f, "blk.0.attn_q.weight") == "Q5_0");    // Q4_K → Q5_0
  CHECK(type_of(f, "blk.0.attn_v.weight") == "Q5_0");    // use_more_bits(0, 2) false: Q4_K → Q5_0
  CHECK(type_of(f, "blk.1.attn_v.weight") == "Q8_0");    // use_more_bits(1, 2): Q6_K → Q8_0
  CHECK(type_of(f, "blk.0.ffn_down.weight") == "Q4_K");  // rows of d_ff 512: whole blocks
  CHECK(type_of(f, "blk.1.ffn_down.weight") == "Q6_K");
  CHECK(type_of(f, "blk.0.attn_norm.weight") == "F32");
  // d_model 48: not even 32-blocks, so F16.
  const GgufFile g =
      GgufFile::open(init(tmp, "qwen3", "Q4_0", "--d-model 48 --heads 4 --layers 1"));
  CHECK(type_of(g, "blk.0.attn_q.weight") == "F16");
  CHECK(type_of(g, "output.weight") == "absent");
  CHECK(type_of(g, "token_embd.weight") ==
        "F16");  // the output's Q8_0, then the fallback: 48 % 32 != 0
}

TEST_CASE(
    "init --gguf: every quantised type gives the maps of an F32 file of its dequantised weights") {
  TempDir tmp;
  const fs::path ids = ids_file(tmp);
  for (const char* type : {"F16", "BF16", "Q8_0", "Q4_0", "Q4_1", "Q5_0", "Q5_1", "Q2_K", "Q3_K_M",
                           "Q4_K_M", "Q5_K_M", "Q6_K"}) {
    CAPTURE(type);
    const fs::path q = init(tmp, "llama", type, "--d-model 256 --heads 4 --layers 2 --d-ff 512");
    const GgufFile f = GgufFile::open(q);
    CHECK(f.metadata().get<uint32_t>("general.file_type") ==
          detail::gguf_file_type(type)->llama_ftype);
    const fs::path twin = dequantised_twin(q, tmp / "twin.gguf");
    test::check_saved_maps(test::run_and_save(q, ids, tmp / "q.safetensors"),
                           test::run_and_save(twin, ids, tmp / "twin.safetensors"));
  }
}

TEST_CASE(
    "init --gguf: Q8_0 weights are the Hugging Face weights within half a quantisation step (and "
    "the F16 scale)") {
  TempDir tmp;
  const std::string dims = "--d-model 64 --heads 4 --layers 1";
  const GgufFile f = GgufFile::open(init(tmp, "qwen3", "Q8_0", dims));
  const SafetensorsFile hf =
      SafetensorsFile::open(init(tmp, "qwen3", "", dims) / "model.safetensors");
  const std::pair<const char*, const char*> k_pairs[] = {
      {"blk.0.attn_k.weight", "model.layers.0.self_attn.k_proj.weight"},
      {"blk.0.ffn_down.weight", "model.layers.0.mlp.down_proj.weight"},
      {"token_embd.weight", "model.embed_tokens.weight"}};
  for (const auto& [gguf, name] : k_pairs) {
    CAPTURE(gguf);
    const std::vector<float> w = hf.load(name).data;
    for (const auto& t : f.tensors()) {
      if (t.name != gguf) continue;
      REQUIRE(ggml_type_name(t.type) == "Q8_0");
      const std::vector<float> g = f.dequantize(t);
      REQUIRE(g.size() == w.size());
      // d = amax / 127 per block of 32, stored as F16 (relative error ≤ 2^-11, times |q| ≤ 127): ≤
      // 0.563 d
      for (size_t b = 0; b < w.size(); b += 32) {
        float amax = 0;
        for (size_t i = b; i < b + 32; ++i) amax = std::max(amax, std::abs(w[i]));
        for (size_t i = b; i < b + 32; ++i)
          REQUIRE(std::abs(g[i] - w[i]) <= amax / 127 * (0.5f + 127.0f / 2048) + 1e-9f);
      }
    }
  }
}

TEST_CASE(
    "init --gguf: a type attnviz does not write, a non-family arch and a non-byte-level tokenizer "
    "are usage errors") {
  TempDir tmp;
  const auto bad = run_attnviz(
      fmt::format("init --arch llama --gguf Q4_K_S -o '{}'", (tmp / "a.gguf").string()));
  CHECK(bad.exit_code == 2);
  CHECK(contains(bad.err, "init --gguf Q4_K_S: not a type attnviz writes"));
  CHECK(contains(bad.err, "Q4_K_M"));
  const auto arch =
      run_attnviz(fmt::format("init --arch gpt2 --gguf F32 -o '{}'", (tmp / "b.gguf").string()));
  CHECK(arch.exit_code == 2);
  CHECK(contains(arch.err, "--arch gpt2 has no GGUF layout"));
  const auto tok = run_attnviz(fmt::format(
      "init --arch llama --gguf F32 --tokenizer '{}' -o '{}'",
      (k_root / "tests/fixtures/vocab/llama2/tokenizer.json").string(), (tmp / "c.gguf").string()));
  CHECK(tok.exit_code == 2);  // SentencePiece-style BPE (Metaspace): not a gpt2 vocabulary
  CHECK(contains(tok.err, "not byte-level BPE"));
  CHECK_FALSE(fs::exists(tmp / "a.gguf"));
  CHECK_FALSE(fs::exists(tmp / "b.gguf"));
  CHECK_FALSE(fs::exists(tmp / "c.gguf"));
}

TEST_CASE(
    "init --gguf --tokenizer: Llama 3's tokenizer.json as a gpt2 vocabulary of 128,256 tokens") {
  TempDir tmp;
  const fs::path out = tmp / "m.gguf";
  const auto r = run_attnviz(
      fmt::format("init --arch llama --d-model 32 --heads 4 --layers 1 --gguf Q8_0 "
                  "--tokenizer '{}' -o '{}'",
                  (k_root / "tests/fixtures/vocab/llama3/tokenizer.json").string(), out.string()));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const GgufFile f = GgufFile::open(out);
  const GgufMetadata& m = f.metadata();
  CHECK(m.get<std::string>("tokenizer.ggml.pre") == "llama-bpe");
  const auto tokens = m.get_array<std::string>("tokenizer.ggml.tokens");
  REQUIRE(tokens.size() == 128256);
  CHECK(tokens[128000] == "<|begin_of_text|>");
  CHECK(m.get_array<int32_t>("tokenizer.ggml.token_type")[128000] == 3);
  CHECK(m.get_array<std::string>("tokenizer.ggml.merges").size() > 200000);
  CHECK(m.get_count("llama.vocab_size") == 128256);
  CHECK(type_of(f, "token_embd.weight") == "Q8_0");
}

TEST_CASE(
    "init --gguf: the file's own tokenizer gives the ids of the tokenizer.json init writes beside "
    "the folder") {
  TempDir tmp;
  for (const char* arch : {"llama", "qwen2", "gemma2", "phi3"}) {
    CAPTURE(arch);
    const std::string dims = "--d-model 32 --heads 4 --layers 1";
    const fs::path hf = init(tmp, arch, "", dims), gguf = init(tmp, arch, "Q8_0", dims);
    const auto ids = [&](const fs::path& model) {
      const auto r = run_attnviz(fmt::format(
          "tokenize --model '{}' --text 'Hi wörld, 12!' --format json", model.string()));
      REQUIRE_MESSAGE(r.exit_code == 0, r.err);
      nlohmann::json j = nlohmann::json::parse(r.out);
      j.erase("tokenizer");  // where the tokenizer came from: tokenizer.json or the GGUF metadata
      return j;
    };
    const nlohmann::json a = ids(gguf), b = ids(hf);
    CHECK(a.dump() == b.dump());
    CHECK(a["tokens"][0]["added"].get<bool>() ==
          (std::string(arch) != "qwen2"));  // the BOS, where the family has one
  }
}
