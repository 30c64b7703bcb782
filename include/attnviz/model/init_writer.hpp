// Collecting the tensors of a random model before they are written (init's scratch space): what a
// family record's own `init` writer fills.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "attnviz/core/random.hpp"

namespace attnviz {

// The sizes `attnviz init` was given: widths, layers, the token table's rows (0: no table) and the
// learned positions' rows (0: none).
struct InitDims {
  int d, heads, d_ff, layers, vocab, positions;
};

class InitWriter {
 public:
  explicit InitWriter(uint64_t seed) : rng_(seed) {}

  struct Named {
    std::string name;
    std::vector<int64_t> shape;
    std::vector<float> data;
  };

  // nn.Linear(in, out): weight [out, in] and bias [out] ~ U(-1/√in, 1/√in), named
  // name.weight / name.bias (or name_weight / name_bias, as nn.MultiheadAttention's in_proj).
  void torch_linear(const std::string& name, int in, int out, const char* sep = ".") {
    const float bound = 1.0f / std::sqrt(static_cast<float>(in));
    fill(name + sep + "weight", {out, in}, [&] { return rng_.uniform(-bound, bound); });
    fill(name + sep + "bias", {out}, [&] { return rng_.uniform(-bound, bound); });
  }
  // HF Conv1D(out, in): weight stored [in, out] ~ N(0, 0.02), bias 0.
  void hf_conv1d(const std::string& name, int in, int out) {
    fill(name + ".weight", {in, out}, [&] { return 0.02f * rng_.normal(); });
    constant(name + ".bias", {out}, 0.0f);
  }
  // HF nn.Linear: weight [out, in] ~ N(0, 0.02), bias 0.
  void hf_linear(const std::string& name, int in, int out) {
    fill(name + ".weight", {out, in}, [&] { return 0.02f * rng_.normal(); });
    constant(name + ".bias", {out}, 0.0f);
  }
  // HF nn.Linear(bias=False): weight [out, in] ~ N(0, 0.02).
  void hf_weight(const std::string& name, int in, int out) {
    fill(name + ".weight", {out, in}, [&] { return 0.02f * rng_.normal(); });
  }
  // A norm's gain alone (RMSNorm): 1, or 0 for Gemma's (1 + w).
  void gain(const std::string& name, int d, float value) { constant(name + ".weight", {d}, value); }
  void layer_norm(const std::string& name, int d) {
    constant(name + ".weight", {d}, 1.0f);
    constant(name + ".bias", {d}, 0.0f);
  }
  void embedding(const std::string& name, int rows, int d, float std_dev) {
    fill(name, {rows, d}, [&] { return std_dev * rng_.normal(); });
  }
  // Any shape: N(0, std_dev) (HF's trunc_normal_(std=0.02), whose ±2 bounds are 100σ away), or 0.
  void normal(const std::string& name, std::vector<int64_t> shape, float std_dev) {
    fill(name, std::move(shape), [&] { return std_dev * rng_.normal(); });
  }
  void zeros(const std::string& name, std::vector<int64_t> shape) {
    constant(name, std::move(shape), 0.0f);
  }
  const std::vector<Named>& tensors() const { return tensors_; }
  // The tensors moved out (init --gguf converts them one by one, never holding two copies).
  std::vector<Named> take() { return std::move(tensors_); }

 private:
  template <typename F>
  void fill(const std::string& name, std::vector<int64_t> shape, F&& draw) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    Named t{name, std::move(shape), std::vector<float>(static_cast<size_t>(n))};
    for (float& x : t.data) x = draw();
    tensors_.push_back(std::move(t));
  }
  void constant(const std::string& name, std::vector<int64_t> shape, float value) {
    fill(name, std::move(shape), [value] { return value; });
  }
  Random rng_;
  std::vector<Named> tensors_;
};

}  // namespace attnviz
