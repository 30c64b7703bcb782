// --save: streams each selected map's blocks into the output's temp file at their data offsets;
// at the end the header is inserted in front of them (or, where the filesystem cannot, header and
// data are copied into a new file).
#include "attnviz/sinks/save_sink.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>

#include "attnviz/core/error.hpp"
#include "attnviz/io/half_float.hpp"

namespace attnviz {

SaveDtype parse_save_dtype(const std::string& name) {
  if (name == "f32") return SaveDtype::f32;
  if (name == "f16") return SaveDtype::f16;
  throw usage_error(fmt::format("--save-dtype {}: expected f32 or f16", name));
}

namespace {
uint64_t element_bytes(SaveDtype d) {
  return d == SaveDtype::f16 ? 2 : 4;
}

// Copies `n` bytes of `from` (from offset 0) to the end of `to`, in the kernel where it can.
void copy_data(int from, int to, uint64_t n, const std::filesystem::path& path) {
  off_t in = 0;
  while (n > 0) {
    const ssize_t k = ::copy_file_range(from, &in, to, nullptr, n, 0);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) break;  // unsupported here (or a short file): the plain loop below
    n -= static_cast<uint64_t>(k);
  }
  std::vector<char> chunk(1 << 20);
  while (n > 0) {
    const ssize_t k = ::pread(from, chunk.data(), std::min<uint64_t>(n, chunk.size()), in);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0)
      throw Error(
          fmt::format("{}: cannot copy the saved maps: {}", path.string(), std::strerror(errno)));
    for (ssize_t done = 0; done < k;) {
      const ssize_t w = ::write(to, chunk.data() + done, static_cast<size_t>(k - done));
      if (w < 0 && errno == EINTR) continue;
      if (w < 0)
        throw Error(fmt::format("{}: cannot write: {}", path.string(), std::strerror(errno)));
      done += w;
    }
    in += k, n -= static_cast<uint64_t>(k);
  }
}
}  // namespace

SaveSink::SaveSink(std::filesystem::path path, SaveOptions options)
    : path_(std::move(path)),
      options_(std::move(options)),
      data_(std::make_unique<AtomicFileWriter>(path_)) {
  if (!options_.model_name.empty()) metadata_["model"] = options_.model_name;
  for (const auto& [key, value] : options_.metadata) {
    metadata_[key] = value;
    header_bytes_ += safetensors_json_string_bytes(key) + safetensors_json_string_bytes(value) + 2;
  }
}

void SaveSink::begin_map(const MapInfo& info) {
  current_ = nullptr;
  if (!options_.selection.matches(info.id)) return;
  const std::string name = info.id.map_name();
  auto [it, fresh] = sites_.try_emplace(name);
  current_ = &it->second;
  // Heads come in order, each saved head one entry (null: no sink); a row's sink weight is 1 − the
  // sum of its saved weights. Counted in the header's size (a lower bound, as the rest): the key at
  // the first sink, then each value (at most 16 characters and ",").
  auto& sinks = it->second.sink_logits;
  if (info.sink_logit) {
    if (std::none_of(sinks.begin(), sinks.end(), [](const auto& v) { return v.has_value(); }))
      header_bytes_ += safetensors_json_string_bytes(name + ".sink_logits") + 4;
    header_bytes_ += 17;
  }
  sinks.push_back(info.sink_logit);
  if (!fresh) return;
  order_.push_back(name);
  metadata_[name + ".query_labels"] = nlohmann::json(*info.query_labels).dump();
  metadata_[name + ".key_labels"] = nlohmann::json(*info.key_labels).dump();
  metadata_[name + ".mask"] = info.mask->describe();
  metadata_[name + ".scale"] = fmt::format("{}", info.scale);
  // Bahdanau's additive scores are not scale · q·k: a reader must not take .scale for their factor.
  if (info.additive) metadata_[name + ".score"] = "additive: v·tanh(W s + U h) + b";
  const IndexSet& chosen =
      options_.selection.head;  // --head: the tensors hold these heads, in order
  if (chosen) metadata_[name + ".heads"] = nlohmann::json(chosen.indices()).dump();
  check_header_size(info);
  const int heads = chosen ? static_cast<int>(chosen.indices().size()) : info.n_heads;
  it->second.shape = {heads, info.n_query, info.n_key};
  it->second.offset = data_bytes_;
  it->second.has_scores = info.kind.empty();
  if (!info.kind.empty()) metadata_[name + ".kind"] = info.kind;
  data_bytes_ += (it->second.has_scores ? 2 : 1) * uint64_t(heads) * uint64_t(info.n_query) *
                 uint64_t(info.n_key) * element_bytes(options_.dtype);
}

