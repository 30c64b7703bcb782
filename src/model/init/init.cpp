// `attnviz init`: random models of each architecture in the tensor names of their family.
#include "attnviz/model/init.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "attnviz/core/error.hpp"
#include "attnviz/io/atomic_file.hpp"
#include "attnviz/io/safetensors.hpp"
#include "attnviz/model/family.hpp"
#include "init_detail.hpp"

namespace attnviz {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

namespace {

using Dims = InitDims;

// The --arch names of the records whose FamilyInit `keep` accepts, in registry order.
template <typename Keep>
std::vector<std::string> archs_where(Keep keep) {
  std::vector<std::string> names;
  for (const auto& f : families()) {
    if (f.init && keep(*f.init)) names.push_back(f.init_arch());
  }
  return names;
}

// The record init writes for --arch (the CLI checks it names one; a library caller may not).
const Family& family_of(const std::string& arch) {
  const Family* f = init_family(arch);
  if (!f) {
    throw usage_error(
        fmt::format("init: --arch {}: expected {}", arch, or_list(init_family_names())));
  }
  return *f;
}

// What gives the token table its rows, refused here when the model could never take text through
// it: a table of one row, a vocabulary a layout without a table would ignore, or two at once.
void check_vocabulary(const InitOptions& o, const Family& family) {
  const InitVocabulary kind = family.init->vocabulary;
  if (kind == InitVocabulary::tokenizer) {
    if (!o.vocab.empty()) {
      throw usage_error(fmt::format(
          "init --arch {}: the vocabulary is its tokenizer's (--tokenizer), not --vocab", o.arch));
    }
    return;  // their tokenizer is always written (the CLI's default or the user's)
  }
  const bool tokenizer = !o.tokenizer_json.empty();
  if (tokenizer && !o.vocab.empty()) {
    throw usage_error("init: --vocab and --tokenizer both give the vocabulary: give one");
  }
  if ((tokenizer || !o.vocab.empty()) && kind == InitVocabulary::none) {
    // PyTorch keeps nn.Embedding outside nn.TransformerEncoder / nn.Transformer: their layouts
    // have no table, so a vocabulary would be written and never used.
    const auto takes = archs_where([&](const FamilyInit& f) {
      return f.vocabulary != InitVocabulary::none &&
             (tokenizer || f.vocabulary != InitVocabulary::tokenizer);
    });
    throw usage_error(
        fmt::format("init {}: --arch {} (layout {}) holds no embedding table{}; use --arch {}",
                    tokenizer ? "--tokenizer" : "--vocab", o.arch, family.layout.name,
                    tokenizer ? " to size from it" : "", or_list(takes)));
  }
  if (tokenizer && o.vocab_size <= 0)
    throw usage_error("init --tokenizer: the tokenizer has no token");
  if (kind == InitVocabulary::required && !tokenizer && o.vocab.empty()) {
    throw usage_error(
        fmt::format("init --arch {}: its embedding table needs a vocabulary to size it: give "
                    "--tokenizer tokenizer.json or --vocab FILE",
                    o.arch));
  }
}

// The flags that shape some records only, refused elsewhere rather than ignored.
void check_flags(const InitOptions& o, const FamilyInit& f) {
  const auto refuse = [&](bool given, const char* flag, const std::string& shapes) {
    if (given) {
      throw usage_error(
          fmt::format("init {}: --arch {} has no use for it (it shapes {})", flag, o.arch, shapes));
    }
  };
  if (!f.head_widths) {
    const std::string only =
        or_list(archs_where([](const FamilyInit& i) { return i.head_widths; }));
    refuse(o.d_qk > 0, "--d-qk", only + " only");
    refuse(o.d_v > 0, "--d-v", only + " only");
    refuse(!o.out_proj, "--no-out-proj", only + " only");
  }
  if (!f.ffn) refuse(o.d_ff > 0, "--d-ff", "a feed-forward layer, which " + o.arch + " has not");
  if (!f.norm_first) {
    refuse(o.norm_first, "--norm-first",
           or_list(archs_where([](const FamilyInit& i) { return i.norm_first; })) + " only");
  }
  if (!f.preprocessor_config.empty()) {  // a vision model: the image's grid sets the length
    refuse(o.max_positions > 0, "--max-positions",
           "a text model's position table; a vision model's is its patch grid");
  }
  if (f.write) {  // the Llama line's records are the ones without a writer of their own
    refuse(o.n_kv_heads > 0, "--kv-heads",
           or_list(archs_where([](const FamilyInit& i) { return !i.write; })) + " only");
  }
}

Dims dims_of(const InitOptions& o, const Family& family) {
  check_flags(o, *family.init);
  const bool learned = family.layout.positional == Positional::learned;
  // The token table: one row per --vocab token, else per id of the tokenizer written beside it.
  const int vocab = o.vocab.empty() ? (o.tokenizer_json.empty() ? 0 : o.vocab_size)
                                    : static_cast<int>(o.vocab.size());
  Dims n{o.d_model,  o.n_heads, o.d_ff > 0 ? o.d_ff : 4 * o.d_model,
         o.n_layers, vocab,     o.max_positions > 0 ? o.max_positions : (learned ? 512 : 0)};
  if (n.d <= 0 || n.heads <= 0 || n.layers <= 0) {
    throw usage_error("init: --d-model, --heads and --layers must be positive");
  }
  check_vocabulary(o, family);
  // Separate head widths (--d-qk, --d-v) are checked by the writer that takes them.
  if (!family.init->head_widths && n.d % n.heads != 0) {
    throw usage_error(fmt::format("init: --heads {} must divide --d-model {}", n.heads, n.d));
  }
  return n;
}

}  // namespace

std::vector<std::string> init_gguf_family_names() {
  std::vector<std::string> names;
  for (const auto& f : families()) {
    if (f.init && !f.init->write && !f.gguf.arch.empty()) names.push_back(f.init_arch());
  }
  return names;
}

bool init_writes_tokenizer(const InitOptions& o) {
  const Family* f = init_family(o.arch);
  if (!f || !o.tokenizer_json.empty()) return false;
  return f->init->vocabulary == InitVocabulary::tokenizer ||
         (f->init->vocabulary == InitVocabulary::tokenizer_default && o.vocab.empty());
}

std::vector<std::string> init_model(const fs::path& dir, const InitOptions& o) {
  const Family& family = family_of(o.arch);
  const Dims n = dims_of(o, family);
  // The Llama line's records: written by their fields, as Hugging Face checkpoints.
  const bool llama_line = !family.init->write;
  if (!o.gguf_type.empty() && (!llama_line || family.gguf.arch.empty())) {
    throw usage_error(
        fmt::format("init --gguf: --arch {} has no GGUF layout in llama.cpp's families; use {}",
                    o.arch, or_list(init_gguf_family_names())));
  }
  InitWriter w(o.seed);
  Json config = llama_line ? detail::write_llama_family(w, o, n.d, n.heads, n.d_ff, n.layers)
                           : family.init->write(w, n, o);
  config["seed"] = o.seed;
  if (!o.gguf_type.empty()) {
    detail::write_family_gguf(dir, w, config, o);
    return {dir.filename().string()};
  }

  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw Error(fmt::format("{}: cannot create directory: {}", dir.string(), ec.message()));
  // Hugging Face's checkpoints carry {"format": "pt"} only; the config is config.json's.
  std::map<std::string, std::string> metadata;
  if (llama_line) {
    metadata["format"] = "pt";
  } else {
    for (const auto& [key, value] : config.items()) {
      metadata[key] = value.is_string() ? value.get<std::string>() : value.dump();
    }
  }
  std::vector<TensorView> views;
  for (const auto& t : w.tensors()) views.push_back({t.name, t.shape, t.data.data()});
  std::vector<std::string> written{"model.safetensors", "config.json"};
  write_safetensors(dir / "model.safetensors", views, metadata);
  write_file_atomically(dir / "config.json", config.dump(2) + "\n");
  if (!o.tokenizer_json.empty()) {
    write_file_atomically(dir / "tokenizer.json", o.tokenizer_json);
    written.push_back("tokenizer.json");
  }
  if (!o.tokenizer_config_json.empty()) {
    write_file_atomically(dir / "tokenizer_config.json", o.tokenizer_config_json);
    written.push_back("tokenizer_config.json");
  }
  if (!family.init->preprocessor_config.empty()) {
    write_file_atomically(dir / "preprocessor_config.json", family.init->preprocessor_config);
    written.push_back("preprocessor_config.json");
  }
  if (!o.vocab.empty()) {
    std::string text;
    for (const auto& token : o.vocab) text += token + "\n";
    write_file_atomically(dir / "vocab.txt", text);
    written.push_back("vocab.txt");
  }
  return written;
}

}  // namespace attnviz
