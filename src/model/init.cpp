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

// The record init writes for --arch, or nullptr for PyTorch's own modules (mha, encoder, …).
const FamilyInit* family_init(const std::string& arch) {
  const Family* f = init_family(arch);
  return f ? &*f->init : nullptr;
}

// The --arch values whose token table a --tokenizer sizes (`vocab`: that --vocab sizes).
std::string table_archs(bool vocab) {
  std::vector<std::string> names{"mha"};
  for (const auto& name : init_family_names()) {
    if (!vocab || family_init(name)->vocabulary != InitVocabulary::tokenizer) names.push_back(name);
  }
  return or_list(names);
}

// nn.MultiheadAttention's parameters under `p` (fused in_proj).
void torch_attention(InitWriter& w, const std::string& p, int d) {
  w.torch_linear(p + "in_proj", d, 3 * d, "_");
  w.torch_linear(p + "out_proj", d, d);
}

void torch_layer(InitWriter& w, const std::string& p, const Dims& n, bool cross) {
  torch_attention(w, p + "self_attn.", n.d);
  if (cross) torch_attention(w, p + "multihead_attn.", n.d);
  w.torch_linear(p + "linear1", n.d, n.d_ff);
  w.torch_linear(p + "linear2", n.d_ff, n.d);
  for (int i = 1; i <= (cross ? 3 : 2); ++i) w.layer_norm(fmt::format("{}norm{}", p, i), n.d);
}

Json write_mha(InitWriter& w, const InitOptions& o, const Dims& n) {
  const int d_qk = o.d_qk > 0 ? o.d_qk : n.d, d_v = o.d_v > 0 ? o.d_v : n.d;
  if (d_qk % n.heads || d_v % n.heads) {
    throw usage_error(
        fmt::format("init: --heads {} must divide d_qk = {} and d_v = {}", n.heads, d_qk, d_v));
  }
  w.torch_linear("q", n.d, d_qk);
  w.torch_linear("k", n.d, d_qk);
  w.torch_linear("v", n.d, d_v);
  if (o.out_proj) w.torch_linear("out", d_v, n.d);
  if (n.vocab > 0) w.embedding("embed.weight", n.vocab, n.d, 1.0f);  // nn.Embedding ~ N(0, 1)
  Json c{{"arch", "mha"}, {"d_model", n.d}, {"n_heads", n.heads}, {"d_qk", d_qk}, {"d_v", d_v}};
  if (o.max_positions > 0) c["max_positions"] = o.max_positions;
  return c;
}

Json write_torch(InitWriter& w, const InitOptions& o, const Dims& n) {
  const bool both = o.arch == "encoder-decoder";
  for (int l = 0; l < n.layers; ++l) {
    torch_layer(w, fmt::format("{}layers.{}.", both ? "encoder." : "", l), n, false);
  }
  w.layer_norm(both ? "encoder.norm" : "norm", n.d);
  if (both) {
    for (int l = 0; l < n.layers; ++l)
      torch_layer(w, fmt::format("decoder.layers.{}.", l), n, true);
    w.layer_norm("decoder.norm", n.d);
  }
  Json c{{"arch", o.arch},       {"n_heads", n.heads},     {"norm_first", o.norm_first},
         {"activation", "relu"}, {"layer_norm_eps", 1e-5}, {"positional", "sinusoidal"},
         {"pe_base", 10000.0}};
  if (o.max_positions > 0) c["max_positions"] = o.max_positions;
  return c;
}

