// The tensors of a checkpoint: one .safetensors file, the shards listed by an HF index json, or a
// GGUF file presented under Hugging Face names and shapes.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "attnviz/io/safetensors.hpp"
#include "attnviz/model/token_table.hpp"

namespace attnviz {

namespace detail {
class GgufTensors;
}

// The tensors of one dtype: how many, their elements (parameters) and their bytes.
struct DtypeTotals {
  long long tensors = 0;
  uint64_t parameters = 0;
  uint64_t bytes = 0;
};

class TensorSource {
 public:
  // A .safetensors file; or a folder with model.safetensors, model.safetensors.index.json (shards),
  // or exactly one *.safetensors. Names lose torch.compile's "_orig_mod." prefix. A file that
  // starts with GGUF's magic is read as GGUF: its tensors under the Hugging Face names of its
  // family.
  static TensorSource open(const std::filesystem::path& path);

  const std::filesystem::path& dir() const { return dir_; }        // where config.json would be
  const std::string& description() const { return description_; }  // the file(s), for messages
  bool has(const std::string& name) const;
  const TensorInfo& info(const std::string& name) const;
  Tensor load(const std::string& name) const;
  StoredTensor stored(const std::string& name) const;  // unconverted, valid while this source lives
  // The tensor converted to float32 straight into `out` (its element count of floats, row-major as
  // stored); its mapped pages are released once converted.
  void convert_into(const std::string& name, float* out) const;
  // Refuses, naming it, a tensor whose dtype attnviz cannot convert (checked at load, before a
  // run).
  void check_convertible(const std::string& name) const;
  // A [rows, cols] tensor left in the file, converted by rows on use; `owner` keeps the file
  // mapped.
  TokenTable table(const std::string& name, std::shared_ptr<const void> owner) const;
  // The GGUF file's tensors and metadata when the source is one; nullptr for safetensors.
  const detail::GgufTensors* gguf() const { return gguf_.get(); }
  std::vector<std::string> names() const;
  // What the file calls a tensor, for messages: the name itself, or llama.cpp's name in a GGUF
  // file.
  std::string name_in_file(const std::string& name) const;
  const std::map<std::string, std::string>& metadata() const;  // of the first file
  std::map<std::string, DtypeTotals> dtype_totals() const;     // by dtype name ("BF16", "F32")

 private:
  std::filesystem::path dir_;
  std::string description_;
  std::vector<std::shared_ptr<SafetensorsFile>> files_;
  std::shared_ptr<const detail::GgufTensors> gguf_;
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
