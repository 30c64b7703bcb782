// Hostile input at the command line: FIFOs, directories and devices where files are expected,
// escape sequences in tensor names and metadata, a bad font: each a clear error, never a hang.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "attnviz/io/safetensors.hpp"
#include "run_cli.hpp"

using namespace attnviz;
using attnviz::test::contains;
using attnviz::test::run_attnviz;
using attnviz::test::TempDir;

TEST_CASE(
    "cli hostile: a FIFO, a directory or a device where a file is read ends at once with exit 1") {
  TempDir dir;
  const std::string fifo = (dir / "fifo").string();
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  std::filesystem::create_directory(dir / "m");
  std::filesystem::copy_file("samples/mha/model.safetensors", dir / "m" / "model.safetensors");
  REQUIRE(mkfifo((dir / "m" / "config.json").c_str(), 0600) == 0);
  const std::string d = dir.path().string();
  struct Case {
    std::string args, message;
  };
  const Case cases[] = {
      {"run -m " + fifo + " -t samples/english.txt", fifo + ": not a regular file"},
      {"run -m " + d + "/m -t samples/english.txt", d + "/m/config.json: is not a regular file"},
      {"run -m samples/mha -t " + d, d + ": is a directory, expected a file"},
      {"run -m samples/mha -t " + fifo, fifo + ": is not a regular file"},
      {"run -m samples/mha -t /dev/zero", "/dev/zero: is not a regular file"},
      {"run -m samples/mha --embeddings " + fifo, fifo + ": is not a regular file"},
      {"run -m samples/mha --embeddings /dev/zero", "/dev/zero: is not a regular file"},
      {"run -m samples/mha -t samples/english.txt --layout-file " + d,
       d + ": is a directory, expected a file"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.args);
    const auto r = run_attnviz(c.args);
    CHECK(r.exit_code == 1);
    CHECK_MESSAGE(contains(r.err, "attnviz: error: " + c.message), r.err);
  }
}

TEST_CASE("cli hostile: escape sequences in tensor names and metadata are printed escaped") {
  TempDir dir;
  const std::string osc52 = "\x1b]52;c;aGk=\x07";  // would set the clipboard
  const std::vector<float> data(4, 0.5f);
  write_safetensors(dir / "m.safetensors", {{"w" + osc52, {2, 2}, data.data()}},
                    {{"note" + osc52, "x\x1b[2J"}});
  const auto r = run_attnviz("inspect " + (dir / "m.safetensors").string());
  CHECK_MESSAGE(r.exit_code == 1, r.err);  // printed in full, then refused: no layout fits
  CHECK(!contains(r.out, "\x1b"));
  CHECK(!contains(r.err, "\x1b"));
  CHECK(!contains(r.out, "\x07"));
  CHECK(contains(r.out, "w\\x1b]52;c;aGk=\\x07  F32"));  // the tensor row, escaped and aligned
  CHECK(contains(r.out, "note\\x1b]52;c;aGk=\\x07 = x\\x1b[2J"));  // the metadata line
  CHECK(contains(r.out, "no known layout fits these tensor names (w\\x1b]52;c;aGk=\\x07)"));
  const auto run =
      run_attnviz("run -m " + (dir / "m.safetensors").string() + " -t samples/english.txt");
  CHECK(run.exit_code == 1);
  CHECK(!contains(run.err, "\x1b"));
  CHECK(contains(run.err, "(w\\x1b]52;c;aGk=\\x07)"));
}

TEST_CASE("cli hostile: every error message is printed with control characters escaped") {
  TempDir dir;
  const std::string header =
      "{\"x\\u001b[2J\":{\"dtype\":\"Q9\",\"shape\":[],\"data_offsets\":[0,0]}}";
  std::string bytes(8, '\0');
  bytes[0] = static_cast<char>(header.size());
  std::ofstream(dir / "m.safetensors", std::ios::binary) << bytes << header;
  const auto r = run_attnviz("inspect " + (dir / "m.safetensors").string());
  CHECK(r.exit_code == 1);
  CHECK(!contains(r.err, "\x1b"));
  CHECK_MESSAGE(contains(r.err, "tensor 'x\\x1b[2J': unknown dtype 'Q9'"), r.err);
}

TEST_CASE("cli hostile: a truncated font given to --font is exit 1 naming the font file") {
  TempDir dir;
  const std::string real = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";  // fonts-dejavu-core
  REQUIRE(std::filesystem::exists(real));
  std::ofstream(dir / "cut.ttf", std::ios::binary) << attnviz::test::slurp(real).substr(0, 3000);
  std::filesystem::create_directory(dir / "png");
  const auto r =
      run_attnviz("run -m samples/mha -t samples/english.txt --no-heatmap --table none --png " +
                  (dir / "png").string() + " --font " + (dir / "cut.ttf").string());
  CHECK(r.exit_code == 1);
  CHECK_MESSAGE(
      contains(r.err, (dir / "cut.ttf").string() + ": not a usable TrueType/OpenType font"), r.err);
}

TEST_CASE(
    "cli hostile: a lone self-attention module whose k weight is not d_model wide is refused") {
  TempDir dir;
  const std::vector<float> data(64, 0.5f);
  write_safetensors(dir / "model.safetensors",
                    {{"q.weight", {8, 8}, data.data()},
                     {"k.weight", {8, 7}, data.data()},
                     {"v.weight", {8, 8}, data.data()},
                     {"out.weight", {8, 8}, data.data()}},
                    {{"n_heads", "2"}});
  const auto r = run_attnviz("run -m " + dir.path().string() + " -t samples/english.txt");
  CHECK(r.exit_code == 2);
  CHECK_MESSAGE(contains(r.err, "keys and values are 7 / 8 wide (kdim / vdim), not d_model 8"),
                r.err);
  CHECK(r.out.empty());
}
