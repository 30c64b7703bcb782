// `attnviz run --save` on a model and ids, and the comparison of what it saved with a reference:
// every map's probabilities within 1e-5 and hidden states within 1e-4 (scores hold -inf where
// masked).
#pragma once

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <filesystem>
#include <string>

#include "attnviz/io/safetensors.hpp"
#include "check_close.hpp"
#include "run_cli.hpp"

namespace attnviz::test {

inline SafetensorsFile run_and_save(const std::filesystem::path& model,
                                    const std::filesystem::path& ids,
                                    const std::filesystem::path& out) {
  const auto r =
      run_attnviz(fmt::format("run --model '{}' --ids '{}' --no-heatmap --table none --save '{}'",
                              model.string(), ids.string(), out.string()));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  return SafetensorsFile::open(out);
}

inline void check_saved_maps(const SafetensorsFile& actual, const SafetensorsFile& expected) {
  for (const auto& info : expected.tensors()) {
    if (!info.name.ends_with(".probs") && !info.name.ends_with("hidden")) continue;
    CAPTURE(info.name);
    REQUIRE(actual.find(info.name) != nullptr);
    const Tensor a = actual.load(info.name), e = expected.load(info.name);
    REQUIRE(a.shape == e.shape);
    const auto c = compare_close(a.data, e.data, info.name.ends_with(".probs") ? 1e-5f : 1e-4f,
                                 [](size_t i) { return std::to_string(i); });
    CHECK_MESSAGE(c.mismatches == 0, c.mismatches << " differ, max " << c.worst << "\n" << c.first);
  }
}

}  // namespace attnviz::test
