// The forward pass: embeddings are done by the caller; here the stacks run and every map is
// emitted.
#include "attnviz/compute/forward.hpp"

#include <fmt/format.h>

#include "attnviz/compute/attention.hpp"
#include "attnviz/compute/norm.hpp"
#include "attnviz/compute/recurrent.hpp"
#include "attnviz/compute/transformer_layer.hpp"
#include "attnviz/core/error.hpp"
#include "attnviz/core/row_list.hpp"

namespace attnviz {

std::vector<StackPlan> plan_stacks(const Model& model, bool has_source) {
  const Config& c = model.config;
  const auto need_source = [&] {
    if (!has_source) {
      throw usage_error(
          fmt::format("{} ({} layout) attends to a source: give --source-tokens, "
                      "--source-ids or --source-embeddings",
                      model.name, c.layout));
    }
  };
  switch (c.arch) {
    case Arch::mha:
      // Self-attention feeds the target to k and v too: they must read d_model-wide rows (a
      // k weight [8, 7] would otherwise be multiplied with 8-wide rows, wrong in Release).
      if (!has_source && (c.kdim != c.d_model || c.vdim != c.d_model)) {
        throw usage_error(
            fmt::format("{}: keys and values are {} / {} wide (kdim / vdim), not d_model {}: "
                        "self-attention needs them equal; give a source input of width {}",
                        model.name, c.kdim, c.vdim, c.d_model, c.kdim));
      }
      return {StackPlan{.n_layers = 1,
                        .lone = true,
                        .lone_site = has_source ? Site::cross : Site::self,
                        .causal = c.causal}};
    case Arch::encoder:
      if (has_source)
        throw usage_error(
            fmt::format("{} is an encoder: it has no cross-attention for a source", model.name));
      return {StackPlan{.n_layers = c.n_encoder_layers, .causal = c.causal}};
    case Arch::decoder:
      if (!c.decoder_cross && has_source) {
        throw usage_error(
            fmt::format("{} is a decoder without cross-attention: it takes no source", model.name));
      }
      if (c.decoder_cross) need_source();
      return {StackPlan{.decoder = true,
                        .n_layers = c.n_decoder_layers,
                        .cross = c.decoder_cross,
                        .causal = c.causal}};
    case Arch::encoder_decoder:
      need_source();
      // The encoder sees every source token but padding; the decoder never sees later targets.
      return {StackPlan{.name = "encoder",
                        .n_layers = c.n_encoder_layers,
                        .over_source = true,
                        .recurrent = c.recurrent},
              StackPlan{.name = "decoder",
                        .decoder = true,
                        .n_layers = c.n_decoder_layers,
                        .cross = true,
                        .causal = true,
                        .recurrent = c.recurrent}};
  }
  throw Error("unknown architecture");
}

std::vector<HeadId> attention_maps(const Model& model, bool has_source) {
  std::vector<HeadId> ids;
  for (const StackPlan& p : plan_stacks(model, has_source)) {
    for (int l = 0; l < p.n_layers; ++l) {
      if (!p.recurrent) ids.push_back(HeadId{p.name, l, p.lone ? p.lone_site : Site::self, 0});
      if (p.cross) ids.push_back(HeadId{p.name, l, Site::cross, 0});
    }
  }
  return ids;
}

namespace {

// Runs the planned stacks: one AttentionSetup per stack and site, the same for every layer. Labels
// and masks are shared with the sinks, which may keep them past the forward pass.
class Runner {
 public:
  Runner(const Model& model, const ForwardInputs& in, const ForwardOptions& options,
         AttentionSink* sink, ForwardResult& result)
      : model_(model), in_(in), options_(options), sink_(sink), result_(result) {}

