// Opening a checkpoint: single file or sharded folder, with one name index over all shards.
#include "attnviz/model/tensor_source.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <set>

#include "attnviz/core/error.hpp"
#include "attnviz/core/unicode.hpp"
#include "attnviz/io/gguf/gguf.hpp"
#include "attnviz/io/json.hpp"
#include "attnviz/model/gguf_tensors.hpp"

namespace attnviz {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view k_compiled_prefix = "_orig_mod.";  // torch.compile wraps the module

// model.safetensors.index.json's "weight_map": tensor name → shard file name.
using WeightMap = std::map<std::string, std::string>;

// A shard must be a plain file name in the index's folder: "../x" or "/etc/x" would read files
// the user never pointed attnviz at.
void check_shard_name(const fs::path& index_path, const std::string& tensor,
                      const std::string& file) {
  const std::string where = fmt::format("{}: weight_map[\"{}\"] = \"{}\"", index_path.string(),
                                        printable_text(tensor), printable_text(file));
  if (file.empty() || file == "." || file == ".." || file.find('/') != std::string::npos) {
    throw Error(where +
                ": expected a shard file name inside the index's folder (no '/', not '..')");
  }
  std::error_code ec;  // a name too long for the file system is a missing shard, not an OS error
  if (!fs::is_regular_file(index_path.parent_path() / file, ec)) {
    throw Error(where + ": no such shard file in " + index_path.parent_path().string());
  }
}

WeightMap read_weight_map(const fs::path& index_path) {
  const nlohmann::json j = read_json_file(index_path);
  if (!j.is_object() || !j.contains("weight_map") || !j["weight_map"].is_object()) {
    throw Error(
        fmt::format("{}: expected an object with a \"weight_map\" object", index_path.string()));
  }
  WeightMap map;
  for (const auto& [name, file] : j["weight_map"].items()) {
    if (!file.is_string()) {
      throw Error(fmt::format("{}: weight_map[\"{}\"] is not a file name", index_path.string(),
                              printable_text(name)));
    }
    check_shard_name(index_path, name, file.get<std::string>());
    map.emplace(name, file.get<std::string>());
  }
  if (map.empty())
    throw Error(fmt::format("{}: \"weight_map\" names no tensor", index_path.string()));
  return map;
}

std::vector<fs::path> shard_paths(const fs::path& index_path, const WeightMap& map) {
  std::set<std::string> files;
  for (const auto& [name, file] : map) files.insert(file);
  std::vector<fs::path> paths;
  for (const auto& f : files) paths.push_back(index_path.parent_path() / f);
  return paths;
}

fs::path index_of(const fs::path& path) {
  if (!fs::is_directory(path) || fs::exists(path / "model.safetensors")) return {};
  const fs::path index = path / "model.safetensors.index.json";
  return fs::exists(index) ? index : fs::path();
}

std::vector<fs::path> weight_files(const fs::path& path) {
  if (!fs::exists(path)) throw Error(fmt::format("{}: no such file or directory", path.string()));
  if (!fs::is_directory(path)) return {path};
  if (fs::exists(path / "model.safetensors")) return {path / "model.safetensors"};
  std::vector<fs::path> found;
  for (const auto& entry : fs::directory_iterator(path)) {
    if (entry.path().extension() == ".safetensors") found.push_back(entry.path());
  }
  if (found.size() != 1) {
    throw Error(
        fmt::format("{}: expected model.safetensors, model.safetensors.index.json or one "
                    ".safetensors file in the folder, found {} .safetensors files",
                    path.string(), found.size()));
  }
  return found;
}

}  // namespace

TensorSource TensorSource::open(const fs::path& path) {
  TensorSource src;
  if (is_gguf_file(path)) {
    src.gguf_ = std::make_shared<const detail::GgufTensors>(path);
    src.dir_ = path.parent_path();
    src.description_ = path.string();
    return src;
  }
  const fs::path index = index_of(path);
  const WeightMap weight_map = index.empty() ? WeightMap() : read_weight_map(index);
  const auto files = index.empty() ? weight_files(path) : shard_paths(index, weight_map);
  src.dir_ = fs::is_directory(path) ? path : path.parent_path();
  src.description_ = files.size() == 1 ? files.front().string()
                                       : fmt::format("{} ({} shards)", path.string(), files.size());
  for (const auto& f : files) src.add_file(f);
  src.check_weight_map(index, weight_map);
  return src;
}

