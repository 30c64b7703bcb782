// End-to-end tests of the figure and terminal outputs through the attnviz binary: the files --png
// writes, --font errors, and a broken pipe (`| head -1`) exiting quietly.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "attnviz/core/unicode.hpp"
#include "run_cli.hpp"
#include "temp_dir.hpp"

using attnviz::test::run_attnviz;
using attnviz::test::TempDir;

TEST_CASE("render cli: --png writes per-head figures, a mask figure, the grid, raw images") {
  TempDir dir;
  const auto r = run_attnviz(
      "run -m samples/mha -t samples/chinese.txt --causal --table none "
      "--no-heatmap --png-raw --scale shared --log --cmap inferno --png '" +
      dir.path().string() + "'");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  for (const char* name : {"layer0.self.head0.png", "layer0.self.head3.png",
                           "layer0.self.head0.raw.png", "layer0.self.mask.png", "self.grid.png"}) {
    CHECK_MESSAGE(std::filesystem::file_size(dir / name) > 1000, name);
  }
  CHECK_FALSE(std::filesystem::exists(dir / "cross.grid.png"));
}

TEST_CASE("render cli: an unknown --font or --pool is a usage error (exit 2)") {
  TempDir dir;
  const auto r = run_attnviz(
      "run -m samples/mha -t samples/english.txt --table none --no-heatmap "
      "--font 'No Such Font 123' --png '" +
      dir.path().string() + "'");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("No Such Font 123") != std::string::npos);
  CHECK(run_attnviz("run -m samples/mha -t samples/english.txt --pool median").exit_code == 2);
}

TEST_CASE("render cli: `attnviz run | head -1` exits quietly") {
  TempDir dir;
  {  // 300 tokens: the tables far exceed a pipe's 64 KiB buffer, so writes really hit EPIPE
    std::ofstream tokens(dir / "tokens.txt");
    for (int k = 0; k < 300; ++k) tokens << "w" << k << ' ';
  }
  // std::system runs /bin/sh, which has no pipefail: the left side records its own exit code.
  const std::string cmd = std::string("cd '") + ATTNVIZ_SOURCE_DIR + "' && { '" + ATTNVIZ_BINARY +
                          "' run -m samples/mha -t '" + (dir / "tokens.txt").string() +
                          "' --table both --color=always"
                          " 2>'" +
                          (dir / "err").string() + "'; echo $? >'" + (dir / "rc").string() +
                          "'; } | head -1 >/dev/null";
  REQUIRE(std::system(cmd.c_str()) == 0);
  const std::string rc = attnviz::test::slurp(dir / "rc");
  CHECK((rc == "0\n" || rc == "141\n"));
  // Nothing on stderr but the note that the sample's tokens are hash-embedded: no EPIPE message.
  std::string err = attnviz::test::slurp(dir / "err");
  const std::string note = "attnviz: note: mha has no token embedding table";
  if (err.starts_with(note)) err.erase(0, err.find('\n') + 1);
  CHECK(err == "");
}

TEST_CASE("render cli: --format markdown prints a GitHub table, colour paints table cells") {
  const auto md =
      run_attnviz("run -m samples/mha -t samples/english.txt --causal --head 0 --format markdown");
  REQUIRE(md.exit_code == 0);
  CHECK(md.out.find(
            "**mha · layer 0 · self · head 0 · weights (softmax)**\n\n| query | The | cat |") == 0);
  CHECK(md.out.find("|---|---:|---:|") != std::string::npos);
  CHECK(md.out.find("| The | 1.000 | - | - |") != std::string::npos);
  const auto coloured = run_attnviz(
      "run -m samples/mha -t samples/english.txt --causal --head 0 "
      "--no-heatmap --color=always");
  REQUIRE(coloured.exit_code == 0);
  CHECK(coloured.out.find("\x1b[30;48;5;") != std::string::npos);  // a light cell, dark text
  const auto plain = run_attnviz(
      "run -m samples/mha -t samples/english.txt --causal --head 0 "
      "--no-heatmap --color=never");
  CHECK(plain.out.find('\x1b') == std::string::npos);
}

TEST_CASE(
    "render cli: every site's heads side by side within --width, each followed by its table") {
  const auto r = run_attnviz(
      "run -m samples/transformer -t samples/cross/target.txt --source-tokens "
      "samples/cross/source.txt --color=never --width 60");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  size_t at = 0;
  for (const char* site :
       {"encoder · layer 0 · self", "encoder · layer 1 · self", "decoder · layer 0 · self",
        "decoder · layer 0 · cross", "decoder · layer 1 · self", "decoder · layer 1 · cross"}) {
    CAPTURE(site);
    at = r.out.find(std::string("transformer · ") + site + " · mask: ", at);  // the heatmaps
    REQUIRE(at != std::string::npos);
    at = r.out.find(std::string("transformer · ") + site + " · head 0 · weights", at);  // the table
    REQUIRE(at != std::string::npos);
  }
  const auto heatmaps = run_attnviz(
      "run -m samples/transformer -t samples/cross/target.txt "
      "--source-tokens samples/cross/source.txt --color=never "
      "--width 60 --table none --layer 1 --site cross");
  REQUIRE(heatmaps.exit_code == 0);
  CHECK(heatmaps.out.find("transformer · decoder · layer 1 · cross · mask: none\n") == 0);
  CHECK(heatmaps.out.find("head 3") != std::string::npos);
  CHECK(heatmaps.out.find("layer 0") == std::string::npos);
  std::istringstream lines(heatmaps.out);
  for (std::string line; std::getline(lines, line);) {
    CAPTURE(line);
    CHECK(attnviz::display_width(line) <= 60);
  }
}

TEST_CASE(
    "render cli: titles name a model file by its stem, a checkpoint's generic file by its folder") {
  TempDir dir;
  std::filesystem::copy("tests/fixtures/gguf_models/qwen3-Q4_K_M.gguf", dir / "qwen3-Q4_K_M.gguf");
  auto r = run_attnviz("run -m '" + (dir / "qwen3-Q4_K_M.gguf").string() +
                       "' --ids '1 2 3' --table none --color never");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.out.rfind("qwen3-Q4_K_M · layer 0", 0) == 0);
  std::filesystem::create_directories(dir / "my-mha");
  std::filesystem::copy("samples/mha/model.safetensors", dir / "my-mha" / "model.safetensors");
  std::filesystem::copy("samples/mha/config.json", dir / "my-mha" / "config.json");
  r = run_attnviz("run -m '" + (dir / "my-mha" / "model.safetensors").string() +
                  "' -t samples/english.txt --table none --color never --head 0");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.out.rfind("my-mha · layer 0", 0) == 0);
  std::filesystem::copy("samples/mha/model.safetensors", dir / "m.safetensors");
  std::filesystem::copy("samples/mha/config.json", dir / "config.json");
  r = run_attnviz("run -m '" + (dir / "m.safetensors").string() +
                  "' -t samples/english.txt --table none --color never --head 0");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.out.rfind("m · layer 0", 0) == 0);
}
