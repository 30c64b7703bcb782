// The tensors of a checkpoint: one .safetensors file, or the shards listed by an HF index json.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "attnviz/io/safetensors.hpp"

namespace attnviz {

// The tensors of one dtype: how many, their elements (parameters) and their bytes.
struct DtypeTotals {
  long long tensors = 0;
  uint64_t parameters = 0;
  uint64_t bytes = 0;
};

class TensorSource {
 public:
  // A .safetensors file; or a folder with model.safetensors, model.safetensors.index.json (shards),
  // or exactly one *.safetensors. Names lose torch.compile's "_orig_mod." prefix.
  static TensorSource open(const std::filesystem::path& path);

  const std::filesystem::path& dir() const { return dir_; }      // where config.json would be
  const std::string& description() const { return description_; }  // the file(s), for messages
  bool has(const std::string& name) const { return index_.count(name) != 0; }
  const TensorInfo& info(const std::string& name) const;
  Tensor load(const std::string& name) const;
  StoredTensor stored(const std::string& name) const;  // unconverted, valid while this source lives
  std::vector<std::string> names() const;
  const std::map<std::string, std::string>& metadata() const;  // of the first file
  std::map<std::string, DtypeTotals> dtype_totals() const;     // by dtype name ("BF16", "F32")

 private:
  std::filesystem::path dir_;
  std::string description_;
  std::vector<std::shared_ptr<SafetensorsFile>> files_;
  struct Entry {
    const SafetensorsFile* file;
    std::string file_name;  // the name inside the file (with any _orig_mod. prefix)
  };
  std::map<std::string, Entry> index_;
  void add_file(const std::filesystem::path& path);
  void check_weight_map(const std::filesystem::path& index,
                        const std::map<std::string, std::string>& weight_map) const;
};

}  // namespace attnviz
