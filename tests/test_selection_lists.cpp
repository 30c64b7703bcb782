// --layer and --head take lists and ranges ("0,2-3", "-1" for the last): parsed against the model's
// counts, refused with the count when out of range, and applied by every output (here --save, whose
// tensors are compared slot by slot with a save of every head).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "attnviz/core/error.hpp"
#include "attnviz/event/selection.hpp"
#include "attnviz/io/safetensors.hpp"
#include "run_cli.hpp"
#include "temp_dir.hpp"

using namespace attnviz;
using attnviz::test::contains;
using attnviz::test::run_attnviz;
using attnviz::test::TempDir;

namespace {

std::string refusal(const std::string& spec, int count) {
  try {
    parse_index_list(spec, count, "--layer", "layer");
  } catch (const Error& e) {
    CHECK(e.exit_code() == k_exit_usage);
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("selection lists: parse_index_list reads indices, ranges and counts from the end") {
  CHECK(parse_index_list("3", 4, "--layer", "layer").indices() == std::vector<int>{3});
  CHECK(parse_index_list("0,2-3", 4, "--layer", "layer").indices() == std::vector<int>{0, 2, 3});
  CHECK(parse_index_list("-1", 4, "--layer", "layer").indices() == std::vector<int>{3});
  CHECK(parse_index_list("-2--1", 4, "--layer", "layer").indices() == std::vector<int>{2, 3});
  CHECK(parse_index_list("1--1", 4, "--layer", "layer").indices() == std::vector<int>{1, 2, 3});
  CHECK(parse_index_list("3,0,3", 4, "--layer", "layer").indices() ==
        std::vector<int>{0, 3});  // sorted, once
  CHECK(refusal("4", 4) == "--layer 4: the model has 4 layers (0\u20133)");
  CHECK(refusal("-5", 4) == "--layer -5: the model has 4 layers (0\u20133)");
  CHECK(refusal("0,7", 4) == "--layer 0,7: 7 is out of range: the model has 4 layers (0\u20133)");
  CHECK(refusal("3-1", 4) == "--layer 3-1: the range 3-1 runs downward");
  for (const std::string bad : {"", "x", "1,", "1-", "-", "1.5", "0x1", "1 2"}) {
    CAPTURE(bad);
    CHECK(contains(refusal(bad, 4),
                   "expected layer numbers and ranges, such as 3, 0,3-5 or -1 (the last)"));
  }
  const IndexSet all;
  CHECK((!all && all.contains(7)));
  const IndexSet one = 2;
  CHECK((one && one.contains(2) && !one.contains(1)));
}

TEST_CASE(
    "selection lists: run --save keeps the layers and heads a list names, each head's map "
    "unchanged") {
  TempDir dir;
  const std::string model = (dir / "m").string();
  REQUIRE(run_attnviz("init --arch decoder -o '" + model +
                      "' --d-model 8 --heads 4 --layers 4 --seed 2")
              .exit_code == 0);
  const std::string run =
      "run -m '" + model + "' -t samples/english.txt --no-heatmap --table none --save ";
  REQUIRE(run_attnviz(run + "'" + (dir / "all.safetensors").string() + "'").exit_code == 0);
  const auto some =
      run_attnviz(run + "'" + (dir / "some.safetensors").string() + "' --layer 0,2-3 --head 1,-1");
  REQUIRE_MESSAGE(some.exit_code == 0, some.err);
  const SafetensorsFile all = SafetensorsFile::open(dir / "all.safetensors");
  const SafetensorsFile kept = SafetensorsFile::open(dir / "some.safetensors");
  CHECK(kept.find("layer1.self.probs") == nullptr);
  for (const std::string map : {"layer0.self", "layer2.self", "layer3.self"}) {
    CAPTURE(map);
    REQUIRE(kept.find(map + ".probs") != nullptr);
    CHECK(kept.metadata().at(map + ".heads") == "[1,3]");
    const Tensor whole = all.load(map + ".probs"), part = kept.load(map + ".probs");
    REQUIRE(part.shape == std::vector<int64_t>{2, whole.shape[1], whole.shape[2]});
    const size_t cells = static_cast<size_t>(whole.shape[1] * whole.shape[2]);
    const auto head = [&](const Tensor& t, size_t slot) {
      return std::vector<float>(t.data.begin() + slot * cells, t.data.begin() + (slot + 1) * cells);
    };
    CHECK(head(part, 0) == head(whole, 1));
    CHECK(head(part, 1) == head(whole, 3));
  }
  // diff reads such a file: its heads are the ones its metadata names.
  const auto diff =
      run_attnviz("diff '" + (dir / "some.safetensors").string() + "' '" +
                  (dir / "some.safetensors").string() + "' --head 3 --layer -1 --format csv");
  CHECK_MESSAGE(diff.exit_code == 0, diff.err);
  CHECK(contains(diff.out, "layer3.self"));
  CHECK(!contains(diff.out, "layer2.self"));
}

TEST_CASE(
    "selection lists: out of range, downward or malformed lists exit 2 before the model runs") {
  const std::string run =
      "run -m samples/transformer -t samples/cross/target.txt --source-tokens "
      "samples/cross/source.txt ";
  const auto past = run_attnviz(run + "--layer 0,2");
  CHECK(past.exit_code == 2);
  CHECK(past.err ==
        "attnviz: error: --layer 0,2: 2 is out of range: the model has 2 layers (0\u20131)\n");
  const auto head = run_attnviz(run + "--head -5");
  CHECK(head.exit_code == 2);
  CHECK(head.err == "attnviz: error: --head -5: the model has 4 heads (0\u20133)\n");
  const auto bad = run_attnviz(run + "--layer one");
  CHECK(bad.exit_code == 2);
  CHECK(contains(bad.err, "--layer one: expected layer numbers and ranges"));
  CHECK(run_attnviz(run + "--head 1,2 --format csv").exit_code == 2);  // csv holds one table
}
