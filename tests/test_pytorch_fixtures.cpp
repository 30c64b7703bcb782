// Every case of tests/fixtures/torch/cases.json (made by make_fixtures.py from PyTorch) run through
// the attnviz binary: `attnviz run <args> --save out.safetensors` must hold each expected tensor,
// same shape, max abs difference <= 1e-5 on *.probs and <= 1e-4 on *hidden.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "attnviz/core/tensor.hpp"
#include "attnviz/io/safetensors.hpp"
#include "check_close.hpp"
#include "run_cli.hpp"
#include "temp_dir.hpp"

using attnviz::SafetensorsFile;
using attnviz::Tensor;
using attnviz::test::TempDir;

namespace {

const std::filesystem::path k_root = ATTNVIZ_SOURCE_DIR;
constexpr float k_probs_tolerance = 1e-5f;
constexpr float k_hidden_tolerance = 1e-4f;

struct Case {
  std::string name;
  std::string model;
  std::vector<std::string> args;
  std::string expected;
  std::string what;
};

std::vector<Case> load_cases() {
  const auto path = k_root / "tests/fixtures/torch/cases.json";
  std::ifstream in(path);
  REQUIRE_MESSAGE(in.good(),
                  "cannot open " << path.string() << " (run tests/fixtures/make_fixtures.py)");
  const auto json = nlohmann::json::parse(in);
  std::vector<Case> cases;
  for (const auto& c : json) {
    cases.push_back({c.at("name"), c.at("model"), c.at("args"), c.at("expected"), c.at("what")});
  }
  return cases;
}

// Single-quoted shell words (run_attnviz passes its argument string to the shell).
std::string shell_words(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) {
    std::string quoted = "'";
    for (char ch : w) quoted += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
    out += (out.empty() ? "" : " ") + quoted + "'";
  }
  return out;
}

// "[1, 2, 3]" from a flat index into a row-major tensor of this shape.
std::string index_string(int64_t flat, const std::vector<int64_t>& shape) {
  std::vector<int64_t> idx(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    idx[d] = flat % shape[d];
    flat /= shape[d];
  }
  return fmt::format("[{}]", fmt::join(idx, ", "));
}

// Compares one tensor; on failure reports the first 5 mismatches (index, actual, expected) and the
// max. Returns whether it matched.
bool compare_tensor(const std::string& what, const Tensor& actual, const Tensor& expected,
                    float tolerance) {
  if (actual.shape != expected.shape) {
    FAIL_CHECK(what << ": shape " << attnviz::shape_string(actual.shape) << ", expected "
                    << attnviz::shape_string(expected.shape));
    return false;
  }
  const auto r = attnviz::test::compare_close(actual.data, expected.data, tolerance, [&](size_t i) {
    return index_string(static_cast<int64_t>(i), expected.shape);
  });
  CHECK_MESSAGE(r.mismatches == 0, what << ": " << r.mismatches << " elements differ by more than "
                                        << tolerance << ", max abs diff " << r.worst << "\n"
                                        << r.first);
  return r.mismatches == 0;
}

std::string tensor_names(const SafetensorsFile& file) {
  std::vector<std::string> names;
  for (const auto& t : file.tensors()) names.push_back(t.name);
  return fmt::format("{}", fmt::join(names, ", "));
}

// Runs one case; every failure is a non-fatal check naming the case, so all cases report.
bool run_case(const Case& c) {
  TempDir tmp;
  const auto out_path = tmp / "out.safetensors";
  std::vector<std::string> args{"run", "--model", c.model};
  args.insert(args.end(), c.args.begin(), c.args.end());
  args.insert(args.end(), {"--save", out_path.string()});
  const std::string command = shell_words(args);
  const auto r = attnviz::test::run_attnviz(command);
  if (r.exit_code != 0) {
    FAIL_CHECK("case " << c.name << " (" << c.what << "): attnviz exited " << r.exit_code
                       << "\n  attnviz " << command << "\n  stderr: " << r.err);
    return false;
  }
  if (!std::filesystem::exists(out_path)) {
    FAIL_CHECK("case " << c.name << ": exit 0 but --save wrote nothing");
    return false;
  }
  const auto actual = SafetensorsFile::open(out_path);
  const auto expected = SafetensorsFile::open(k_root / c.expected);
  bool ok = true;
  for (const auto& info : expected.tensors()) {
    const std::string what = c.name + " " + info.name;
    if (actual.find(info.name) == nullptr) {
      FAIL_CHECK(what << ": missing from the --save output, which holds: " << tensor_names(actual));
      ok = false;
      continue;
    }
    const bool is_probs = info.name.ends_with(".probs");
    ok &= compare_tensor(what, actual.load(info.name), expected.load(info.name),
                         is_probs ? k_probs_tolerance : k_hidden_tolerance);
  }
  return ok;
}

}  // namespace

TEST_CASE("pytorch fixtures: cases.json is well formed and names files that exist") {
  const auto cases = load_cases();
  CHECK(cases.size() >= 18);
  for (const auto& c : cases) {
    CAPTURE(c.name);
    CHECK(std::filesystem::exists(k_root / c.model));
    CHECK(std::filesystem::exists(k_root / c.expected));
    for (const auto& a : c.args) {
      if (a.starts_with("tests/")) CHECK_MESSAGE(std::filesystem::exists(k_root / a), a);
    }
    const auto expected = SafetensorsFile::open(k_root / c.expected);
    CHECK(expected.find("hidden") != nullptr);
    bool has_probs = false;
    for (const auto& t : expected.tensors())
      has_probs |= t.name.ends_with(".probs") && t.shape.size() == 3;
    CHECK(has_probs);
  }
}

TEST_CASE("pytorch fixtures: attnviz run --save matches PyTorch on every case of cases.json") {
  std::vector<std::string> passed, failed;
  for (const auto& c : load_cases()) {
    CAPTURE(c.name);
    (run_case(c) ? passed : failed).push_back(c.name);
  }
  MESSAGE(fmt::format("{} cases match PyTorch: {}", passed.size(), fmt::join(passed, " ")));
  CHECK_MESSAGE(failed.empty(),
                fmt::format("{} cases differ: {}", failed.size(), fmt::join(failed, " ")));
}
