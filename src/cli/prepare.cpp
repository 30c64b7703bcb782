// Resolving the shared input flags: model, target/source sequences, mask, scale, selection.
#include "attnviz/cli/prepare.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <iostream>

#include "attnviz/cli/generation.hpp"
#include "attnviz/cli/inputs.hpp"
#include "attnviz/cli/notes.hpp"
#include "attnviz/compute/generate.hpp"
#include "attnviz/core/error.hpp"
#include "attnviz/core/plural.hpp"
#include "attnviz/inputs/mask_file.hpp"
#include "attnviz/model/locate/hf_cache.hpp"

namespace attnviz {

namespace {

std::optional<float> parse_qk_scale(const std::string& text) {
  if (text.empty()) return std::nullopt;
  if (text == "none") return 1.0f;
  float value = 0.0f;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || !(value > 0.0f) ||
      !std::isfinite(value)) {
    throw usage_error(fmt::format("--qk-scale '{}': expected a positive number or none", text));
  }
  return value;
}

void check_pad(int pad, int n, const char* flag) {
  if (pad > n) {
    throw usage_error(fmt::format("{} {}: there {} only {}", flag, pad, n == 1 ? "is" : "are",
                                  count_of(n, "token")));
  }
}

// --mask applies to the map the target's queries make first: the cross map of a lone attention
// module given a source, else the target's self-attention.
void resolve_masks(const InputArgs& a, const Model& model, ForwardInputs& in) {
  const int n_target = static_cast<int>(in.target.x.rows());
  const int n_source = in.source ? static_cast<int>(in.source->x.rows()) : 0;
  check_pad(a.pad, n_target, "--pad");
  check_pad(a.source_pad, n_source, "--source-pad");
  in.target_mask.causal = a.causal;
  in.target_mask.n_pad_keys = a.pad;
  in.target_mask.window = a.window;
  in.source_mask.n_pad_keys = a.source_pad;
  const bool on_cross = model.config.arch == Arch::mha && in.source;
  if (on_cross && (a.causal || a.pad > 0 || a.window > 0)) {
    // A lone attention module given a source makes only a cross map: there is no target
    // self-attention for these masks to apply to.
    throw usage_error(
        "--causal, --pad and --window mask the target's self-attention, which a lone "
        "attention module given a source does not have: use --source-pad or --mask");
  }
  if (a.mask_file.empty()) {
    if (a.mask_convention != "auto")
      throw usage_error("--mask-convention says what --mask values mean: give --mask");
    return;
  }
  Mask& m = on_cross ? in.source_mask : in.target_mask;
  m.matrix = read_mask_file(a.mask_file, n_target, on_cross ? n_source : n_target,
                            parse_mask_convention(a.mask_convention));
}

// --generate: the target continued greedily, then the whole sequence as the run's target; the
// continuation and what the model's files ask for that greedy decoding does not do, as notes.
void generate_target(PreparedRun& run, const InputArgs& a, std::vector<std::string>& notes) {
  ForwardInputs& in = run.inputs;
  const size_t limit = a.bound.max_tokens;
  if (in.target.ids.size() + static_cast<size_t>(a.generate) > limit) {
    throw usage_error(
        fmt::format("--generate {}: {} tokens with the target's {}; {} takes at most "
                    "{} ({})",
                    a.generate, in.target.ids.size() + size_t(a.generate), in.target.ids.size(),
                    a.bound.command, limit, a.bound.reason));
  }
  const GenerationSettings settings = generation_settings(run.model);
  notes.insert(notes.end(), settings.notes.begin(), settings.notes.end());
  // A target text the tokenizer closed with an EOS (Marian's and T5's </s>, the GRU model's EOS)
  // would have the model continue past its end: generation continues the text without it.
  const auto& eos = settings.eos;
  if (a.target.has_text() && in.target.ids.size() > 1 &&
      std::find(eos.begin(), eos.end(), in.target.ids.back()) != eos.end()) {
    std::vector<int64_t> ids = in.target.ids;
    std::vector<std::string> labels = in.target.labels;
    notes.push_back(fmt::format(
        "--generate continues the target text without the {} its tokenizer closes it with",
        labels.back()));
    ids.pop_back();
    labels.pop_back();
    in.target = embed_ids(run.model, ids, std::move(labels));
  }
  const Generated g = generate_greedy(run.model, in, {a.generate, settings.eos});
  // The labels joined, their "␣" (a leading space) as a space: the continuation as text. Labels
  // without any space marker are words of a vocabulary split at whitespace: joined by spaces.
  const std::vector<std::string> labels = labels_of_ids(*run.tools, g.ids);
  const auto first = labels.end() - g.n_generated;
  const bool marked = std::any_of(first, labels.end(), [](const std::string& l) {
    return l.find("\u2423") != std::string::npos;
  });
  std::string text;
  for (auto it = first; it != labels.end(); ++it) text += (marked || it == first ? "" : " ") + *it;
  for (size_t at = text.find("\u2423"); at != std::string::npos; at = text.find("\u2423", at))
    text.replace(at, 3, " ");
  notes.push_back(fmt::format("generated {} (greedy{}): \"{}\"", count_of(g.n_generated, "token"),
                              g.stopped_at_eos ? ", stopped at EOS" : "", text));
  run.n_prompt = static_cast<int>(g.ids.size()) - g.n_generated;
  in.target = embed_ids(run.model, g.ids, labels);
}

}  // namespace