  Matrix run(const StackPlan& plan, const Matrix* memory) {
    if (plan.recurrent) return run_recurrent(plan, memory);
    const Sequence& input = plan.over_source ? *in_.source : in_.target;
    if (plan.lone) {
      const bool across = plan.lone_site == Site::cross;
      const Sequence& keys = across ? *in_.source : in_.target;
      const AttentionSetup s =
          setup(plan, plan.lone_site, input, keys.labels, across ? source_mask() : self_mask(plan));
      check_masked(fmt::format("layer0.{}", site_name(plan.lone_site)), s, keys.x.rows());
      std::optional<LayerWeights> held;
      const AttentionWeights& w = weights(plan).layer(0, held).self_attn;
      return multi_head_attention(input.x, keys.x, w, model_.config.n_heads, s, 0);
    }
    const std::string prefix = plan.name.empty() ? "" : plan.name + ".";
    const AttentionSetup self = setup(plan, Site::self, input, input.labels,
                                      plan.over_source ? encoder_mask() : self_mask(plan));
    check_masked(prefix + "layer*.self", self, input.x.rows());
    const AttentionSetup sliding = sliding_setup(self);
    AttentionSetup cross;
    const Matrix* cross_keys = memory ? memory : in_.source ? &in_.source->x : nullptr;
    if (plan.cross) {
      cross = setup(plan, Site::cross, input, in_.source->labels, source_mask());
      check_masked(prefix + "layer*.cross", cross, cross_keys->rows());
    }
    const StackWeights& w = weights(plan);
    Matrix x = input.x;
    std::optional<LayerWeights> held;  // a loaded model's layers are converted one at a time
    for (int l = 0; l < plan.n_layers; ++l) {
      x = transformer_layer(x, w.layer(l, held), model_.config, l,
                            model_.config.sliding(l) ? sliding : self,
                            plan.cross ? cross_keys : nullptr, plan.cross ? &cross : nullptr);
    }
    if (w.final_norm) x = normalize(x, *w.final_norm, model_.config);
    return x;
  }

 private:
  // The translation tutorial's GRUs: the encoder's outputs, then the decoder's states, its
  // additive attention over those outputs emitted as the cross map.
  Matrix run_recurrent(const StackPlan& plan, const Matrix* memory) {
    const RecurrentWeights& w = *model_.weights.recurrent;
    if (plan.over_source) return recurrent_encoder(in_.source->x, w);
    if (options_.scale) {
      throw usage_error(fmt::format(
          "--qk-scale scales q·kᵀ, but {}'s attention is additive (v · tanh(W s + U h)): it has "
          "no scale",
          model_.name));
    }
    const Mask& target = in_.target_mask;
    if (target.causal || target.n_pad_keys > 0 || target.window > 0 || target.matrix) {
      throw usage_error(fmt::format(
          "{}'s GRU decoder reads its target one token at a time, with no self-attention: the "
          "target mask {} does not apply",
          model_.name, target.describe()));
    }
    const AttentionSetup cross =
        setup(plan, Site::cross, in_.target, in_.source->labels, source_mask());
    return recurrent_decoder(in_.target.x, *memory, w, cross);
  }

  const StackWeights& weights(const StackPlan& plan) const {
    return plan.decoder ? model_.weights.decoder : model_.weights.encoder;
  }

  AttentionSetup setup(const StackPlan& plan, Site site, const Sequence& queries,
                       const Labels& keys, std::shared_ptr<const Mask> mask) const {
    AttentionSetup s;
    s.stack = plan.name;
    s.site = site;
    s.mask = std::move(mask);
    s.query_labels = std::make_shared<const Labels>(queries.labels);
    s.key_labels = std::make_shared<const Labels>(keys);
    // --qk-scale, else the model's own (Gemma's query_pre_attn_scalar), else 1/sqrt(d_k).
    const Config& c = model_.config;
    s.scale = options_.scale ? options_.scale : c.attn_scale;
    s.softcap = c.attn_softcap;
    // T5's relative position bias: the stack's layer-0 table, in the self-attention of every layer.
    const Matrix& table = weights(plan).relative_bias;
    if (site == Site::self && c.positional == Positional::relative && table.size() > 0) {
      s.relative_bias = std::make_shared<const RelativeBias>(
          RelativeBias{table, c.relative_max_distance, !plan.decoder});
    }
    // The model's per-head q/k steps: q/k norm eps everywhere, rotary positions in self-attention
    // only (load_model refuses rotary models with cross-attention).
    s.qk = QueryKeyTransform{c.layer_norm_eps, c.qk_norm, site == Site::self ? c.rotary_dim : 0,
                             c.rope_theta, c.rope_scaling};
    s.block_rows = options_.block_rows;
    s.sink = sink_;
    return s;
  }

