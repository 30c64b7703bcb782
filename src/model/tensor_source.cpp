// Opening a checkpoint: single file or sharded folder, with one name index over all shards.
#include "attnviz/model/tensor_source.hpp"

#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "attnviz/core/error.hpp"

namespace attnviz {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view k_compiled_prefix = "_orig_mod.";  // torch.compile wraps the module

std::vector<fs::path> shards_of_index(const fs::path& index_path) {
  std::ifstream in(index_path);
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("{}: not valid JSON: {}", index_path.string(), e.what()));
  }
  if (!j.is_object() || !j.contains("weight_map") || !j["weight_map"].is_object()) {
    throw Error(fmt::format("{}: expected an object with a \"weight_map\" object", index_path.string()));
  }
  std::set<std::string> files;
  for (const auto& [name, file] : j["weight_map"].items()) {
    if (!file.is_string()) {
      throw Error(fmt::format("{}: weight_map[\"{}\"] is not a file name", index_path.string(), name));
    }
    files.insert(file.get<std::string>());
  }
  if (files.empty()) throw Error(fmt::format("{}: \"weight_map\" names no tensor", index_path.string()));
  std::vector<fs::path> paths;
  for (const auto& f : files) paths.push_back(index_path.parent_path() / f);
  return paths;
}

std::vector<fs::path> weight_files(const fs::path& path) {
  if (!fs::exists(path)) throw Error(fmt::format("{}: no such file or directory", path.string()));
  if (!fs::is_directory(path)) return {path};
  if (fs::exists(path / "model.safetensors")) return {path / "model.safetensors"};
  if (fs::exists(path / "model.safetensors.index.json")) {
    return shards_of_index(path / "model.safetensors.index.json");
  }
  std::vector<fs::path> found;
  for (const auto& entry : fs::directory_iterator(path)) {
    if (entry.path().extension() == ".safetensors") found.push_back(entry.path());
  }
  if (found.size() != 1) {
    throw Error(fmt::format("{}: expected model.safetensors, model.safetensors.index.json or one "
                            ".safetensors file in the folder, found {} .safetensors files",
                            path.string(), found.size()));
  }
  return found;
}

}  // namespace

TensorSource TensorSource::open(const fs::path& path) {
  TensorSource src;
  const auto files = weight_files(path);
  src.dir_ = fs::is_directory(path) ? path : path.parent_path();
  src.description_ = files.size() == 1 ? files.front().string()
                                       : fmt::format("{} ({} shards)", path.string(), files.size());
  for (const auto& f : files) src.add_file(f);
  return src;
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
  auto it = index_.find(name);
  if (it == index_.end()) throw Error(fmt::format("{}: missing tensor '{}'", description_, name));
  return *it->second.file->find(it->second.file_name);
}

Tensor TensorSource::load(const std::string& name) const {
  auto it = index_.find(name);
  if (it == index_.end()) throw Error(fmt::format("{}: missing tensor '{}'", description_, name));
  return it->second.file->load(it->second.file_name);
}

std::vector<std::string> TensorSource::names() const {
  std::vector<std::string> out;
  for (const auto& [name, entry] : index_) out.push_back(name);
  return out;
}

const std::map<std::string, std::string>& TensorSource::metadata() const {
  return files_.front()->metadata();
}

}  // namespace attnviz
