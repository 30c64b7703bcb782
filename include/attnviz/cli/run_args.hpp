// Raw flags as CLI11 fills them: the inputs every model-running command shares, and `run`'s
// outputs.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

#include "attnviz/cli/model_flags.hpp"
#include "attnviz/cli/output_flags.hpp"
#include "attnviz/cli/selection_flags.hpp"

namespace attnviz {

// The flags that give one sequence: the target's (queries, and self-attention keys) or the
// source's (cross-attention keys and values). One of them, or embeddings labelled by tokens.
struct SequenceFlags {
  std::string tokens, ids, embeddings, text, text_file;
  std::string pixels;      // --pixels X.npy: an image as a vision model reads it (the target only)
  std::string image;       // --image FILE: a PNG or JPEG, through the model's image processor
  std::string features;    // --features X.npy [C, H, W]: a CNN feature map, a token per pixel
  std::string probe;       // --probe repeat:N|duplicate:N (inputs/probe.hpp)
  std::string probe_seed;  // --seed (a whole number; "" = 0)
  bool text_given =
      false;  // --text was given, even as "" (refused as empty, not taken for no input)
  bool has_text() const { return text_given || !text.empty() || !text_file.empty(); }
  bool given() const {
    return !tokens.empty() || !ids.empty() || !embeddings.empty() || !pixels.empty() ||
           !image.empty() || !features.empty() || text_given || !text.empty() ||
           !text_file.empty() || !probe.empty();
  }
};

// The longest input a command takes, refused once its tokens are counted and before anything is
// embedded or computed (a million tokens would otherwise run for hours before failing).
struct TokenBound {
  size_t max_tokens =
      65536;  // every head's N × N map is computed: 32,768 tokens take minutes on 2 cores
  std::string command = "run";
  std::string reason = "every head's N × N map is computed, and the time grows as N²";
};

// What to run on what: shared by run, stats and check.
struct InputArgs {
  std::string model;
  SequenceFlags target, source;
  std::string tokenizer;  // --tokenizer DIR (default: the model's folder)
  bool no_special_tokens = false;
  std::string bos = "auto";  // --bos auto|always|never
  // --source-lang / --target-lang: the language codes a translation tokenizer puts around each
  // side's text (NLLB's); the target's also starts --generate after decoder_start_token_id.
  std::string source_lang, target_lang;
  bool no_positions = false;  // --no-positions: the model without its positional encoding
  ModelFlags model_flags;     // --heads, --layout, … (what the file may lack)
  bool causal = false;
  int pad = 0;         // the last N target tokens are padding (masked as keys)
  int source_pad = 0;  // the last N source tokens are padding
  int window = 0;      // sliding-window mask over the target self-attention (0 = none)
  std::string mask_file;
  std::string mask_convention = "auto";  // what --mask values mean (inputs/mask_file.hpp)
  std::string qk_scale;                  // "" = 1/sqrt(d_k), "none" = 1, or a number
  int block_rows = 256;
  int generate = 0;          // --generate N: greedy continuation of the target first
  SelectionFlags selection;  // --layer, --site, --head
  TokenBound bound;          // the command's, set where it is registered
};

// What differs in B: each flag given replaces A's (a B input replaces A's input as a whole;
// --b-seed alone keeps A's --probe with another seed).
struct RunBFlags {
  std::string model;
  SequenceFlags target;
  bool any() const { return !model.empty() || target.given() || !target.probe_seed.empty(); }
};

// --batch, --items and --shard (heads, stats).
struct BatchArgs {
  std::string
      file;  // --batch: JSON lines, each {"text": "…"} or {"ids": [5, 17, 3]}, optional "id"
  std::string items;  // --items: the per-input lines (attnviz/batch/items.hpp); "" = none
  std::string shard;  // --shard K/N: the inputs whose index i has i mod N = K; "" = all
};

// `attnviz run`'s outputs.
struct RunArgs {
  InputArgs in;
  std::string table = "probs";
  int precision = 3;
  std::string format = "text";
  std::string png_dir, save;
  std::string save_dtype = "f32";  // --save-dtype f32|f16
  std::string html;                // --html FILE: the offline viewer page
  int html_cells = 512;  // --html-cells: longer maps are stored pooled to this many cells per side
  bool html_given = false;
  bool png_given = false, save_given = false;  // given, even as '' (an unset $OUT): refused
  std::string color = "auto";
  int width = 0;
  std::string cmap = "viridis";
  bool no_heatmap = false;
  // Figures (--png) and colour scales.
  bool png_raw = false;            // also {map}.head{h}.raw.png
  std::string scale = "per-head";  // per-head: [0, head max]; shared: [0, 1]
  bool log_scale = false;          // --log: log10 colour scale in figures
  bool linear_scale = false;       // --linear: linear even for causal maps (default: log there)
  std::string panel;               // --panel L3H5,L5H1: those heads side by side in DIR/panel.png
  int max_pixels = 1024;     // figures pool maps longer than this per side (one column at 300 dpi)
  std::string pool = "max";  // max or mean pooling
  std::string font;          // "" = fontconfig's sans-serif; a path or a fontconfig name
  FigureFlags figure_flags;  // --figure-format, --dpi
  FigureFile figure_file;    // resolved from them in the command's callback
  bool check = false;        // --check: verify every map too; exit 3 when a check fails
  int logits = 0;            // --logits K: each position's top-K next tokens (0: none)
  // `attnviz rollout`: the outputs show attention rollout maps instead of the heads' maps.
  bool rollout = false;
  std::string combine = "mean";  // --combine mean|max|min
  double discard_ratio = 0.0;    // --discard-ratio: vit-explain's, the smallest entries dropped
  bool vit_explain = false;      // --vit-explain-division: its column-wise division
  float residual = 0.5f;         // --residual α
  bool flow = false;             // --flow: attention flow instead of rollout's product
  // A vision model's image: --overlay DIR (figures) or - (the terminal), the query --query names.
  std::string overlay, query;
  bool overlay_given = false;
};

// Registers run's output flags (tables, figures, --save, colours, …) on a subcommand.
void add_run_output_flags(CLI::App& cmd, RunArgs& args);

// --tokenizer DIR, --no-special-tokens and --bos (run, stats, check, tokenize).
void add_tokenizer_flags(CLI::App& cmd, std::string& tokenizer, bool& no_special_tokens,
                         std::string& bos);

// The help of a --text-file flag: `what`, and that one final newline is dropped (read_text_input).
std::string text_file_help(const std::string& what);

// The flags of one sequence, named with a prefix: "" for the target (--text, --tokens/-t, --ids,
// --embeddings, --probe, --seed), "source-" for a cross-attention source, "b-" for diff's B run.
// `whose` begins each help text ("the source's ").
struct SequenceFlagNames {
  std::string prefix;
  std::string whose;
  bool probe = true;      // --probe and --seed too
  std::string seed_help;  // "" = the target's
};
void add_sequence_flags(CLI::App& cmd, SequenceFlags& f, const SequenceFlagNames& names);

// Registers the input flags on a subcommand, with the model and selection flags among them.
void add_input_flags(CLI::App& cmd, InputArgs& in);

// Runs the model on the inputs and sends the maps to the requested outputs; failures throw Error.
void run_command(const RunArgs& args);

}  // namespace attnviz
