// `attnviz inspect`: where the model came from, totals per dtype, config.json's model type and the
// tokenizer found (the tensor table and the detected config are tested in test_cli*.cpp).
#include <doctest/doctest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "run_cli.hpp"
#include "temp_dir.hpp"

using attnviz::test::contains;
using attnviz::test::run_attnviz;
using attnviz::test::TempDir;
namespace fs = std::filesystem;

namespace {

// A safetensors file by hand: the 8-byte little-endian header size, the header, then data_size
// bytes (a sparse file, so gigabytes cost no disk).
void write_raw_safetensors(const fs::path& path, const std::string& header, uint64_t data_size) {
  std::string size_bytes(8, '\0');
  for (int i = 0; i < 8; ++i)
    size_bytes[static_cast<size_t>(i)] = static_cast<char>((header.size() >> (8 * i)) & 0xff);
  std::ofstream(path, std::ios::binary) << size_bytes << header;
  fs::resize_file(path, 8 + header.size() + data_size);
}

}  // namespace

TEST_CASE("inspect: source, dtype totals, config.json and tokenizer of the GPT-2 fixture") {
  const auto r = run_attnviz("inspect tests/fixtures/torch/hf_gpt2");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.out.rfind("source: tests/fixtures/torch/hf_gpt2\n", 0) == 0);
  // By hand from config.json (n_embd 32, 2 layers, vocab 50, 64 positions; all F32): wte 50·32 =
  // 1600, wpe 64·32 = 2048, lm_head 50·32 = 1600, ln_f 2·32 = 64 (5 tensors); per layer (14
  // tensors) ln_1 + ln_2 4·32 = 128, c_attn 32·96 + 96 = 3168, attn.c_proj 32·32 + 32 = 1056, c_fc
  // 32·128 + 128 = 4224, mlp.c_proj 128·32 + 32 = 4128, the attn.bias buffer 64·64 = 4096,
  // masked_bias 1: 16801. 5312 + 2·16801 = 38914 parameters in 33 tensors, 4 bytes each = 155656
  // bytes (156 kB). (python3 reading the header agrees.)
  CHECK_MESSAGE(contains(r.out, "\ndtypes\n  F32: 33 tensors, 38,914 parameters (156 kB)\n\n"),
                r.out);
  CHECK(contains(r.out, "\nconfig.json: model_type gpt2, architectures GPT2LMHeadModel\n"));
  CHECK(contains(r.out, "\ntokenizer: none\n"));
}

TEST_CASE("inspect: mixed dtypes get a line each and a total, sizes in decimal units") {
  TempDir dir;
  // F16 [2, 3]: 6 elements, 12 bytes; F32 [5]: 5 elements, 20 bytes; together 11 and 32.
  write_raw_safetensors(dir / "mixed.safetensors",
                        R"({"a":{"dtype":"F16","shape":[2,3],"data_offsets":[0,12]},)"
                        R"("b":{"dtype":"F32","shape":[5],"data_offsets":[12,32]}})",
                        32);
  // Two lone tensors are no model attnviz runs: printed all the same, then exit 1.
  auto r = run_attnviz("inspect " + (dir / "mixed.safetensors").string());
  CHECK_MESSAGE(r.exit_code == 1, r.err);
  CHECK_MESSAGE(contains(r.out,
                         "\ndtypes\n  F16: 1 tensor, 6 parameters (12 bytes)\n"
                         "  F32: 1 tensor, 5 parameters (20 bytes)\n"
                         "  total: 2 tensors, 11 parameters (32 bytes)\n"),
                r.out);
  CHECK(contains(r.out, "\nconfig.json: none\n"));
  // Llama 3.2 1B's count, as one BF16 tensor: 1,235,814,400 · 2 bytes = 2,471,628,800 = 2.47 GB.
  write_raw_safetensors(
      dir / "big.safetensors",
      R"({"w":{"dtype":"BF16","shape":[1235814400],"data_offsets":[0,2471628800]}})", 2471628800u);
  r = run_attnviz("inspect " + (dir / "big.safetensors").string());
  CHECK_MESSAGE(r.exit_code == 1, r.err);
  CHECK_MESSAGE(contains(r.out, "  BF16: 1 tensor, 1,235,814,400 parameters (2.47 GB)\n"), r.out);
}

TEST_CASE(
    "inspect: a model it reports not runnable is printed in full, then exits 1 with the reason") {
  TempDir dir;
  // q/k/v/out of 4 × 4 and a config.json of 0 heads: attnviz reads it all, but cannot run it.
  std::string header = "{";
  for (const char* n : {"q", "k", "v", "out"}) {
    const size_t at = std::string("qkvo").find(n[0]) * 64;
    header += std::string(header.size() > 1 ? "," : "") + "\"" + n +
              ".weight\":{\"dtype\":\"F32\",\"shape\":[4,4],"
              "\"data_offsets\":[" +
              std::to_string(at) + "," + std::to_string(at + 64) + "]}";
  }
  write_raw_safetensors(dir / "model.safetensors", header + "}", 256);
  std::ofstream(dir / "config.json") << R"({"n_heads": 0})";
  const auto r = run_attnviz("inspect " + dir.path().string());
  CHECK(r.exit_code == 1);
  CHECK_MESSAGE(contains(r.out, "\nmodel: not runnable as it is: "), r.out);
  CHECK(contains(r.out, "q.weight"));                        // the tensors were listed
  CHECK(contains(r.out, "\nconfig.json: model_type none"));  // and what comes after the model line
  CHECK(contains(r.out, "\ntokenizer: none\n"));
  CHECK_MESSAGE(contains(r.err, "n_heads = 0: expected an integer in [1, "), r.err);
  // A runnable one still exits 0.
  CHECK(run_attnviz("inspect samples/mha --heads 4").exit_code == 0);
}

TEST_CASE(
    "inspect: an unknown --layout is a usage error (exit 2) before anything is printed, as in "
    "run") {
  const auto inspect = run_attnviz("inspect samples/mha --layout foo");
  CHECK(inspect.exit_code == 2);
  CHECK(inspect.out.empty());
  CHECK_MESSAGE(contains(inspect.err, "--layout"), inspect.err);
  CHECK(run_attnviz("run -m samples/mha -t samples/english.txt --layout foo").exit_code == 2);
}

TEST_CASE("inspect: --layout's help lists exactly the registered layouts") {
  const auto r = run_attnviz("run --help");
  REQUIRE(r.exit_code == 0);
  const size_t at = r.out.find("--layout ");
  REQUIRE(at != std::string::npos);
  const std::string help = r.out.substr(at, r.out.find("--layout-file") - at);
  // The names by hand (layouts.cpp's families), the Hugging Face ones included.
  for (const char* name : {"qkv-linears",
                           "annotated-transformer",
                           "fused-qkv",
                           "torch-mha",
                           "torch-encoder",
                           "torch-decoder",
                           "torch-transformer",
                           "nanogpt",
                           "gpt2",
                           "bert",
                           "llama",
                           "mistral",
                           "qwen2",
                           "qwen3",
                           " gemma,",
                           "gemma2",
                           "gemma3",
                           "phi3",
                           "marian",
                           "bart",
                           "mbart",
                           "m2m100",
                           "t5-gated",
                           "gru-bahdanau"}) {  // " gemma,": not gemma2's prefix
    CAPTURE(name);
    CHECK(contains(help, name));
  }
  // The tutorial modules' older names are listed as what they now are.
  for (const char* alias :
       {"seed000 = qkv-linears", "seed001 = annotated-transformer", "seed002 = fused-qkv"}) {
    CAPTURE(alias);
    CHECK(contains(help, alias));
  }
}
