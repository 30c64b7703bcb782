// Which tokenizer file a model folder (or --tokenizer) holds, in the order transformers prefers:
// tokenizer.json (the "fast" tokenizer) first, then the files of the "slow" tokenizers.
#include "attnviz/inputs/tokenizers/find_tokenizer.hpp"

#include <fmt/format.h>

#include <optional>

#include "attnviz/core/error.hpp"
#include "attnviz/inputs/tokenizer.hpp"
#include "attnviz/inputs/tokenizers/gguf/gguf_tokenizer.hpp"
#include "attnviz/inputs/tokenizers/gpt2/gpt2_tokenizer.hpp"
#include "attnviz/inputs/tokenizers/pipeline/tokenizer_json.hpp"
#include "attnviz/inputs/tokenizers/sentencepiece/m2m100_tokenizer.hpp"
#include "attnviz/inputs/tokenizers/sentencepiece/marian_tokenizer.hpp"
#include "attnviz/inputs/tokenizers/sentencepiece/sentencepiece_tokenizer.hpp"
#include "attnviz/inputs/tokenizers/wordpiece/bert_tokenizer.hpp"
#include "attnviz/io/gguf/gguf.hpp"

namespace attnviz {

namespace fs = std::filesystem;

namespace {

// The SentencePiece model names transformers' slow tokenizers load (Llama, Mistral and Gemma's
// tokenizer.model, T5's spiece.model, XLM-R's sentencepiece.bpe.model).
constexpr const char* k_sentencepiece_names[] = {"tokenizer.model", "spiece.model",
                                                 "sentencepiece.bpe.model"};

// A translation model whose two sides have vocabularies of their own, each a tokenizer.json
// (the translation tutorial's GRU model): the folder holding a side, when `path` is one of the two
// files or a folder holding them; nullopt otherwise. A folder with one side but not the other is an
// Error: the other side's text would be read with the wrong words.
constexpr const char* k_source_json = "source_tokenizer.json";
constexpr const char* k_target_json = "target_tokenizer.json";

std::optional<fs::path> two_sided_folder(const fs::path& path) {
  std::error_code ec;
  const bool file = fs::is_regular_file(path, ec);
  if (file && path.filename() != k_source_json && path.filename() != k_target_json)
    return std::nullopt;
  const fs::path dir = file ? path.parent_path() : path;
  if (!file && !fs::is_directory(dir, ec)) return std::nullopt;
  const bool source = fs::exists(dir / k_source_json, ec),
             target = fs::exists(dir / k_target_json, ec);
  if (!source && !target) return std::nullopt;
  if (!source || !target) {
    throw Error(
        fmt::format("{}: holds {} but no {} (a translation model's two sides are read from "
                    "both)",
                    dir.string(), source ? k_source_json : k_target_json,
                    source ? k_target_json : k_source_json));
  }
  return dir;
}

}  // namespace

bool is_tokenizer_file_name(const fs::path& file) {
  return file.extension() == ".json" || file.extension() == ".model" ||
         file.filename() == "source.spm" || file.filename() == "target.spm" ||
         file.extension() == ".gguf" || file.filename() == "vocab.txt" ||
         file.filename() == "merges.txt";
}

std::unique_ptr<Tokenizer> find_tokenizer(const fs::path& path) {
  std::error_code ec;
  // Either side's file stands for the folder, as the .spm files do for Marian's.
  if (auto dir = two_sided_folder(path)) return read_tokenizer_json(*dir / k_source_json);
  if (fs::is_regular_file(path, ec)) {
    if (is_gguf_file(path))
      return make_gguf_tokenizer(path);  // by its magic: Ollama's blobs have no extension
    // Either file of an M2M100 folder stands for it, as its class reads both.
    if ((path.filename() == "vocab.json" || path.filename() == "sentencepiece.bpe.model") &&
        is_m2m100_folder(path.parent_path()))
      return make_m2m100_tokenizer(path.parent_path());
    if (path.filename() == "vocab.json" || path.filename() == "merges.txt")
      return read_gpt2_tokenizer(path.parent_path());
    // Either .spm file stands for the Marian folder holding it, as MarianTokenizer reads both.
    if (path.filename() == "source.spm" || path.filename() == "target.spm")
      return make_marian_tokenizer(path.parent_path(), MarianSide::source);
    if (path.extension() == ".json") return read_tokenizer_json(path);
    if (path.extension() == ".model") return make_sentencepiece_tokenizer(path);
    if (path.filename() == "vocab.txt") return make_bert_vocab_tokenizer(path.parent_path());
    throw Error(fmt::format("{}: not a tokenizer file attnviz reads ({}, or a .gguf file)",
                            path.string(), k_tokenizer_files));
  }
  // MarianTokenizer has no fast form: transformers reads its .spm files even beside a
  // tokenizer.json.
  if (is_marian_folder(path)) return make_marian_tokenizer(path, MarianSide::source);
  // Nor has M2M100Tokenizer: its class, named in tokenizer_config.json, reads
  // sentencepiece.bpe.model with vocab.json.
  if (is_m2m100_folder(path)) return make_m2m100_tokenizer(path);
  if (fs::exists(path / "tokenizer.json", ec)) return read_tokenizer_json(path / "tokenizer.json");
  if (fs::exists(path / "vocab.json", ec) || fs::exists(path / "merges.txt", ec))
    return read_gpt2_tokenizer(path);
  for (const char* name : k_sentencepiece_names) {
    if (fs::exists(path / name, ec)) return make_sentencepiece_tokenizer(path / name);
  }
  if (fs::exists(path / "vocab.txt", ec)) return make_bert_vocab_tokenizer(path);
  return nullptr;
}

std::unique_ptr<Tokenizer> find_target_tokenizer(const fs::path& path) {
  std::error_code ec;
  if (auto dir = two_sided_folder(path)) return read_tokenizer_json(*dir / k_target_json);
  const bool spm = fs::is_regular_file(path, ec) &&
                   (path.filename() == "source.spm" || path.filename() == "target.spm");
  const fs::path dir = spm ? path.parent_path() : path;
  if ((spm || fs::is_directory(dir, ec)) && is_marian_folder(dir))
    return make_marian_tokenizer(dir, MarianSide::target);
  return nullptr;
}

}  // namespace attnviz
