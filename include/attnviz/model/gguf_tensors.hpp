// A GGUF file's tensors under their Hugging Face names and shapes (private to src/model/), so the
// Hugging Face family layouts bind them unchanged: names mapped per architecture, Llama's q/k rows
// un-permuted, tensors dequantised when a layer asks for them and the token table by rows.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "attnviz/core/tensor.hpp"
#include "attnviz/io/gguf/gguf.hpp"
#include "attnviz/io/safetensors.hpp"
#include "attnviz/model/family.hpp"
#include "attnviz/model/token_table.hpp"

namespace attnviz::detail {

// general.architecture → the Hugging Face model_type attnviz runs it as; nullopt when not
// supported.
std::optional<std::string> gguf_model_type(const std::string& arch);
// The architectures of the registered families, "a, b, c", for messages.
std::string gguf_architectures();
// llama.cpp's name of a Hugging Face tensor name for the architecture (the reader's table
// inverted); nullopt when the architecture's graph has no such tensor.
std::optional<std::string> gguf_tensor_name(const std::string& arch, const std::string& hf);
// convert_hf_to_gguf.py's LlamaModel.permute of q/k rows ([rows, cols], `heads` heads): HF row
// j · d/2 + i of a head becomes row 2i + j; `undo` turns the file's rows back into HF's.
void permute_rows(std::vector<float>& data, int64_t rows, int64_t cols, int heads, bool undo);

class GgufTensors {
 public:
  explicit GgufTensors(const std::filesystem::path& path);

  const GgufFile& file() const { return file_; }
  const std::string& arch() const { return arch_; }
  bool has(const std::string& name) const { return entries_.count(name) != 0; }
  // Under the Hugging Face name: the shape in PyTorch order (GGUF's dims reversed), dtype the ggml
  // type's name ("Q4_K"), begin/end the bytes in the data section.
  const TensorInfo& info(const std::string& name) const;
  std::vector<std::string> names() const;
  // llama.cpp's name of a Hugging Face name (present or not), for messages; the name itself if
  // none.
  std::string name_in_file(const std::string& hf) const;
  // The whole tensor as float32 (one layer's tensor at a time), Llama's q/k rows in HF's order.
  Tensor load(const std::string& name) const;
  // The same values dequantised straight into `out` (the tensor's element count of floats).
  void load_into(const std::string& name, float* out) const;
  // Refuses a type attnviz cannot convert (Error naming the tensor and its type).
  void check_convertible(const std::string& name) const;
  // A [rows, cols] table dequantised by rows as they are read; `owner` keeps this file mapped.
  TokenTable table(const std::string& name, std::shared_ptr<const void> owner) const;
  // Llama 3's rope_freqs.weight: per-pair divisors of the rotary frequencies, when the file has it.
  const std::optional<std::vector<float>>& rope_freqs() const { return rope_freqs_; }

 private:
  struct Entry {
    const GgufTensorInfo* gguf = nullptr;
    TensorInfo info;
    int permuted_heads = 0;  // Llama's q/k: rows permuted per head by the converter (0: none)
  };
  const Entry& entry(const std::string& name) const;
  void add(const GgufTensorInfo& t);
  GgufFile file_;
  std::string arch_;
  const Family* family_ = nullptr;    // the family the file runs as
  int n_heads_ = 0, n_kv_heads_ = 0;  // permuted q/k only: for undoing the permutation
  std::map<std::string, Entry> entries_;
  std::optional<std::vector<float>> rope_freqs_;
};

}  // namespace attnviz::detail
