// --save FILE.safetensors: every selected head's scores and probabilities, [heads, n_query, n_key]
// per map, streamed to disk as the blocks arrive.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "attnviz/core/tensor.hpp"
#include "attnviz/event/selection.hpp"
#include "attnviz/io/atomic_file.hpp"
#include "attnviz/io/safetensors.hpp"

namespace attnviz {

enum class SaveDtype { f32, f16 };
SaveDtype parse_save_dtype(const std::string& name);  // "f32" / "f16"; usage Error otherwise

struct SaveOptions {
  SaveDtype dtype =
      SaveDtype::f32;  // of the maps (f16: IEEE half, round to nearest even, ±inf past ±65504)
  HeadSelection selection;                         // --layer / --site / --head: what is saved
  uint64_t max_header = k_safetensors_max_header;  // the readers' limit; smaller only in tests
  std::string model_name;  // metadata "model" when given (e.g. "gpt2 (no positions)")
  std::map<std::string, std::string>
      metadata;  // more of it, as given: the inputs' "ids" and "tokens"
};

// Tensors "{map}.scores" and "{map}.probs" (map = layer0.self, decoder.layer1.cross, …) in the
// order the maps come (a derived map — rollout — has "{map}.probs" only, and its kind as
// "{map}.kind"), then extra tensors such as "hidden" (F32); masked score cells are -inf. Metadata:
// query/key labels (JSON arrays), mask and scale per map, and "{map}.heads" when --head keeps some
// heads (the tensors are then [heads kept, n_query, n_key], "[1, 3]" saying which), and
// SaveOptions::metadata (the inputs' ids and tokens). Each block is written where it belongs in a
// data file beside the output as it arrives (memory: one block); finish() writes the header, which
// needs every map's size, then copies the data after it (copy_file_range: in the kernel) and
// renames the result into place. Both files are temp files registered for removal: an error or a
// signal leaves neither.
class SaveSink : public AttentionSink {
 public:
  explicit SaveSink(std::filesystem::path path, SaveOptions options = {});
  void begin_map(const MapInfo& info) override;
  void on_block(const AttentionBlock& block) override;
  void finish() override;
  // An extra tensor written after the maps, e.g. "hidden" (the final hidden states [n, d_model]).
  void add_tensor(const std::string& name, const Matrix& m);
  void add_tensor(const std::string& name, Tensor t);  // any shape (pixel_values [3, H, W])

 private:
  struct Site {
    std::vector<int64_t> shape;  // [heads, n_query, n_key]
    uint64_t offset = 0;         // of its scores in the data; probs follow
    bool has_scores = true;      // a derived map (MapInfo::kind, e.g. rollout) has probs only
    // per saved head under sink logits (gpt-oss), none for a head without one; empty if no head
    // has one
    std::vector<std::optional<float>> sink_logits;
  };
  void check_header_size(const MapInfo& info);
  void write_rows(uint64_t offset, ConstMatrixRef rows);

  std::filesystem::path path_;
  SaveOptions options_;
  std::vector<std::string> order_;  // map names in the order they came
  std::map<std::string, Site> sites_;
  const Site* current_ = nullptr;  // the map in progress, when selected
  std::map<std::string, std::string> metadata_;
  std::vector<std::pair<std::string, Tensor>> extra_;
  uint64_t header_bytes_ = 0;               // the header so far, as JSON (lower bound)
  uint64_t data_bytes_ = 0;                 // the maps' data so far
  std::unique_ptr<AtomicFileWriter> data_;  // never committed: its destructor removes it
  std::vector<char> buffer_;                // one block, converted
};

}  // namespace attnviz
