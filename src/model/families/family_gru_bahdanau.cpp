// The GRU encoder-decoder with Bahdanau's additive attention of PyTorch's translation tutorial
// ("NLP From Scratch: Translation with a Sequence to Sequence Network and Attention": EncoderRNN,
// AttnDecoderRNN, BahdanauAttention), as the tutorial's modules compute it in eval mode: the two
// modules' state_dicts in one safetensors file under encoder. and decoder., with the config.json
// docs/models-and-formats.md defines (model_type gru-bahdanau; the tutorial's SOS 0 and EOS 1 where
// it is silent).
#include "attnviz/model/layout_roles.hpp"
#include "family_records.hpp"

namespace attnviz::detail {

namespace {

using namespace roles;

Layout gru_bahdanau_layout() {
  Layout l;
  l.name = "gru-bahdanau";
  l.model_type = "gru-bahdanau";
  l.arch = Arch::encoder_decoder;
  l.recurrent = true;
  l.decoder_cross = true;
  l.detect = "decoder.attention.Va.weight";
  Roles& r = l.roles;
  for (const char* stack : {"encoder", "decoder"}) {
    const std::string s = stack;
    add(r, s + ".embed.token", s + ".embedding.weight");
    for (const char* part : {"weight_ih", "weight_hh", "bias_ih", "bias_hh"})
      add(r, s + ".gru." + part, s + ".gru." + part + "_l0");
  }
  linear(r, "decoder.cross.wa", "decoder.attention.Wa");
  linear(r, "decoder.cross.ua", "decoder.attention.Ua");
  linear(r, "decoder.cross.va", "decoder.attention.Va");
  linear(r, "unembed", "decoder.out");
  std::vector<std::string> all;
  for (const auto& role : r) all.push_back(role.role);
  require(r, all);
  l.every_tensor_bound = true;  // a second GRU layer or a reverse direction is refused, not dropped
  l.max_position_keys = {};     // a GRU reads any length
  l.config_defaults = {{"decoder_start_token_id", 0}, {"bos_token_id", 0}, {"eos_token_id", 1}};
  l.refused_keys.push_back({"bidirectional", "a bidirectional GRU (the tutorial's reads forward)"});
  l.refused_keys.push_back({"num_layers", "GRU layers beyond the tutorial's one"});
  return l;
}

}  // namespace

Family gru_bahdanau_record() {
  return Family{.title =
                    "PyTorch's translation tutorial: GRU encoder-decoder with Bahdanau "
                    "attention",
                .layout = gru_bahdanau_layout()};
}

}  // namespace attnviz::detail
