// `attnviz inspect` on a GGUF file: format line, file type named as llama.cpp names it, tensor
// table, quantisation mix and metadata, with the file's strings escaped and long arrays cut.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "attnviz/io/gguf/gguf.hpp"
#include "attnviz/io/gguf/gguf_file_type.hpp"
#include "attnviz/io/gguf/gguf_write.hpp"
#include "run_cli.hpp"
#include "temp_dir.hpp"

using attnviz::test::contains;
using attnviz::test::run_attnviz;

namespace {

uint32_t type_of(attnviz::GgmlType t) {
  return static_cast<uint32_t>(t);
}

// A Q4_K_M-style mix: Q4_K and Q6_K matrices, an F32 norm; 300 tokens; hostile bytes in a key's
// string and a tensor's name.
void write_q4_k_m_style(const std::filesystem::path& path) {
  using namespace attnviz;
  GgufWriter w;
  w.set("general.architecture", gguf_string("llama"));
  w.set("general.name", gguf_string("tiny\x1b]52;c;AAAA\x07"));
  w.set("general.file_type", gguf_scalar<uint32_t>(15));
  std::vector<std::string> tokens;
  for (int i = 0; i < 300; ++i) tokens.push_back("t" + std::to_string(i));
  w.set("tokenizer.ggml.tokens", gguf_strings(tokens));
  w.set("tokenizer.chat_template", gguf_string(std::string(500, 'x')));
  const std::vector<float> m(256 * 4, 0.5f), norm(256, 1.0f);
  w.add_tensor("blk.0.attn_q.weight", {256, 4}, type_of(GgmlType::Q4_K), m);    // 4 · 144 bytes
  w.add_tensor("blk.0.ffn_down.weight", {256, 4}, type_of(GgmlType::Q6_K), m);  // 4 · 210 bytes
  w.add_tensor("blk.0.attn_norm.weight\x1b[2J", {256}, type_of(GgmlType::F32), norm);
  w.write(path);
}

}  // namespace

TEST_CASE("inspect gguf: format, file type, tensors, the quantisation mix and escaped metadata") {
  attnviz::test::TempDir dir;
  write_q4_k_m_style(dir / "m.gguf");
  const auto r = run_attnviz("inspect " + (dir / "m.gguf").string());
  CHECK(r.exit_code == 1);  // printed in full, then refused: it is no model attnviz runs
  CHECK_MESSAGE(contains(r.out, "\nmodel: not runnable as it is: "), r.out);
  // Q4_K: 4 rows of one 144-byte block = 576 bytes; Q6_K: 4 · 210 = 840; F32: 256 · 4 = 1,024.
  CHECK_MESSAGE(contains(r.out, "format: GGUF v3, alignment 32, tensor data at byte "), r.out);
  CHECK(contains(r.out, "architecture: \"llama\", name: \"tiny\\x1b]52;c;AAAA\\x07\"\n"));
  CHECK(contains(r.out, "file type: MOSTLY_Q4_K_M (general.file_type = 15)\n"));
  CHECK(contains(r.out, "3 tensors, 2,304 parameters\n"));  // 1,024 + 1,024 + 256
  CHECK(contains(r.out, "blk.0.attn_norm.weight\\x1b[2J  F32 "));
  CHECK(contains(r.out,
                 "\ntypes\n  F32: 1 tensor, 256 parameters (1.02 kB)\n"
                 "  Q4_K: 1 tensor, 1,024 parameters (576 bytes)\n"
                 "  Q6_K: 1 tensor, 1,024 parameters (840 bytes)\n"
                 "  total: 3 tensors, 2,304 parameters (2.44 kB)\n"));
  CHECK(contains(r.out,
                 "  tokenizer.ggml.tokens: arr[str] × 300 = [\"t0\", \"t1\", \"t2\", \"t3\", "
                 "\"t4\", \"t5\", \"t6\", \"t7\", …]\n"));
  CHECK(contains(
      r.out, "  tokenizer.chat_template: str = \"" + std::string(79, 'x') + "…\" (500 bytes)\n"));
  CHECK(contains(r.out, "  general.file_type: u32 = 15\n"));
  CHECK(!contains(r.out, "\x1b"));  // no raw escape byte reaches the terminal
}

TEST_CASE("inspect gguf: quotes and backslashes in strings are escaped, a file without tensors") {
  attnviz::test::TempDir dir;
  attnviz::GgufWriter w;
  w.set("tokenizer.ggml.tokens", attnviz::gguf_strings({"\"", "\\n", "\n"}));
  w.write(dir / "v.gguf");
  const auto r = run_attnviz("inspect " + (dir / "v.gguf").string());
  CHECK(r.exit_code == 1);  // printed, then refused as a model
  // The token `"`, the two characters `\n`, and a newline: three different strings, three texts.
  CHECK_MESSAGE(
      contains(r.out, "  tokenizer.ggml.tokens: arr[str] × 3 = [\"\\\"\", \"\\\\n\", \"\\n\"]\n"),
      r.out);
  CHECK(contains(r.out, "\n0 tensors, 0 parameters\n"));
  CHECK(contains(r.out, "\ntypes\n  none\n"));
}

TEST_CASE("inspect gguf: a file the reader refuses is an error naming it, exit 1") {
  attnviz::test::TempDir dir;
  std::ofstream(dir / "bad.gguf", std::ios::binary) << std::string("GGUF\x07\0\0\0", 8);
  const auto r = run_attnviz("inspect " + (dir / "bad.gguf").string());
  CHECK(r.exit_code == 1);
  CHECK_MESSAGE(contains(r.err, "bad.gguf"), r.err);
  CHECK(r.out.empty());
}

TEST_CASE("inspect gguf: llama.cpp's file type names") {
  CHECK(attnviz::llama_file_type_name(0) == "ALL_F32");
  CHECK(attnviz::llama_file_type_name(7) == "MOSTLY_Q8_0");
  CHECK(attnviz::llama_file_type_name(15) == "MOSTLY_Q4_K_M");
  CHECK(attnviz::llama_file_type_name(18) == "MOSTLY_Q6_K");
  CHECK(attnviz::llama_file_type_name(32) == "MOSTLY_BF16");
  CHECK(attnviz::llama_file_type_name(5).empty());  // Q4_2, removed
  CHECK(attnviz::llama_file_type_name(1024) == "GUESSED");
  CHECK(attnviz::llama_file_type_name(5000).empty());
}

TEST_CASE("inspect gguf: the file's own tokenizer and the model it runs as") {
  const auto r = run_attnviz("inspect tests/fixtures/gguf_models/llama-Q4_K_M.gguf");
  CHECK_MESSAGE(r.exit_code == 0, r.err);
  // 280 tokens and 20 merges: the generator's vocabulary (tests/fixtures/gguf_models/tokenizer.py).
  CHECK_MESSAGE(
      contains(
          r.out,
          "tokenizer: GGUF tokenizer (gpt2: byte-level BPE, pre-tokenizer default, 280 tokens, "
          "20 merges)"),
      r.out);
  CHECK(contains(r.out, "model: layout llama, decoder, 1 layer, d_model 256"));
}
