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
  for (int i = 0; i < 8; ++i) size_bytes[static_cast<size_t>(i)] = static_cast<char>((header.size() >> (8 * i)) & 0xff);
  std::ofstream(path, std::ios::binary) << size_bytes << header;
  fs::resize_file(path, 8 + header.size() + data_size);
}

}  // namespace

TEST_CASE("inspect: source, dtype totals, config.json and tokenizer of the GPT-2 fixture") {
  const auto r = run_attnviz("inspect tests/fixtures/torch/hf_gpt2");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.out.rfind("source: tests/fixtures/torch/hf_gpt2\n", 0) == 0);
  // By hand from config.json (n_embd 32, 2 layers, vocab 50, 64 positions; all F32): wte 50·32 =
  // 1600, wpe 64·32 = 2048, lm_head 50·32 = 1600, ln_f 2·32 = 64 (5 tensors); per layer (14 tensors)
  // ln_1 + ln_2 4·32 = 128, c_attn 32·96 + 96 = 3168, attn.c_proj 32·32 + 32 = 1056, c_fc 32·128 +
  // 128 = 4224, mlp.c_proj 128·32 + 32 = 4128, the attn.bias buffer 64·64 = 4096, masked_bias 1:
  // 16801. 5312 + 2·16801 = 38914 parameters in 33 tensors, 4 bytes each = 155656 bytes (156 kB).
  // (python3 reading the header agrees.)
  CHECK_MESSAGE(contains(r.out, "\ndtypes\n  F32: 33 tensors, 38,914 parameters (156 kB)\n\n"), r.out);
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
  auto r = run_attnviz("inspect " + (dir / "mixed.safetensors").string());
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK_MESSAGE(contains(r.out, "\ndtypes\n  F16: 1 tensor, 6 parameters (12 bytes)\n"
                                "  F32: 1 tensor, 5 parameters (20 bytes)\n"
                                "  total: 2 tensors, 11 parameters (32 bytes)\n"),
                r.out);
  CHECK(contains(r.out, "\nconfig.json: none\n"));
  // Llama 3.2 1B's count, as one BF16 tensor: 1,235,814,400 · 2 bytes = 2,471,628,800 = 2.47 GB.
  write_raw_safetensors(dir / "big.safetensors",
                        R"({"w":{"dtype":"BF16","shape":[1235814400],"data_offsets":[0,2471628800]}})",
                        2471628800u);
  r = run_attnviz("inspect " + (dir / "big.safetensors").string());
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK_MESSAGE(contains(r.out, "  BF16: 1 tensor, 1,235,814,400 parameters (2.47 GB)\n"), r.out);
}