// The labels of every map go into the header, which readers cap at 100 MB: refused at the map
// that crosses the limit, not after the whole run.
void SaveSink::check_header_size(const MapInfo& info) {
  const std::string name = info.id.map_name();
  for (const char* key : {".query_labels", ".key_labels", ".mask", ".scale"}) {
    header_bytes_ += safetensors_json_string_bytes(name + key) +
                     safetensors_json_string_bytes(metadata_.at(name + key)) + 2;
  }
  header_bytes_ += 2 * 64;  // two tensor entries: name, dtype, shape, offsets (a lower bound)
  if (header_bytes_ <= options_.max_header) return;
  throw Error(fmt::format(
      "{}: --save would write a safetensors header of at least {} bytes (the token labels of "
      "{} maps of {}×{} tokens), over the {}-byte limit safetensors readers accept, attnviz "
      "inspect included; save a shorter input, or draw it with --png / --table instead",
      path_.string(), header_bytes_, order_.size(), info.n_query, info.n_key, options_.max_header));
}

void SaveSink::write_rows(uint64_t offset, ConstMatrixRef rows) {
  const auto cols = static_cast<size_t>(rows.cols());
  const uint64_t e = element_bytes(options_.dtype);
  buffer_.resize(static_cast<size_t>(rows.size()) * e);
  for (Eigen::Index i = 0; i < rows.rows(); ++i) {
    char* out = buffer_.data() + static_cast<size_t>(i) * cols * e;
    if (options_.dtype == SaveDtype::f32) {
      std::memcpy(out, rows.row(i).data(), cols * 4);
    } else {  // little-endian host, as safetensors
      f32_to_f16_n(rows.row(i).data(), reinterpret_cast<uint16_t*>(out), cols);
    }
  }
  data_->write_at(offset, std::string_view(buffer_.data(), buffer_.size()));
}

void SaveSink::on_block(const AttentionBlock& block) {
  if (!current_) return;
  const MapInfo& info = *block.info;
  const std::vector<int>& chosen =
      options_.selection.head.indices();  // empty: every head, in its own slot
  const uint64_t slot =
      chosen.empty()
          ? uint64_t(info.id.head)
          : uint64_t(std::lower_bound(chosen.begin(), chosen.end(), info.id.head) - chosen.begin());
  const uint64_t row_cells = uint64_t(info.n_key), map_cells = uint64_t(info.n_query) * row_cells;
  const uint64_t e = element_bytes(options_.dtype);
  const uint64_t at = ((slot * info.n_query + uint64_t(block.row_begin)) * row_cells) * e;
  const uint64_t heads = uint64_t(current_->shape[0]);
  if (current_->has_scores) {
    write_rows(current_->offset + at, block.scores);
    write_rows(current_->offset + heads * map_cells * e + at, block.probs);
  } else {
    write_rows(current_->offset + at, block.probs);
  }
}

void SaveSink::add_tensor(const std::string& name, const Matrix& m) {
  extra_.emplace_back(
      name, Tensor{{m.rows(), m.cols()}, std::vector<float>(m.data(), m.data() + m.size())});
}

void SaveSink::add_tensor(const std::string& name, Tensor t) {
  extra_.emplace_back(name, std::move(t));
}

void SaveSink::finish() {
  const std::string dtype = options_.dtype == SaveDtype::f16 ? "F16" : "F32";
  std::vector<TensorLayout> layouts;
  for (const auto& name : order_) {
    const Site& site = sites_.at(name);
    if (std::any_of(site.sink_logits.begin(), site.sink_logits.end(),
                    [](const auto& s) { return s.has_value(); })) {
      nlohmann::json values = nlohmann::json::array();
      for (const auto& s : site.sink_logits) values.push_back(s ? nlohmann::json(*s) : nullptr);
      metadata_[name + ".sink_logits"] = values.dump();
    }
    if (site.has_scores) layouts.push_back({name + ".scores", site.shape, dtype});
    layouts.push_back({name + ".probs", site.shape, dtype});
  }
  for (const auto& [name, t] : extra_) layouts.push_back({name, t.shape, "F32"});
  const auto write_extras = [&](AtomicFileWriter& out, uint64_t at) {
    for (const auto& [name, t] : extra_) {
      const std::string_view bytes(reinterpret_cast<const char*>(t.data.data()),
                                   t.data.size() * sizeof(float));
      out.write_at(at, bytes);
      at += bytes.size();
    }
  };
  // The header goes in front of the streamed data where the filesystem can insert a range (ext4,
  // XFS): the maps are then written to disk once. The header is padded to whole blocks for that,
  // unless the padding would take it past the readers' limit.
  const std::string header = serialize_safetensors_header(layouts, metadata_);
  if (data_bytes_ > 0) {
    if (::ftruncate(data_->fd(), static_cast<off_t>(data_bytes_)) != 0) {
      throw Error(
          fmt::format("{}: cannot size the saved maps: {}", path_.string(), std::strerror(errno)));
    }
    const uint64_t block = data_->block_size();
    if (header.size() - 8 + block <= k_safetensors_max_header) {
      const std::string padded = serialize_safetensors_header(layouts, metadata_, block);
      if (data_->insert_front(padded)) {
        write_extras(*data_, padded.size() + data_bytes_);
        data_->commit();
        data_.reset();
        return;
      }
    }
  }
  // Elsewhere: header, then the data copied after it (in the kernel where it can), into a new file.
  AtomicFileWriter out(path_);
  out.write(header);
  copy_data(data_->fd(), out.fd(), data_bytes_, path_);
  write_extras(out, header.size() + data_bytes_);
  out.commit();
  data_.reset();
}

}  // namespace attnviz
