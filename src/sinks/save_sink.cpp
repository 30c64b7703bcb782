// --save: gathers every map into per-site tensors and writes one safetensors file at the end.
#include "attnviz/sinks/save_sink.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "attnviz/core/error.hpp"

#include "attnviz/io/safetensors.hpp"

namespace attnviz {
void SaveSink::begin_map(const MapInfo& info) {
  const std::string name = info.id.map_name();
  auto [it, fresh] = sites_.try_emplace(name);
  if (!fresh) return;
  order_.push_back(name);
  metadata_[name + ".query_labels"] = nlohmann::json(*info.query_labels).dump();
  metadata_[name + ".key_labels"] = nlohmann::json(*info.key_labels).dump();
  metadata_[name + ".mask"] = info.mask->describe();
  metadata_[name + ".scale"] = fmt::format("{}", info.scale);
  check_header_size(info);
  const size_t size = size_t(info.n_heads) * info.n_query * info.n_key;
  it->second.shape = {info.n_heads, info.n_query, info.n_key};
  it->second.scores.resize(size);
  it->second.probs.resize(size);
}

// The labels of every map go into the header, which readers cap at 100 MB: refused at the map
// that crosses the limit, not after the whole run and a multi-GB serialisation.
void SaveSink::check_header_size(const MapInfo& info) {
  const std::string name = info.id.map_name();
  for (const char* key : {".query_labels", ".key_labels", ".mask", ".scale"}) {
    header_bytes_ += safetensors_json_string_bytes(name + key) + safetensors_json_string_bytes(metadata_.at(name + key)) + 2;
  }
  header_bytes_ += 2 * 64;  // two tensor entries: name, dtype, shape, offsets (a lower bound)
  if (header_bytes_ <= max_header_) return;
  throw Error(fmt::format(
      "{}: --save would write a safetensors header of at least {} bytes (the token labels of "
      "{} maps of {}×{} tokens), over the {}-byte limit safetensors readers accept, attnviz "
      "inspect included; save a shorter input, or draw it with --png / --table instead",
      path_.string(), header_bytes_, order_.size(), info.n_query, info.n_key, max_header_));
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
