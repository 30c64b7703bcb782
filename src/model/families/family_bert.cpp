// BERT (Hugging Face BertModel, with or without BertForMaskedLM's "bert." prefix): learned
// positions and token types, post-norm LayerNorm (eps 1e-12), GELU, bidirectional attention.
#include <fmt/format.h>

#include "attnviz/model/init_writer.hpp"
#include "attnviz/model/layout_roles.hpp"
#include "family_records.hpp"

namespace attnviz::detail {

namespace {

using namespace roles;
using Json = nlohmann::ordered_json;

Layout bert_layout() {
  Layout l{.name = "bert",
           .arch = Arch::encoder,
           .detect = "encoder.layer.{layer}.attention.self.query.weight",
           .activation = Activation::gelu,
           .layer_norm_eps = 1e-12f,
           .positional = Positional::learned,
           .model_type = "bert"};
  l.prefixes = {"bert.", ""};
  add(l.roles, "embed.token", "embeddings.word_embeddings.weight");
  add(l.roles, "embed.position", "embeddings.position_embeddings.weight");
  add(l.roles, "embed.token_type", "embeddings.token_type_embeddings.weight");
  norm(l.roles, "embed.norm", "embeddings.LayerNorm");
  const std::string p = "encoder.layer.{layer}.";
  linear(l.roles, "encoder.self.q", p + "attention.self.query");
  linear(l.roles, "encoder.self.k", p + "attention.self.key");
  linear(l.roles, "encoder.self.v", p + "attention.self.value");
  linear(l.roles, "encoder.self.out", p + "attention.output.dense");
  norm(l.roles, "encoder.norm_self", p + "attention.output.LayerNorm");
  linear(l.roles, "encoder.ffn.up", p + "intermediate.dense");
  linear(l.roles, "encoder.ffn.down", p + "output.dense");
  norm(l.roles, "encoder.norm_ffn", p + "output.LayerNorm");
  for (auto& r : l.roles) r.required = true;  // BertModel has every one, biases included
  return l;
}

// BertModel's checkpoint: N(0, 0.02) weights and embeddings, zero biases, two token types;
// config.json as BertConfig names it.
Json write_bert(InitWriter& w, const InitDims& n, const InitOptions&) {
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

}  // namespace

Family bert_record() {
  return Family{.title = "BERT",
                .layout = bert_layout(),
                .init = FamilyInit{.vocabulary = InitVocabulary::required, .write = write_bert}};
}

}  // namespace attnviz::detail
