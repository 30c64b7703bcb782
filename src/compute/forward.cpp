// The forward pass: embeddings are done by the caller; here the stacks run and every map is emitted.
#include "attnviz/compute/forward.hpp"

#include <fmt/format.h>

#include "attnviz/compute/attention.hpp"
#include "attnviz/compute/norm.hpp"
#include "attnviz/compute/transformer_layer.hpp"
#include "attnviz/core/error.hpp"
#include "attnviz/core/row_list.hpp"

namespace attnviz {

std::vector<HeadId> attention_maps(const Config& c, bool has_source) {
  std::vector<HeadId> ids;
  auto add = [&ids](const std::string& stack, int layers, bool cross) {
    for (int l = 0; l < layers; ++l) {
      ids.push_back(HeadId{stack, l, Site::self, 0});
      if (cross) ids.push_back(HeadId{stack, l, Site::cross, 0});
    }
  };
  switch (c.arch) {
    case Arch::mha:
      ids.push_back(HeadId{"", 0, has_source ? Site::cross : Site::self, 0});
      break;
    case Arch::encoder:
      add("", c.n_encoder_layers, false);
      break;
    case Arch::decoder:
      add("", c.n_decoder_layers, c.decoder_cross);
      break;
    case Arch::encoder_decoder:
      add("encoder", c.n_encoder_layers, false);
      add("decoder", c.n_decoder_layers, true);
      break;
  }
  return ids;
}

namespace {

// Everything about one attention site of a stack except the layer index.
// Labels point into the caller's inputs and masks are shared, so both outlive the forward pass.
struct SiteSpec {
  std::shared_ptr<const Mask> mask;
  const Sequence* queries = nullptr;
  const Matrix* keys = nullptr;  // the key/value input: a sequence, or the encoder's output
  const std::vector<std::string>* key_labels = nullptr;
};

SiteSpec spec_of(std::shared_ptr<const Mask> mask, const Sequence& queries, const Sequence& keys) {
  return {std::move(mask), &queries, &keys.x, &keys.labels};
}

class Runner {
 public:
  Runner(const Model& model, const ForwardOptions& options, AttentionSink* sink, ForwardResult& result)
      : model_(model), options_(options), sink_(sink), result_(result) {}

  AttentionSite site(const std::string& stack, Site kind, int layer, const SiteSpec& spec) const {
    AttentionSite s;
    s.id.stack = stack;
    s.id.site = kind;
    s.id.layer = layer;
    s.mask = spec.mask;
    s.query_labels = &spec.queries->labels;
    s.key_labels = spec.key_labels;
    s.scale = options_.scale;
    s.block_rows = options_.block_rows;
    s.sink = sink_;
    return s;
  }

  // A warning for rows whose keys are all masked (the same in every layer of the site).
  void check_masked(const std::string& name, const SiteSpec& spec) {
    const int n_q = static_cast<int>(spec.queries->x.rows()), n_k = static_cast<int>(spec.keys->rows());
    const auto rows = fully_masked_rows(*spec.mask, n_q, n_k);
    if (rows.empty()) return;
    result_.warnings.push_back(
        fmt::format("{}: every key is masked for query rows {} ({} of {}); they are zero rows, not attention",
                    name, format_row_list(rows), rows.size(), n_q));
  }

  Matrix stack(const StackWeights& w, const std::string& name, const Sequence& input,
               const SiteSpec& self, const SiteSpec* cross) {
    const std::string prefix = name.empty() ? "" : name + ".";
    check_masked(prefix + "layer*.self", self);
    if (cross) check_masked(prefix + "layer*.cross", *cross);
    Matrix x = input.x;
    for (int l = 0; l < static_cast<int>(w.layers.size()); ++l) {
      const AttentionSite self_site = site(name, Site::self, l, self);
      const AttentionSite cross_site = cross ? site(name, Site::cross, l, *cross) : AttentionSite{};
      x = transformer_layer(x, w.layers[l], model_.config, self_site, cross ? cross->keys : nullptr,
                            cross ? &cross_site : nullptr);
    }
    if (w.final_norm) x = normalize(x, *w.final_norm, model_.config);
    return x;
  }

