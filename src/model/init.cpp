// `attnviz init`: random models of each architecture in the tensor names of their family.
#include "attnviz/model/init.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "attnviz/core/error.hpp"
#include "attnviz/io/atomic_file.hpp"
#include "attnviz/io/safetensors.hpp"
#include "attnviz/model/family.hpp"
#include "init_writer.hpp"

namespace attnviz {

namespace fs = std::filesystem;
using detail::InitWriter;
using Json = nlohmann::ordered_json;

namespace {

struct Dims {
  int d, heads, d_ff, layers, vocab, positions;
};

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

Json write_nanogpt(InitWriter& w, const Dims& n) {
  if (n.vocab > 0) w.embedding("transformer.wte.weight", n.vocab, n.d, 0.02f);
  w.embedding("transformer.wpe.weight", n.positions, n.d, 0.02f);
  for (int l = 0; l < n.layers; ++l) {
    const std::string p = fmt::format("transformer.h.{}.", l);
    w.layer_norm(p + "ln_1", n.d);
    w.torch_linear(p + "attn.c_attn", n.d, 3 * n.d);
    w.torch_linear(p + "attn.c_proj", n.d, n.d);
    w.layer_norm(p + "ln_2", n.d);
    w.torch_linear(p + "mlp.c_fc", n.d, n.d_ff);
    w.torch_linear(p + "mlp.c_proj", n.d_ff, n.d);
  }
  w.layer_norm("transformer.ln_f", n.d);
  return Json{{"arch", "decoder"}, {"n_heads", n.heads}, {"n_layer", n.layers}};
}

Json write_gpt2(InitWriter& w, const Dims& n) {
  w.embedding("wte.weight", n.vocab, n.d, 0.02f);
  w.embedding("wpe.weight", n.positions, n.d, 0.01f);
  for (int l = 0; l < n.layers; ++l) {
    const std::string p = fmt::format("h.{}.", l);
    w.layer_norm(p + "ln_1", n.d);
    w.hf_conv1d(p + "attn.c_attn", n.d, 3 * n.d);
    w.hf_conv1d(p + "attn.c_proj", n.d, n.d);
    w.layer_norm(p + "ln_2", n.d);
    w.hf_conv1d(p + "mlp.c_fc", n.d, n.d_ff);
    w.hf_conv1d(p + "mlp.c_proj", n.d_ff, n.d);
  }
  w.layer_norm("ln_f", n.d);
  return Json{{"model_type", "gpt2"},       {"n_embd", n.d},
              {"n_head", n.heads},          {"n_layer", n.layers},
              {"n_positions", n.positions}, {"n_inner", n.d_ff},
              {"layer_norm_epsilon", 1e-5}, {"activation_function", "gelu_new"},
              {"vocab_size", n.vocab}};
}

Json write_bert(InitWriter& w, const Dims& n) {
  w.embedding("embeddings.word_embeddings.weight", n.vocab, n.d, 0.02f);
  w.embedding("embeddings.position_embeddings.weight", n.positions, n.d, 0.02f);
  w.embedding("embeddings.token_type_embeddings.weight", 2, n.d, 0.02f);
  w.layer_norm("embeddings.LayerNorm", n.d);
  for (int l = 0; l < n.layers; ++l) {
    const std::string p = fmt::format("encoder.layer.{}.", l);
    for (const char* part : {"query", "key", "value"})
      w.hf_linear(p + "attention.self." + part, n.d, n.d);
    w.hf_linear(p + "attention.output.dense", n.d, n.d);
    w.layer_norm(p + "attention.output.LayerNorm", n.d);
    w.hf_linear(p + "intermediate.dense", n.d, n.d_ff);
    w.hf_linear(p + "output.dense", n.d_ff, n.d);
    w.layer_norm(p + "output.LayerNorm", n.d);
  }
  return Json{{"model_type", "bert"},           {"hidden_size", n.d},
              {"num_attention_heads", n.heads}, {"num_hidden_layers", n.layers},
              {"intermediate_size", n.d_ff},    {"max_position_embeddings", n.positions},
              {"type_vocab_size", 2},           {"layer_norm_eps", 1e-12},
              {"hidden_act", "gelu"},           {"vocab_size", n.vocab}};
}

// What gives the token table its rows, refused here when the model could never take text through
// it: a table of one row (GPT-2 and BERT always have a table), a tokenizer a layout without a table
// would ignore, or two vocabularies at once.
void check_vocabulary(const InitOptions& o) {
  if (is_hf_family(o.arch))
    return;  // their tokenizer is always written (the CLI's default or the user's)
  const bool tokenizer = !o.tokenizer_json.empty();
  if (tokenizer && !o.vocab.empty()) {
    throw usage_error("init: --vocab and --tokenizer both give the vocabulary: give one");
  }
  if (tokenizer && (o.arch == "encoder" || o.arch == "encoder-decoder")) {
    throw usage_error(fmt::format(
        "init --tokenizer: --arch {} (nn.Transformer's layout) holds no embedding table "
        "to size from it; use --arch mha, decoder, gpt2 or bert",
        o.arch));
  }
  if (tokenizer && o.vocab_size <= 0)
    throw usage_error("init --tokenizer: the tokenizer has no token");
  if ((o.arch == "gpt2" || o.arch == "bert") && !tokenizer && o.vocab.empty()) {
    throw usage_error(
        fmt::format("init --arch {}: its embedding table needs a vocabulary to size it: give "
                    "--tokenizer tokenizer.json or --vocab FILE",
                    o.arch));
  }
}

Dims dims_of(const InitOptions& o) {
  const bool learned = o.arch == "decoder" || o.arch == "gpt2" || o.arch == "bert";
  // The token table: one row per --vocab token, else per id of the tokenizer written beside it.
  const int vocab = o.vocab.empty() ? (o.tokenizer_json.empty() ? 0 : o.vocab_size)
                                    : static_cast<int>(o.vocab.size());
  Dims n{o.d_model,  o.n_heads, o.d_ff > 0 ? o.d_ff : 4 * o.d_model,
         o.n_layers, vocab,     o.max_positions > 0 ? o.max_positions : (learned ? 512 : 0)};
  if (n.d <= 0 || n.heads <= 0 || n.layers <= 0) {
    throw usage_error("init: --d-model, --heads and --layers must be positive");
  }
  if (is_hf_family(o.arch) && !o.vocab.empty()) {
    throw usage_error(fmt::format(
        "init --arch {}: the vocabulary is its tokenizer's (--tokenizer), not --vocab", o.arch));
  }
  check_vocabulary(o);
  if (o.arch != "mha" && n.d % n.heads != 0) {
    throw usage_error(fmt::format("init: --heads {} must divide --d-model {}", n.heads, n.d));
  }
  return n;
}

}  // namespace

std::vector<std::string> init_arch_names() {
  std::vector<std::string> names{"mha", "encoder", "decoder", "encoder-decoder", "gpt2", "bert"};
  for (const auto& name : init_family_names()) names.push_back(name);
  return names;
}

std::vector<std::string> init_model(const fs::path& dir, const InitOptions& o) {
  const Dims n = dims_of(o);
  if (!o.gguf_type.empty() && !is_hf_family(o.arch)) {
    throw usage_error(
        fmt::format("init --gguf: --arch {} has no GGUF layout in llama.cpp's families; use {}",
                    o.arch, or_list(init_family_names())));
  }
  InitWriter w(o.seed);
  Json config;
  if (!o.vocab.empty() && (o.arch == "encoder" || o.arch == "encoder-decoder")) {
    // PyTorch keeps nn.Embedding outside nn.TransformerEncoder / nn.Transformer: their layouts
    // have no table, so a vocabulary would be written and never used.
    throw usage_error(
        fmt::format("init: --vocab: --arch {} (nn.Transformer's layout) holds no embedding "
                    "table; use --arch mha, decoder, gpt2 or bert",
                    o.arch));
  }
  if (o.arch == "mha")
    config = write_mha(w, o, n);
  else if (o.arch == "encoder" || o.arch == "encoder-decoder")
    config = write_torch(w, o, n);
  else if (o.arch == "decoder")
    config = write_nanogpt(w, n);
  else if (o.arch == "gpt2")
    config = write_gpt2(w, n);
  else if (o.arch == "bert")
    config = write_bert(w, n);
  else if (is_hf_family(o.arch))
    config = detail::write_llama_family(w, o, n.d, n.heads, n.d_ff, n.layers);
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
  if (is_hf_family(o.arch)) {
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