// Each tensor the index names must be in the shard it names: a wrong entry would otherwise surface
// as a misleading "missing tensor" or "no known layout".
void TensorSource::check_weight_map(const fs::path& index,
                                    const std::map<std::string, std::string>& map) const {
  for (const auto& [name, shard] : map) {
    const fs::path shard_path = index.parent_path() / shard;
    bool found = false;
    for (const auto& f : files_) found = found || (f->path() == shard_path && f->find(name));
    if (!found) {
      throw Error(fmt::format("{}: tensor '{}' is not in shard {}, where the index puts it",
                              index.string(), printable_text(name), shard_path.string()));
    }
  }
}

void TensorSource::add_file(const fs::path& path) {
  files_.push_back(std::make_shared<SafetensorsFile>(SafetensorsFile::open(path)));
  const SafetensorsFile* file = files_.back().get();
  for (const auto& t : file->tensors()) {
    std::string name = t.name;
    if (name.rfind(k_compiled_prefix, 0) == 0) name = name.substr(k_compiled_prefix.size());
    if (!index_.emplace(name, Entry{file, t.name}).second) {
      throw Error(fmt::format("{}: tensor '{}' is also in another shard", path.string(), name));
    }
  }
}

const TensorInfo& TensorSource::info(const std::string& name) const {
  if (gguf_) return gguf_->info(name);
  auto it = index_.find(name);
  if (it == index_.end()) throw Error(fmt::format("{}: missing tensor '{}'", description_, name));
  return *it->second.file->find(it->second.file_name);
}

Tensor TensorSource::load(const std::string& name) const {
  if (gguf_) return gguf_->load(name);
  auto it = index_.find(name);
  if (it == index_.end()) throw Error(fmt::format("{}: missing tensor '{}'", description_, name));
  return it->second.file->load(it->second.file_name);
}

bool TensorSource::has(const std::string& name) const {
  return gguf_ ? gguf_->has(name) : index_.count(name) != 0;
}

StoredTensor TensorSource::stored(const std::string& name) const {
  if (gguf_)
    throw Error(fmt::format("{}: tensor '{}' is GGUF-typed: read it with load or table",
                            description_, name));
  auto it = index_.find(name);
  if (it == index_.end()) throw Error(fmt::format("{}: missing tensor '{}'", description_, name));
  return it->second.file->stored(it->second.file_name);
}

void TensorSource::convert_into(const std::string& name, float* out) const {
  if (gguf_) return gguf_->load_into(name, out);
  const StoredTensor s = stored(name);
  const TensorInfo& t = info(name);
  const uint64_t bytes = t.end - t.begin;  // the reader proved = elements × element size
  convert_to_float(s.dtype, s.data, static_cast<size_t>(bytes / dtype_bytes(s.dtype)), out);
  release_mapped(s.data, static_cast<size_t>(bytes));
}

void TensorSource::check_convertible(const std::string& name) const {
  if (gguf_) return gguf_->check_convertible(name);
  stored(name);  // refuses a dtype that cannot be converted
}

TokenTable TensorSource::table(const std::string& name, std::shared_ptr<const void> owner) const {
  if (gguf_) return gguf_->table(name, std::move(owner));
  return TokenTable(stored(name), std::move(owner));
}

std::string TensorSource::name_in_file(const std::string& name) const {
  return gguf_ ? gguf_->name_in_file(name) : name;
}

std::vector<std::string> TensorSource::names() const {
  if (gguf_) return gguf_->names();
  std::vector<std::string> out;
  for (const auto& [name, entry] : index_) out.push_back(name);
  return out;
}

const std::map<std::string, std::string>& TensorSource::metadata() const {
  static const std::map<std::string, std::string> k_none;  // GGUF metadata is typed: see gguf()
  return gguf_ ? k_none : files_.front()->metadata();
}

std::map<std::string, DtypeTotals> TensorSource::dtype_totals() const {
  std::map<std::string, DtypeTotals> totals;
  for (const auto& name : names()) {
    const TensorInfo& t = info(name);
    DtypeTotals& d = totals[t.dtype];
    uint64_t n = 1;  // a scalar (shape []) holds one element; the reader checked n · size = bytes
    for (const int64_t dim : t.shape) n *= static_cast<uint64_t>(dim);
    d.tensors += 1;
    d.parameters += n;
    d.bytes += t.end - t.begin;
  }
  return totals;
}

}  // namespace attnviz