  Matrix lone_attention(const SiteSpec& spec, Site kind) {
    check_masked(fmt::format("layer0.{}", site_name(kind)), spec);
    const AttentionWeights& w = model_.weights.encoder.layers.at(0).self_attn;
    return multi_head_attention(spec.queries->x, *spec.keys, w, model_.config.n_heads,
                                site("", kind, 0, spec));
  }

 private:
  const Model& model_;
  const ForwardOptions& options_;
  AttentionSink* sink_;
  ForwardResult& result_;
};

const Sequence& require_source(const ForwardInputs& in, const Model& model) {
  if (!in.source) {
    throw usage_error(fmt::format("{} ({} layout) attends to a source: give --source-tokens, "
                                  "--source-ids or --source-embeddings",
                                  model.name, model.config.layout));
  }
  return *in.source;
}

}  // namespace

ForwardResult forward(const Model& model, const ForwardInputs& in, const ForwardOptions& options,
                      AttentionSink* sink) {
  const Config& c = model.config;
  ForwardResult result;
  Runner run(model, options, sink, result);
  // Masks are shared with the sinks, which may keep them past this call.
  auto self_mask = std::make_shared<Mask>(in.target_mask);
  self_mask->causal = self_mask->causal || c.causal;
  const SiteSpec self = spec_of(self_mask, in.target, in.target);
  const auto source_mask = std::make_shared<const Mask>(in.source_mask);

  switch (c.arch) {
    case Arch::mha:
      // Self-attention feeds the target to k and v too: they must read d_model-wide rows (a
      // k weight [8, 7] would otherwise be multiplied with 8-wide rows, wrong in Release).
      if (!in.source && (c.kdim != c.d_model || c.vdim != c.d_model)) {
        throw usage_error(fmt::format("{}: keys and values are {} / {} wide (kdim / vdim), not d_model {}: "
                                      "self-attention needs them equal; give a source input of width {}",
                                      model.name, c.kdim, c.vdim, c.d_model, c.kdim));
      }
      result.hidden = in.source ? run.lone_attention(spec_of(source_mask, in.target, *in.source), Site::cross)
                                : run.lone_attention(self, Site::self);
      break;
    case Arch::encoder:
      if (in.source) throw usage_error(fmt::format("{} is an encoder: it has no cross-attention for a source", model.name));
      result.hidden = run.stack(model.weights.encoder, "", in.target, self, nullptr);
      break;
    case Arch::decoder: {
      if (!c.decoder_cross) {
        if (in.source) throw usage_error(fmt::format("{} is a decoder without cross-attention: it takes no source", model.name));
        result.hidden = run.stack(model.weights.decoder, "", in.target, self, nullptr);
        break;
      }
      const SiteSpec cross = spec_of(source_mask, in.target, require_source(in, model));
      result.hidden = run.stack(model.weights.decoder, "", in.target, self, &cross);
      break;
    }
    case Arch::encoder_decoder: {
      const Sequence& source = require_source(in, model);
      auto encoder_mask = std::make_shared<Mask>();  // the encoder sees every source token but padding
      encoder_mask->n_pad_keys = in.source_mask.n_pad_keys;
      Matrix memory = run.stack(model.weights.encoder, "encoder", source,
                                spec_of(encoder_mask, source, source), nullptr);
      self_mask->causal = true;  // the decoder never sees later target tokens
      SiteSpec cross = spec_of(source_mask, in.target, source);
      cross.keys = &memory;  // keys and values come from the encoder's output
      result.hidden = run.stack(model.weights.decoder, "decoder", in.target,
                                self, &cross);
      result.encoder_hidden = std::move(memory);
      break;
    }
  }
  const auto bad = (!result.hidden.array().isFinite()).count();
  if (bad > 0) {
    result.warnings.push_back(fmt::format("the final hidden states hold {} NaN or inf values of {}", bad,
                                          result.hidden.size()));
  }
  return result;
}

}  // namespace attnviz
