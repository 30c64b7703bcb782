// `attnviz diff -m M … --b-…`: the two runs of an inline diff, each saved (f32) into a private temp
// folder that is removed afterwards (and on SIGINT/SIGTERM), so the diff reads them like two
// --save files.
#pragma once

#include <filesystem>
#include <string>

#include "attnviz/cli/run_args.hpp"

namespace attnviz::detail {

// The temp folder with a.safetensors and b.safetensors, and what each run was, for titles.
class InlineRuns {
 public:
  InlineRuns(const InputArgs& a, const RunBFlags& b);
  ~InlineRuns();
  InlineRuns(const InlineRuns&) = delete;
  InlineRuns& operator=(const InlineRuns&) = delete;
  std::filesystem::path a() const { return dir_ / "a.safetensors"; }
  std::filesystem::path b() const { return dir_ / "b.safetensors"; }
  const std::string& name_a() const { return name_a_; }
  const std::string& name_b() const { return name_b_; }

 private:
  void remove();
  std::filesystem::path dir_;
  int slot_ = -1;
  std::string name_a_, name_b_;
};

// B's input arguments: A's with the B flags applied.
InputArgs run_b_args(const InputArgs& a, const RunBFlags& b);

}  // namespace attnviz::detail
