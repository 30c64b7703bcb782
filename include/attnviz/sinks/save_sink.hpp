// --save FILE.safetensors: every head's scores and probabilities, [heads, n_query, n_key] per map.
#pragma once

#include <filesystem>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "attnviz/event/attention_block.hpp"
#include "attnviz/core/tensor.hpp"
#include "attnviz/io/safetensors.hpp"

namespace attnviz {

// Tensors "{map}.scores" and "{map}.probs" (+ extra tensors such as "hidden") (map = layer0.self, decoder.layer1.cross, …), masked
// score cells stored as -inf; metadata: query/key labels (JSON arrays), mask, scale per map.
class SaveSink : public AttentionSink {
 public:
  // max_header: the readers' limit on the header; smaller only in tests.
  explicit SaveSink(std::filesystem::path path, uint64_t max_header = k_safetensors_max_header)
      : path_(std::move(path)), max_header_(max_header) {}
  void begin_map(const MapInfo& info) override;
  void on_block(const AttentionBlock& block) override;
  void finish() override;
  // An extra tensor written after the maps, e.g. "hidden" (the final hidden states [n, d_model]).
  void add_tensor(const std::string& name, const Matrix& m);

 private:
  void check_header_size(const MapInfo& info);

  struct Site {
    std::vector<int64_t> shape;  // [heads, n_query, n_key]
    std::vector<float> scores;
    std::vector<float> probs;
  };
  std::filesystem::path path_;
  std::vector<std::string> order_;  // map names in the order they came
  std::map<std::string, Site> sites_;
  std::map<std::string, std::string> metadata_;
  std::vector<std::pair<std::string, Tensor>> extra_;
  uint64_t max_header_;
  uint64_t header_bytes_ = 0;  // the header so far, as JSON (lower bound)
};

}  // namespace attnviz
