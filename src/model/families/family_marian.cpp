// Marian (Hugging Face MarianMTModel: Helsinki-NLP/opus-mt-*), as transformers' modeling_marian.py
// computes it: BART's line (bart_line.hpp) with post-norm layers, no embedding norm and no final
// norm on either stack, embeddings scaled by √d when scale_embedding, static sinusoidal positions
// laid out sines first, cosines after (MarianSinusoidalPositionalEmbedding, from position 0 in each
// stack), final_logits_bias added to the logits.
#include "attnviz/model/layout_roles.hpp"
#include "bart_line.hpp"
#include "family_records.hpp"

namespace attnviz::detail {

namespace {

using namespace roles;

Layout marian_layout() {
  Layout l = bart_line_layout("marian", "marian");
  l.positional = Positional::sinusoidal;
  l.sinusoid = SinusoidLayout::halves;
  // Older saves hold each stack's table of the sinusoid: checked against the computed one.
  add(l.roles, "embed.sinusoid", "model.encoder.embed_positions.weight");
  add(l.roles, "embed.sinusoid", "model.decoder.embed_positions.weight");
  l.config_aliases.push_back({"vocab_size", {"decoder_vocab_size"}});
  // MarianConfig's defaults where config.json is silent.
  l.config_defaults = {{"num_attention_heads", 16},
                       {"max_position_embeddings", 1024},
                       {"decoder_start_token_id", 58100}};
  l.refused_keys.push_back({"share_encoder_decoder_embeddings",
                            "separate source and target embeddings (a target vocabulary of its "
                            "own)",
                            true});
  return l;
}

}  // namespace

Family marian_record() {
  return Family{.title = "Marian (`MarianMTModel`, Helsinki-NLP opus-mt)",
                .layout = marian_layout()};
}

}  // namespace attnviz::detail
