// A byte-level BPE tokenizer written by hand (GPT-2's vocab.json + merges.txt), so every id in the
// tests that use it is worked out on paper, and a GPT-2-shaped model with a table of its 9 ids.
#pragma once

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "run_cli.hpp"
#include "temp_dir.hpp"

namespace attnviz::test {

// "Ġ" and "Ċ" are the byte-level forms of a space and a newline. "ab abc" pre-tokenizes as "ab", "
// abc" (GPT-2's regex: ` ?\p{L}+`):
//   "ab":   a b → merge (a, b), rank 0 → ab                       → [4]
//   " abc": Ġ a b c → lowest rank among (Ġ,a)=1, (a,b)=0 → Ġ ab c
//           → (ab, c)=2 → Ġ abc → (Ġ, abc) is no merge            → [3, 6]
// so "ab abc" is [4, 3, 6] (tokens ab, Ġ, abc); a final "\n" is one more piece, Ċ = 8.
inline void write_tiny_bpe(const std::filesystem::path& dir) {
  std::ofstream(dir / "vocab.json")
      << R"({"a": 0, "b": 1, "c": 2, "\u0120": 3, "ab": 4, "\u0120a": 5, "abc": 6, "\u0120ab": 7, "\u010a": 8})";
  std::ofstream(dir / "merges.txt") << "#version: 0.2\na b\n\u0120 a\nab c\n\u0120a b\n";
}

// A GPT-2-shaped model of 9 table rows (one per token of the tokenizer) with the tokenizer beside
// it.
inline std::string make_tiny_bpe_model(const TempDir& dir, const std::string& name = "m") {
  std::ofstream(dir / "tokens.txt") << "t0 t1 t2 t3 t4 t5 t6 t7 t8\n";
  const std::string model = (dir / name).string();
  const auto init = run_attnviz(
      "init -o '" + model + "' --arch gpt2 --d-model 8 --heads 2 --layers 1 --seed 3 --vocab '" +
      (dir / "tokens.txt").string() + "'");
  REQUIRE_MESSAGE(init.exit_code == 0, init.err);
  write_tiny_bpe(dir / name);
  return model;
}

}  // namespace attnviz::test
