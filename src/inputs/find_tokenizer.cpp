// Which tokenizer file a model folder (or --tokenizer) holds, in the order transformers prefers:
// tokenizer.json (the "fast" tokenizer) first.
#include <fmt/format.h>

#include "attnviz/core/error.hpp"
#include "attnviz/inputs/tokenizer.hpp"
#include "gpt2_tokenizer.hpp"
#include "tokenizer_json.hpp"

namespace attnviz {

namespace fs = std::filesystem;

std::unique_ptr<Tokenizer> find_tokenizer(const fs::path& path) {
  std::error_code ec;
  if (fs::is_regular_file(path, ec)) {
    if (path.extension() == ".json") return read_tokenizer_json(path);
    throw Error(fmt::format("{}: not a tokenizer file attnviz reads (tokenizer.json, or a folder holding "
                            "tokenizer.json, vocab.json + merges.txt or vocab.txt)", path.string()));
  }
  if (fs::exists(path / "tokenizer.json", ec)) return read_tokenizer_json(path / "tokenizer.json");
  if (fs::exists(path / "vocab.json", ec) || fs::exists(path / "merges.txt", ec)) return read_gpt2_tokenizer(path);
  return nullptr;
}

}  // namespace attnviz
