// --save: gathers every map into per-site tensors and writes one safetensors file at the end.
#include "attnviz/sinks/save_sink.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "attnviz/io/safetensors.hpp"

namespace attnviz {

void SaveSink::begin_map(const MapInfo& info) {
  const std::string name = info.id.map_name();
  auto [it, fresh] = sites_.try_emplace(name);
  if (!fresh) return;
  order_.push_back(name);
  const size_t size = size_t(info.n_heads) * info.n_query * info.n_key;
  it->second.shape = {info.n_heads, info.n_query, info.n_key};
  it->second.scores.resize(size);
  it->second.probs.resize(size);
  metadata_[name + ".query_labels"] = nlohmann::json(*info.query_labels).dump();
  metadata_[name + ".key_labels"] = nlohmann::json(*info.key_labels).dump();
  metadata_[name + ".mask"] = info.mask->describe();
  metadata_[name + ".scale"] = fmt::format("{}", info.scale);
}

void SaveSink::on_block(const AttentionBlock& block) {
  const MapInfo& info = *block.info;
  Site& site = sites_.at(info.id.map_name());
  const size_t n_key = static_cast<size_t>(info.n_key);
  const size_t offset = (size_t(info.id.head) * info.n_query + block.row_begin) * n_key;
  const auto rows = static_cast<Eigen::Index>(block.row_end - block.row_begin);
  Eigen::Map<Matrix>(site.scores.data() + offset, rows, info.n_key) = block.scores;
  Eigen::Map<Matrix>(site.probs.data() + offset, rows, info.n_key) = block.probs;
}

void SaveSink::add_tensor(const std::string& name, const Matrix& m) {
  extra_.emplace_back(name, Tensor{{m.rows(), m.cols()}, std::vector<float>(m.data(), m.data() + m.size())});
}

void SaveSink::finish() {
  std::vector<TensorView> views;
  for (const auto& name : order_) {
    const Site& site = sites_.at(name);
    views.push_back({name + ".scores", site.shape, site.scores.data()});
    views.push_back({name + ".probs", site.shape, site.probs.data()});
  }
  for (const auto& [name, t] : extra_) views.push_back({name, t.shape, t.data.data()});
  write_safetensors(path_, views, metadata_);
}

}  // namespace attnviz
