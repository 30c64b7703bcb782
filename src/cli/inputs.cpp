// Turning --tokens / --ids / --embeddings into sequences, with clear errors.
#include "attnviz/cli/inputs.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "attnviz/compute/embedding.hpp"
#include "attnviz/core/error.hpp"
#include "attnviz/io/npy.hpp"
#include "attnviz/inputs/tokens.hpp"

namespace attnviz {

Vocabulary vocabulary_of(const Model& model) {
  return model.weights.embed.token ? read_vocabulary(model.dir) : Vocabulary{};
}

Sequence embed_tokens(const Model& model, const Vocabulary& vocab, const std::vector<std::string>& tokens) {
  if (!model.weights.embed.token) return embed_hashed(model, tokens);
  check_length(model, tokens.size(), "tokens");
  TokenIds t = look_up_tokens(vocab, tokens, model.name, model.config.vocab_size);
  Sequence seq = embed_ids(model, t.ids, std::move(t.labels));
  seq.notes = std::move(t.notes);
  return seq;
}

Sequence resolve_sequence(const Model& model, const Vocabulary& vocab, const std::string& tokens,
                          const std::string& ids, const std::string& embeddings, const std::string& role) {
  const std::string flag = role == "source" ? "--source-" : "--";
  if (!ids.empty() && (!tokens.empty() || !embeddings.empty())) {
    throw usage_error(fmt::format("{}ids cannot be combined with {}tokens or {}embeddings", flag,
                                  flag, flag));
  }
  // A lone attention module's keys and values may have their own width (nn.MultiheadAttention's
  // kdim / vdim); one source sequence feeds both, so they must agree.
  const Config& c = model.config;
  const bool kv_input = role == "source" && c.arch == Arch::mha;
  if (kv_input && c.kdim != c.vdim) {
    throw Error(fmt::format("{}: kdim {} ≠ vdim {}: attnviz feeds one source sequence to both keys and "
                            "values", model.name, c.kdim, c.vdim));
  }
  const int width = kv_input ? c.kdim : c.d_model;
  if (!embeddings.empty()) {
    std::vector<std::string> labels;
    if (!tokens.empty()) labels = read_tokens(tokens);
    return embedded_input(model, read_npy(embeddings), std::move(labels), embeddings, width);
  }
  if (width != c.d_model) {
    throw usage_error(fmt::format("{}: keys and values are {} wide (kdim), not d_model {}: give "
                                  "{}embeddings of that width", model.name, width, c.d_model, flag));
  }
  if (!ids.empty()) {
    std::error_code ec;  // a long id list is no file name: is_regular_file must not throw on it
    const bool is_file = ids == "-" || std::filesystem::is_regular_file(ids, ec);
    const auto list = parse_ids(is_file ? read_text_file(ids) : ids, is_file ? ids : flag + "ids");
    return embed_ids(model, list, id_labels(vocab, list));
  }
  if (!tokens.empty()) return embed_tokens(model, vocab, read_tokens(tokens));
  throw usage_error(fmt::format("no {} input: give {}tokens, {}ids or {}embeddings", role, flag, flag,
                                flag));
}

}  // namespace attnviz
