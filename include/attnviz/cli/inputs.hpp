// Resolving input flags into sequences (the CLI is the only part that knows both sides: inputs
// read, tokenize and look up; compute embeds).
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "attnviz/cli/run_args.hpp"
#include "attnviz/core/tensor.hpp"
#include "attnviz/inputs/sequence.hpp"
#include "attnviz/inputs/tokenizer.hpp"
#include "attnviz/inputs/vocabulary.hpp"
#include "attnviz/io/image_file.hpp"
#include "attnviz/model/model.hpp"
#include "attnviz/sinks/overlay_sink.hpp"

namespace attnviz {

// What text, tokens and ids are read with: the model's tokenizer (for --text, and to label --ids),
// and its vocab.txt (for --tokens of a model with an embedding table).
struct TextTools {
  Vocabulary vocab;
  std::unique_ptr<Tokenizer> tokenizer;  // null when the folder has none attnviz reads
  // An encoder-decoder's encoder text, when the folder tokenizes it apart from the decoder's
  // (Marian's source.spm; `tokenizer` is then its target.spm); null: `tokenizer` reads both.
  std::unique_ptr<Tokenizer> source_tokenizer;
  // The tokenizer of the source's (or the target's) text, ids and tokens; null when none.
  const Tokenizer* tokenizer_for(bool source) const {
    return source && source_tokenizer ? source_tokenizer.get() : tokenizer.get();
  }
  // The target language's code a translation tokenizer puts first (NLLB's, --target-lang): the
  // decoder's second id when --generate starts from decoder_start_token_id, as transformers'
  // forced_bos_token_id makes it.
  std::optional<int64_t> decoder_prefix;
  // Non-empty: why --target-lang cannot start --generate (mBART's MBartTokenizer models start from
  // their decoder_start_token_id, which is the target's code).
  std::string decoder_prefix_refusal;
  std::filesystem::path tokenizer_dir;  // where it was looked for, for messages
  bool add_special = true;              // the special tokens the tokenizer's post-processor adds
  BosMode bos = BosMode::automatic;     // --bos
  std::vector<std::string> notes;  // for stderr: a tokenizer that could only have labelled --ids
};

// What the sequences need of the tokenizer: nothing (tokens, embeddings), labels for --ids (an
// unreadable tokenizer then leaves labels to vocab.txt, with a note), or ids for --text.
enum class TokenizerUse { none, labels, text };

// The vocabulary tokens are looked up in: the one beside the weights when the model has an
// embedding table, else none (tokens are hash-embedded).
Vocabulary vocabulary_of(const Model& model);

// The tokenizer in `dir` (--tokenizer) or the model's folder, read as `use` needs it; the
// vocabulary when the model has an embedding table.
// source_lang / target_lang: --source-lang and --target-lang, for a tokenizer with language codes.
struct LanguageFlags {
  std::string source, target;
};
TextTools text_tools_of(const Model& model, const std::string& dir, TokenizerUse use,
                        bool add_special, BosMode bos = BosMode::automatic,
                        const LanguageFlags& languages = {});

// Tokens to vectors: with a table, token → id through the vocabulary ([UNK] labelled and noted),
// then table rows; without one, hash vectors (noted).
// `source`: the sequence an encoder-decoder's encoder reads (embed_ids).
Sequence embed_tokens(const Model& model, const Vocabulary& vocab,
                      const std::vector<std::string>& tokens, bool source = false);

// The labels of ids as a sequence of that side shows them: the tokenizer's, else vocab.txt's.
std::vector<std::string> labels_of_ids(const TextTools& tools, const std::vector<int64_t>& ids,
                                       bool source = false);

// --text / --text-file: UTF-8 (a BOM dropped), through the tokenizer; `flag` names it in messages.
std::string read_text_input(const SequenceFlags& f, const std::string& flag);

// One sequence from its flags: text (through the tokenizer), tokens (file or -), ids (a list, or a
// file holding one; labelled by the tokenizer when there is one), or embeddings (.npy, labelled by
// tokens when given too). `role` is "target" or "source", for messages.
// A sequence longer than `bound` is refused before it is embedded: exit 2 when a flag gave it
// (--text,
// --ids list, --probe), 1 when a file's content did. An encoder-decoder's target text is its
// decoder's input: the model's decoder_start_token_id (when it declares one), then the text's ids,
// </s> included (transformers' shift_tokens_right of the labels, which leaves the last one out:
// one row more, its rows before equal by causality); --ids are fed as given.
Sequence resolve_sequence(const Model& model, const TextTools& tools, const SequenceFlags& f,
                          const std::string& role, const TokenBound& bound = {});

// A vision model's image: the pixels it reads ([3, H, W]; --pixels as given, or --image through
// the folder's image processor, with a note of what the processor did) and their tokens.
struct ImageInput {
  Tensor pixels;
  Sequence sequence;
  // The picture the pixels show, for overlays: --image resized and cropped; --pixels with the
  // folder's normalisation undone, or each channel stretched when it has no processor
  // (`picture_note` says so).
  RgbImage picture;
  std::string picture_note;
};
// A sequence of n tokens longer than `bound` allows: a usage error when a flag gave it, else an
// error in the content of the file `what`.
void check_bound(const TokenBound& bound, size_t n, const std::string& what, bool from_file);

// --query: a token's label as the axes show it (CLS, dist, reg2, p(5,7)), "mean" for the mean of
// the patches' rows, or "" for the default (CLS when the model has one, else the mean). A label
// the image's sequence does not have is a usage error listing the kinds it has.
OverlayQuery resolve_overlay_query(const std::string& spec, const Sequence& image);

// nullopt when the flags give neither --pixels nor --image.
std::optional<ImageInput> resolve_image(const Model& model, const SequenceFlags& f,
                                        const TokenBound& bound);

}  // namespace attnviz