PreparedRun prepare_model(const InputArgs& a, std::optional<TokenizerUse> tokenizer_use) {
  const bool cross = a.source.given();
  const ModelLocation where = locate_model(a.model, HfEnvironment::of_process());
  PreparedRun run{
      load_model(where.path, overrides_of(a.model_flags)), {}, {}, {}, {}, {}, 0, {}, {}, {}};
  if (where.from_cache())
    run.model.name = where.repo_id;  // titles say the model, not its commit hash
  if (a.no_positions) {
    Config& c = run.model.config;
    if (c.positional == Positional::none && c.rotary_dim == 0) {
      throw usage_error(fmt::format("--no-positions: {} has no positional encoding to leave out",
                                    run.model.name));
    }
    c.positional = Positional::none;
    c.rotary_dim = 0;
    run.model.name += " (no positions)";  // every title and saved file says so
  }
  // The selection names maps this model makes on this input: checked before any input is read.
  run.maps = MapList{attention_maps(run.model, cross), run.model.config.n_heads, cross};
  run.selection = selection_of(a.selection, run.maps);
  check_selection(run.selection, run.maps);  // a wrong one prints only the error
  const auto text = [](const SequenceFlags& f) { return !f.text.empty() || !f.text_file.empty(); };
  const TokenizerUse use =
      tokenizer_use                      ? *tokenizer_use
      : text(a.target) || text(a.source) ? TokenizerUse::text
      : !a.target.ids.empty() || !a.source.ids.empty() || !a.target.probe.empty()
          ? TokenizerUse::labels
          : TokenizerUse::none;
  run.tools = std::make_shared<const TextTools>(
      text_tools_of(run.model, a.tokenizer, use, !a.no_special_tokens, bos_mode_of(a.bos),
                    {a.source_lang, a.target_lang}));
  return run;
}

std::vector<std::string> prepare_inputs(PreparedRun& run, const InputArgs& a) {
  const bool cross = a.source.given();
  const TextTools& tools = *run.tools;
  const Config& c = run.model.config;
  // A language code marks a text: given with ids, which are fed as given, it would go unread.
  if (!a.source_lang.empty() && !a.source.has_text()) {
    throw usage_error("--source-lang marks the source text's language: give --source-text");
  }
  if (!a.target_lang.empty() && a.target.given() && !a.target.has_text()) {
    throw usage_error(
        "--target-lang marks the target text's language, or starts --generate: the target's "
        "--ids are fed as given");
  }
  if (a.generate > 0 && !a.target.given() && c.arch == Arch::encoder_decoder) {
    // An encoder-decoder generates from its decoder's start token alone.
    if (!c.decoder_start_id) {
      throw usage_error(
          fmt::format("--generate: {} declares no decoder_start_token_id: give the "
                      "decoder's first ids as --ids",
                      run.model.name));
    }
    if (!tools.decoder_prefix_refusal.empty())
      throw usage_error("--target-lang with --generate: " + tools.decoder_prefix_refusal);
    std::vector<int64_t> start{*c.decoder_start_id};
    if (tools.decoder_prefix) start.push_back(*tools.decoder_prefix);  // NLLB's target language
    run.inputs.target = embed_ids(run.model, start, labels_of_ids(tools, start));
  } else if (auto image = resolve_image(run.model, a.target, a.bound)) {
    if (!image->pixels.shape.empty()) run.pixel_values = std::move(image->pixels);
    run.picture = std::move(image->picture);
    run.picture_note = std::move(image->picture_note);
    run.inputs.target = std::move(image->sequence);
  } else {
    run.inputs.target = resolve_sequence(run.model, tools, a.target, "target", a.bound);
  }
  if (cross) run.inputs.source = resolve_sequence(run.model, tools, a.source, "source", a.bound);
  resolve_masks(a, run.model, run.inputs);
  run.options.scale = parse_qk_scale(a.qk_scale);
  run.options.block_rows = a.block_rows;
  run.n_prompt = static_cast<int>(run.inputs.target.x.rows());
  // What the user should know about how the input was embedded (unknown tokens, hash vectors),
  // once the command line is known to be good; a note the source shares with the target once.
  std::vector<std::string> notes = run.model.notes;
  notes.insert(notes.end(), tools.notes.begin(), tools.notes.end());
  notes.insert(notes.end(), run.inputs.target.notes.begin(), run.inputs.target.notes.end());
  if (run.inputs.source) {
    for (const auto& note : run.inputs.source->notes) {
      if (std::find(notes.begin(), notes.end(), note) == notes.end()) notes.push_back(note);
    }
  }
  if (a.generate > 0) generate_target(run, a, notes);
  return notes;
}

PreparedRun prepare_run(const InputArgs& a) {
  PreparedRun run = prepare_model(a);
  for (const auto& note : prepare_inputs(run, a)) print_note(note);
  return run;
}

}  // namespace attnviz