  // The setup of the model's sliding-window layers: the self-attention mask narrowed to the window
  // (or to --window, when narrower), and Gemma 3's local rotary base without scaling.
  AttentionSetup sliding_setup(const AttentionSetup& self) const {
    const Config& c = model_.config;
    AttentionSetup s = self;
    if (c.sliding_window == 0) return s;
    auto mask = std::make_shared<Mask>(*self.mask);
    mask->window = mask->window > 0 ? std::min(mask->window, c.sliding_window) : c.sliding_window;
    s.mask = std::move(mask);
    if (c.rope_local_theta > 0) {
      s.qk.rope_theta = c.rope_local_theta;
      s.qk.rope_scaling = {};
    }
    return s;
  }

  // The target's mask, plus the stack's own causality.
  std::shared_ptr<const Mask> self_mask(const StackPlan& plan) const {
    auto mask = std::make_shared<Mask>(in_.target_mask);
    mask->causal = mask->causal || plan.causal;
    return mask;
  }
  std::shared_ptr<const Mask> source_mask() const {
    return std::make_shared<const Mask>(in_.source_mask);
  }
  // An encoder over the source sees every source token but padding.
  std::shared_ptr<const Mask> encoder_mask() const {
    auto mask = std::make_shared<Mask>();
    mask->n_pad_keys = in_.source_mask.n_pad_keys;
    return mask;
  }

  // A warning for rows whose keys are all masked (the same in every layer of the stack). PyTorch's
  // answer depends on the fill: masked_fill(mask == 0, -1e9) leaves n_k equal scores, so softmax
  // gives 1/n_k everywhere (the annotated transformer's -1e9 fill: it looks like attention); -inf
  // gives 0/0 = NaN.
  void check_masked(const std::string& name, const AttentionSetup& s, Eigen::Index n_keys) {
    const int n_q = static_cast<int>(s.query_labels->size()), n_k = static_cast<int>(n_keys);
    const auto rows = fully_masked_rows(*s.mask, n_q, n_k);
    if (rows.empty()) return;
    result_.warnings.push_back(
        fmt::format("{}: every key is masked for query rows {} ({} of {}); attnviz shows them as "
                    "zero rows: a row that may "
                    "attend to nothing has no attention. PyTorch's softmax after masked_fill(mask "
                    "== 0, -1e9) would give a "
                    "uniform row (1/{} = {:.4g} on each of the {} keys), after masked_fill(mask == "
                    "0, -inf) NaN",
                    name, format_row_list(rows), rows.size(), n_q, n_k, 1.0 / n_k, n_k));
  }

  const Model& model_;
  const ForwardInputs& in_;
  const ForwardOptions& options_;
  AttentionSink* sink_;
  ForwardResult& result_;
};

}  // namespace

ForwardResult forward(const Model& model, const ForwardInputs& in, const ForwardOptions& options,
                      AttentionSink* sink) {
  ForwardResult result;
  Runner runner(model, in, options, sink, result);
  std::optional<Matrix> memory;  // the encoder's output, the decoder's cross-attention keys
  for (const StackPlan& plan : plan_stacks(model, in.source.has_value())) {
    Matrix x = runner.run(plan, memory ? &*memory : nullptr);
    if (plan.over_source) {
      memory = std::move(x);
    } else {
      result.hidden = std::move(x);
    }
  }
  result.encoder_hidden = std::move(memory);
  const auto bad = (!result.hidden.array().isFinite()).count();
  if (bad > 0) {
    result.warnings.push_back(fmt::format("the final hidden states hold {} NaN or inf values of {}",
                                          bad, result.hidden.size()));
  }
  return result;
}

}  // namespace attnviz