// What gives the token table its rows, refused here when the model could never take text through
// it: a table of one row, a tokenizer a layout without a table would ignore, or two vocabularies
// at once.
void check_vocabulary(const InitOptions& o) {
  const FamilyInit* f = family_init(o.arch);
  if (f && f->vocabulary == InitVocabulary::tokenizer) {
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
  if ((tokenizer || !o.vocab.empty()) && !f && o.arch != "mha") {
    // PyTorch keeps nn.Embedding outside nn.TransformerEncoder / nn.Transformer: their layouts
    // have no table, so a vocabulary would be written and never used.
    throw usage_error(
        fmt::format("init {}: --arch {} (nn.Transformer's layout) holds no embedding table{}; use "
                    "--arch {}",
                    tokenizer ? "--tokenizer" : "--vocab", o.arch,
                    tokenizer ? " to size from it" : "", table_archs(!tokenizer)));
  }
  if (tokenizer && o.vocab_size <= 0)
    throw usage_error("init --tokenizer: the tokenizer has no token");
  if (f && f->vocabulary == InitVocabulary::required && !tokenizer && o.vocab.empty()) {
    throw usage_error(
        fmt::format("init --arch {}: its embedding table needs a vocabulary to size it: give "
                    "--tokenizer tokenizer.json or --vocab FILE",
                    o.arch));
  }
}

// The flags that shape one kind of model only, refused elsewhere rather than ignored.
void check_flags(const InitOptions& o, const Family* family) {
  const auto refuse = [&](bool given, const char* flag, const std::string& only) {
    if (given) {
      throw usage_error(
          fmt::format("init {}: --arch {} has no use for it (it shapes {})", flag, o.arch, only));
    }
  };
  if (o.arch != "mha") {
    refuse(o.d_qk > 0, "--d-qk", "mha only");
    refuse(o.d_v > 0, "--d-v", "mha only");
    refuse(!o.out_proj, "--no-out-proj", "mha only");
  } else {
    refuse(o.d_ff > 0, "--d-ff", "a feed-forward layer, which mha has not");
  }
  if (o.arch != "encoder" && o.arch != "encoder-decoder")
    refuse(o.norm_first, "--norm-first", "encoder and encoder-decoder only");
  std::vector<std::string> grouped;  // the Llama line's families
  for (const auto& f : families()) {
    if (f.init && !f.init->write) grouped.push_back(f.init_arch());
  }
  if (!family || family->init->write)
    refuse(o.n_kv_heads > 0, "--kv-heads", or_list(grouped) + " only");
}

Dims dims_of(const InitOptions& o) {
  const Family* family = init_family(o.arch);
  check_flags(o, family);
  const bool learned = family && family->layout.positional == Positional::learned;
  // The token table: one row per --vocab token, else per id of the tokenizer written beside it.
  const int vocab = o.vocab.empty() ? (o.tokenizer_json.empty() ? 0 : o.vocab_size)
                                    : static_cast<int>(o.vocab.size());
  Dims n{o.d_model,  o.n_heads, o.d_ff > 0 ? o.d_ff : 4 * o.d_model,
         o.n_layers, vocab,     o.max_positions > 0 ? o.max_positions : (learned ? 512 : 0)};
  if (n.d <= 0 || n.heads <= 0 || n.layers <= 0) {
    throw usage_error("init: --d-model, --heads and --layers must be positive");
  }
  check_vocabulary(o);
  if (o.arch != "mha" && n.d % n.heads != 0) {
    throw usage_error(fmt::format("init: --heads {} must divide --d-model {}", n.heads, n.d));
  }
  return n;
}

}  // namespace

std::vector<std::string> torch_arch_names() {
  return {"mha", "encoder", "encoder-decoder"};
}

std::vector<std::string> init_arch_names() {
  std::vector<std::string> names = torch_arch_names();
  for (const auto& name : init_family_names()) names.push_back(name);
  return names;
}

std::vector<std::string> init_gguf_family_names() {
  std::vector<std::string> names;
  for (const auto& f : families()) {
    if (f.init && !f.init->write && !f.gguf.arch.empty()) names.push_back(f.init_arch());
  }
  return names;
}

bool init_writes_tokenizer(const InitOptions& o) {
  const FamilyInit* f = family_init(o.arch);
  if (!f || !o.tokenizer_json.empty()) return false;
  return f->vocabulary == InitVocabulary::tokenizer ||
         (f->vocabulary == InitVocabulary::tokenizer_default && o.vocab.empty());
}

std::vector<std::string> init_model(const fs::path& dir, const InitOptions& o) {
  const Dims n = dims_of(o);
  const Family* family = init_family(o.arch);
  // The Llama line's records: written by their fields, as Hugging Face checkpoints.
  const bool llama_line = family && !family->init->write;
  if (!o.gguf_type.empty() && (!llama_line || family->gguf.arch.empty())) {
    throw usage_error(
        fmt::format("init --gguf: --arch {} has no GGUF layout in llama.cpp's families; use {}",
                    o.arch, or_list(init_gguf_family_names())));
  }
  InitWriter w(o.seed);
  Json config;
  if (o.arch == "mha")
    config = write_mha(w, o, n);
  else if (o.arch == "encoder" || o.arch == "encoder-decoder")
    config = write_torch(w, o, n);
  else if (llama_line)
    config = detail::write_llama_family(w, o, n.d, n.heads, n.d_ff, n.layers);
  else if (family)
    config = family->init->write(w, n);
  else
    throw usage_error(
        fmt::format("init: --arch {}: expected {}", o.arch, or_list(init_arch_names())));
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
  if (!o.vocab.empty()) {
    std::string text;
    for (const auto& token : o.vocab) text += token + "\n";
    write_file_atomically(dir / "vocab.txt", text);
    written.push_back("vocab.txt");
  }
  return written;
}

}  // namespace attnviz
