// What the input flags say about themselves: an empty --text is called empty (not missing), the
// hint for a missing input lists every input flag, a --text-file's final newline (which editors
// add) is no token, and --quiet silences notes but never warnings.
#include <doctest/doctest.h>

#include <fstream>
#include <string>

#include "run_cli.hpp"
#include "temp_dir.hpp"
#include "tiny_bpe.hpp"

using attnviz::test::contains;
using attnviz::test::make_tiny_bpe_model;
using attnviz::test::run_attnviz;
using attnviz::test::TempDir;

TEST_CASE(
    "input messages: --text '' is an empty text, and a missing input lists every input flag") {
  const auto empty = run_attnviz("run -m samples/mha --text ''");
  CHECK(empty.exit_code == 2);
  CHECK_MESSAGE(
      contains(empty.err, "attnviz: error: --text is empty: there is nothing to tokenize"),
      empty.err);
  const auto source =
      run_attnviz("run -m samples/transformer -t samples/cross/target.txt --source-text ''");
  CHECK(source.exit_code == 2);
  CHECK_MESSAGE(contains(source.err, "--source-text is empty"), source.err);
  const auto tokenize = run_attnviz("tokenize -m samples/mha --text ''");
  CHECK(tokenize.exit_code == 2);
  CHECK_MESSAGE(contains(tokenize.err, "--text is empty"), tokenize.err);
  const auto none = run_attnviz("run -m samples/mha");
  CHECK(none.exit_code == 2);
  CHECK_MESSAGE(
      contains(
          none.err,
          "no target input: give --text, --text-file, --tokens, --ids, --embeddings or --probe"),
      none.err);
}

TEST_CASE("input messages: --text-file drops one final newline (LF or CRLF), and only one") {
  TempDir dir;
  const std::string model = make_tiny_bpe_model(dir);
  const auto ids = [&](const std::string& content) {
    std::ofstream(dir / "t.txt", std::ios::binary) << content;
    const auto r = run_attnviz("tokenize -m '" + model + "' --text-file '" +
                               (dir / "t.txt").string() + "' --format csv");
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    std::string out;  // the id column
    size_t at = r.out.find('\n') + 1;
    while (at < r.out.size()) {
      const size_t comma = r.out.find(',', at);
      out += (out.empty() ? "" : " ") +
             r.out.substr(comma + 1, r.out.find(',', comma + 1) - comma - 1);
      at = r.out.find('\n', at) + 1;
    }
    return out;
  };
  CHECK(ids("ab abc") == "4 3 6");    // worked out in tiny_bpe.hpp
  CHECK(ids("ab abc\n") == "4 3 6");  // the editor's newline is no token
  CHECK(ids("ab abc\r\n") == "4 3 6");
  CHECK(ids("ab abc\n\n") == "4 3 6 8");  // a blank line the author typed stays: Ċ (id 8)
  CHECK(contains(run_attnviz("run --help").out, "one final newline"));
}

TEST_CASE("input messages: --quiet drops the notes of every command, never a warning") {
  const std::string input = " -m samples/mha -t samples/english.txt";
  for (const std::string command :
       {"run", "stats", "check", "heads", "explain --head 0", "residual", "rollout"}) {
    CAPTURE(command);
    const auto loud = run_attnviz(command + input);
    const auto quiet = run_attnviz(command + input + " --quiet");
    // samples/mha has no table: its tokens are hash vectors, which a note says
    CHECK_MESSAGE(contains(loud.err, "attnviz: note: "), loud.err);
    CHECK(!contains(quiet.err, "attnviz: note"));
    CHECK(quiet.exit_code == loud.exit_code);
    CHECK(quiet.out == loud.out);
  }
  // The all-zero mask's warning stays under --quiet.
  const auto warned = run_attnviz(
      "run -m samples/mha -t - --mask samples/mask_all_zeros.txt --no-heatmap -q", "a b c d");
  CHECK(warned.exit_code == 0);
  CHECK(!contains(warned.err, "attnviz: note"));
  CHECK(contains(warned.err, "attnviz: warning: layer0.self: every key is masked"));
}
