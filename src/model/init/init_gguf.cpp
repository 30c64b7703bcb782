// `attnviz init --arch <family> --gguf TYPE`: the random checkpoint as llama.cpp's
// convert_hf_to_gguf.py writes it (names, u32 counts, Llama's q/k permutation, Gemma's 1 + w norms,
// Llama 3's rope_freqs, the tokenizer as tokenizer.ggml.*), then typed per tensor as llama-quantize
// would.
#include <fmt/format.h>

#include <cmath>

#include "attnviz/core/error.hpp"
#include "attnviz/io/gguf/gguf_write.hpp"
#include "attnviz/model/family.hpp"
#include "attnviz/model/gguf_tensors.hpp"
#include "gguf_quant_mix.hpp"
#include "init_detail.hpp"
#include "init_gguf_tokenizer.hpp"

namespace attnviz::detail {

namespace {

using Json = nlohmann::ordered_json;
namespace fs = std::filesystem;

uint32_t count(const Json& c, const char* key) {
  return c.at(key).get<uint32_t>();
}

// LlamaModel.generate_extra_tensors for rope_type llama3: one divisor per rotary pair.
std::vector<float> llama3_rope_freqs(const Json& c) {
  const Json& s = c.at("rope_scaling");
  const double base = c.at("rope_theta").get<double>(), factor = s.at("factor").get<double>();
  const double low = s.at("low_freq_factor").get<double>(),
               high = s.at("high_freq_factor").get<double>();
  const double old_len = s.at("original_max_position_embeddings").get<double>();
  const int dim = c.at("head_dim").get<int>();
  std::vector<float> out;
  for (int i = 0; i < dim; i += 2) {
    // torch: 1 / base ** (arange(0, dim, 2, float32) / dim), in float32
    const float freq =
        1.0f / std::pow(static_cast<float>(base), static_cast<float>(i) / static_cast<float>(dim));
    const double wavelen = 2 * M_PI / freq;
    if (wavelen < old_len / high) {
      out.push_back(1.0f);
    } else if (wavelen > old_len / low) {
      out.push_back(static_cast<float>(factor));
    } else {
      const double smooth = (old_len / wavelen - low) / (high - low);
      out.push_back(static_cast<float>(1 / ((1 - smooth) / factor + smooth)));
    }
  }
  return out;
}

void add_hparams(GgufWriter& g, const Json& c, const Family& f, const GgufFileType& type) {
  const std::string a = f.gguf.arch + ".";
  g.set("general.architecture", gguf_string(f.gguf.arch));
  // Not the family's name: llama.cpp sets token attributes by general.name ("phi3": it needs a
  // "</s>").
  g.set("general.name", gguf_string("attnviz init"));
  g.set("general.file_type", gguf_scalar<uint32_t>(type.llama_ftype));
  g.set("general.quantization_version", gguf_scalar<uint32_t>(2));
  g.set(a + "context_length", gguf_scalar<uint32_t>(count(c, "max_position_embeddings")));
  g.set(a + "embedding_length", gguf_scalar<uint32_t>(count(c, "hidden_size")));
  g.set(a + "block_count", gguf_scalar<uint32_t>(count(c, "num_hidden_layers")));
  g.set(a + "feed_forward_length", gguf_scalar<uint32_t>(count(c, "intermediate_size")));
  g.set(a + "attention.head_count", gguf_scalar<uint32_t>(count(c, "num_attention_heads")));
  g.set(a + "attention.head_count_kv", gguf_scalar<uint32_t>(count(c, "num_key_value_heads")));
  g.set(a + "rope.freq_base", gguf_scalar<float>(c.at("rope_theta").get<float>()));
  g.set(a + "attention.layer_norm_rms_epsilon",
        gguf_scalar<float>(c.at("rms_norm_eps").get<float>()));
  g.set(a + "attention.key_length", gguf_scalar<uint32_t>(count(c, "head_dim")));
  g.set(a + "attention.value_length", gguf_scalar<uint32_t>(count(c, "head_dim")));
  for (const auto& k : f.gguf.written_keys) {  // the family's own, as its converter writes them
    g.set(a + k.key, k.number ? gguf_scalar<float>(c.at(k.hf).get<float>())
                              : gguf_scalar<uint32_t>(count(c, k.hf.c_str())));
  }
}

struct Out {
  std::string name;
  std::vector<int64_t> dims;  // ggml order
  std::vector<float> data;
};

// A Hugging Face tensor as the converter writes it: renamed, q/k permuted (Llama's converter), norm
// gains stored as offset + w (Gemma's 1 + w).
Out converted(InitWriter::Named&& t, const Family& f, const Json& c) {
  const auto name = gguf_tensor_name(f.gguf.arch, t.name);
  if (!name) {
    throw Error(
        fmt::format("init --gguf: no llama.cpp name for '{}' of {}", t.name, f.layout.name));
  }
  Out o{*name, {t.shape.rbegin(), t.shape.rend()}, std::move(t.data)};
  const bool q = name->find(".attn_q.") != std::string::npos,
             k = name->find(".attn_k.") != std::string::npos;
  if (gguf_family(f.gguf.arch)->gguf.permuted_qk && (q || k)) {
    const int64_t rows = t.shape.front();
    permute_rows(o.data, rows, int64_t(o.data.size()) / rows,
                 count(c, q ? "num_attention_heads" : "num_key_value_heads"), false);
  }
  if (f.layout.norm_offset != 0.0f && name->ends_with("norm.weight")) {
    for (float& x : o.data) x += f.layout.norm_offset;
  }
  return o;
}

}  // namespace

void write_family_gguf(const fs::path& file, InitWriter& w, const Json& config,
                       const InitOptions& o) {
  const GgufFileType* type = gguf_file_type(o.gguf_type);
  if (!type) {
    throw usage_error(fmt::format("init --gguf {}: not a type attnviz writes (it writes {})",
                                  o.gguf_type, gguf_file_type_names()));
  }
  std::vector<Out> tensors;
  if (config.contains("rope_scaling") &&
      config["rope_scaling"].value("rope_type", "") == "llama3") {
    const std::vector<float> f = llama3_rope_freqs(config);
    tensors.push_back({"rope_freqs.weight", {int64_t(f.size())}, f});
  }
  const Family& f = *init_family(o.arch);
  for (auto& t : w.take()) tensors.push_back(converted(std::move(t), f, config));
  std::vector<MixTensor> mix;
  for (const auto& t : tensors) mix.push_back({t.name, t.dims});
  const MixModel model{int(count(config, "num_hidden_layers")),
                       int(count(config, "num_attention_heads")),
                       int(count(config, "num_key_value_heads"))};
  const std::vector<uint32_t> types = llama_quant_types(mix, model, *type);
  GgufWriter g;
  add_hparams(g, config, f, *type);
  add_gguf_tokenizer(g, o);
  for (size_t i = 0; i < tensors.size(); ++i) {
    g.add_tensor(tensors[i].name, tensors[i].dims, types[i], tensors[i].data);
    std::vector<float>().swap(tensors[i].data);  // converted: only its bytes are kept
  }
  g.write(file);
}

}  // namespace attnviz::detail
