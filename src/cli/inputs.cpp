// Turning --tokens / --ids / --text / --embeddings into sequences, with clear errors.
#include "attnviz/cli/inputs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <utility>

#include "attnviz/compute/embedding.hpp"
#include "attnviz/core/error.hpp"
#include "attnviz/core/unicode.hpp"
#include "attnviz/inputs/probe.hpp"
#include "attnviz/inputs/tokenizers/find_tokenizer.hpp"
#include "attnviz/inputs/tokens.hpp"
#include "attnviz/io/npy.hpp"

namespace attnviz {

namespace fs = std::filesystem;

Sequence embed_tokens(const Model& model, const Vocabulary& vocab,
                      const std::vector<std::string>& tokens, bool source) {
  if (!model.weights.embed.token) return embed_hashed(model, tokens);
  check_length(model, tokens.size(), "tokens");
  TokenIds t = look_up_tokens(vocab, tokens, model.name, model.config.vocab_size);
  Sequence seq = embed_ids(model, t.ids, std::move(t.labels), source);
  seq.notes = std::move(t.notes);
  return seq;
}

namespace {

// A text file's content without its BOM and one final newline ("\n" or "\r\n"): editors end every
// file with one, and it is no part of the text (else it becomes a token of its own).
std::string without_final_newline(const std::string& content) {
  std::string_view text = strip_utf8_bom(content);
  if (text.ends_with('\n')) text.remove_suffix(text.ends_with("\r\n") ? 2 : 1);
  return std::string(text);
}

}  // namespace

std::string read_text_input(const SequenceFlags& f, const std::string& flag) {
  const bool from_flag = f.text_given || !f.text.empty();
  if (from_flag && !f.text_file.empty()) {
    throw usage_error(fmt::format("{}text and {}text-file: give one", flag, flag));
  }
  if (from_flag && f.text.empty()) {
    throw usage_error(fmt::format("{}text is empty: there is nothing to tokenize", flag));
  }
  const std::string text =
      from_flag ? f.text : without_final_newline(read_text_file(f.text_file));  // bounded
  if (text.size() >
      k_max_text_bytes) {  // a file's (or stdin's) content is exit 1; a flag's value, 2
    throw Error(
        fmt::format("{}: {} bytes of text; attnviz tokenizes at most {} MiB (more tokens than any "
                    "attention map can show)",
                    from_flag ? flag + "text" : f.text_file, text.size(), k_max_text_bytes >> 20),
        from_flag ? k_exit_usage : k_exit_runtime);
  }
  if (const auto bad = find_invalid_utf8(text)) {
    throw Error(fmt::format("{}: invalid UTF-8 at byte {}",
                            f.text.empty() ? f.text_file : flag + "text", *bad));
  }
  return text;
}

void check_bound(const TokenBound& bound, size_t n, const std::string& what, bool from_file) {
  if (n <= bound.max_tokens) return;
  const std::string message = fmt::format("{}: {} tokens; {} takes at most {} ({})", what, n,
                                          bound.command, bound.max_tokens, bound.reason);
  throw from_file ? Error(message) : usage_error(message);
}

namespace {

// What a decoder reads before the target text: the model's decoder_start_token_id (none declared:
// nothing), or (mBART) the text's own last id.
struct DecoderStart {
  std::optional<int64_t> id;
  bool last_label = false;
};
DecoderStart decoder_start(const Model& model, const std::string& role) {
  if (role != "target" || model.config.arch != Arch::encoder_decoder) return {};
  if (model.config.decoder_starts_with_last_label) return {std::nullopt, true};
  return {model.config.decoder_start_id};
}

// Text → ids through the tokenizer, labelled with its pieces (after `start`, when there is one).
Sequence embed_text(const Model& model, const TextTools& tools, const Tokenizer* tokenizer,
                    const DecoderStart& start, bool source, const std::string& text,
                    const std::string& flag, const TokenBound& bound, const std::string& what,
                    bool from_file) {
  if (!tokenizer) {
    const bool tokens_work = !model.weights.embed.token || !tools.vocab.tokens.empty();
    throw usage_error(
        fmt::format("{}text needs the model's tokenizer, but {} holds none (looked for {}); give "
                    "--tokenizer PATH, or {}",
                    flag, tools.tokenizer_dir.string(), k_tokenizer_files,
                    tokens_work ? "--tokens / --ids" : "--ids"));
  }
  const std::vector<TokenPiece> pieces =
      encode_with_bos(*tokenizer, text, tools.add_special, tools.bos);
  if (pieces.empty()) throw usage_error(fmt::format("{}text holds no token", flag));
  const std::optional<int64_t> first = start.last_label ? pieces.back().id : start.id;
  check_bound(bound, pieces.size() + (first ? 1 : 0), what, from_file);
  std::vector<int64_t> ids;
  std::vector<std::string> labels;
  if (first) {
    ids.push_back(*first);
    labels.push_back(tokenizer->label(*first));
  }
  for (const TokenPiece& p : pieces) {
    ids.push_back(p.id);
    labels.push_back(p.label);
  }
  Sequence seq = embed_ids(model, ids, std::move(labels), source);
  if (std::string note = unknown_pieces_note(*tokenizer, pieces); !note.empty()) {
    seq.notes.push_back(fmt::format("{}{}: {}", flag, "text", note));
  }
  return seq;
}

}  // namespace

std::vector<std::string> labels_of_ids(const TextTools& tools, const std::vector<int64_t>& ids,
                                       bool source) {
  const Tokenizer* tokenizer = tools.tokenizer_for(source);
  if (!tokenizer) return id_labels(tools.vocab, ids);
  std::vector<std::string> labels;
  for (const int64_t id : ids) labels.push_back(tokenizer->label(id));
  return labels;
}

namespace {

// A short text the tokenizer encodes: "a", or else the label of one of its first ids (a word-level
// vocabulary without an unknown token refuses any word it lacks, "a" too). Not a special token's
// own label ("<s>" as id 0): its ids would then be among those added around it, and the split
// ambiguous.
std::string encodable_text(const Tokenizer& tokenizer) {
  const auto usable = [&](const std::string& text) {
    try {
      if (text.empty()) return false;
      std::vector<int64_t> without, with;
      for (const TokenPiece& p : tokenizer.encode(text, false)) without.push_back(p.id);
      for (const TokenPiece& p : tokenizer.encode(text, true)) with.push_back(p.id);
      if (without.empty()) return false;
      return std::all_of(without.begin(), without.end(), [&](int64_t id) {
        return std::count(with.begin(), with.end(), id) ==
               std::count(without.begin(), without.end(), id);
      });
    } catch (const Error&) {
      return false;
    }
  };
  if (usable("a")) return "a";
  for (int64_t id = 0; id < std::min<int64_t>(tokenizer.vocab_size(), 256); ++id) {
    if (const std::string text = tokenizer.label(id); usable(text)) return text;
  }
  // Nothing encodes: the tokenizer's own error on its first word names why (a BERT vocab.txt
  // without [CLS] refuses every text while it adds special tokens).
  if (tokenizer.vocab_size() > 0) {
    const std::string first = tokenizer.label(0);
    (void)tokenizer.encode(first, false);
    (void)tokenizer.encode(first, true);
  }
  return "a";  // encode's own error names what is wrong
}

// The ids a tokenizer puts before and after a text when it adds special tokens (BOS; [CLS] …
// [SEP]): what it adds to a short text, around that text's own ids, --bos applied. None without a
// tokenizer, or with --no-special-tokens and no --bos always.
std::pair<std::vector<int64_t>, std::vector<int64_t>> special_tokens_around_text(
    const TextTools& tools) {
  if (!tools.tokenizer || (!tools.add_special && tools.bos != BosMode::always)) return {};
  const std::string text = encodable_text(*tools.tokenizer);
  const auto ids = [&](bool add_special) {
    std::vector<int64_t> out;
    const BosMode bos = add_special ? tools.bos : BosMode::automatic;
    for (const TokenPiece& p :
         encode_with_bos(*tools.tokenizer, text, add_special && tools.add_special, bos)) {
      out.push_back(p.id);
    }
    return out;
  };
  const std::vector<int64_t> with = ids(true), without = ids(false);
  const auto at = std::search(with.begin(), with.end(), without.begin(), without.end());
  if (without.empty() || at == with.end()) {
    throw Error(fmt::format(
        "{}: cannot tell the special tokens it adds around a text (\"{}\" encodes to {} ids "
        "with them, {} without, not a run of them); give --no-special-tokens",
        tools.tokenizer->description(), text, with.size(), without.size()));
  }
  return {std::vector<int64_t>(with.begin(), at),
          std::vector<int64_t>(at + static_cast<std::ptrdiff_t>(without.size()), with.end())};
}

// --probe repeat:N / duplicate:N: random ids of the table, between the tokenizer's special tokens.
Sequence embed_probe(const Model& model, const TextTools& tools, const SequenceFlags& f,
                     const TokenBound& bound) {
  const ProbeSpec spec = parse_probe(f.probe);
  const uint64_t seed = parse_probe_seed(f.probe_seed);
  if (!model.weights.embed.token) {
    throw usage_error(
        fmt::format("--probe draws token ids from the embedding table, and {} has none: give "
                    "--tokens (the patterns compare tokens)",
                    model.name));
  }
  const auto [prefix, suffix] = special_tokens_around_text(tools);
  check_bound(bound, prefix.size() + 2 * static_cast<size_t>(spec.n) + suffix.size(),
              "--probe " + f.probe, false);
  const auto list = probe_ids(spec, model.config.vocab_size, prefix, suffix, seed);
  return embed_ids(model, list, labels_of_ids(tools, list));
}

// --ids: a list on the command line, or a file (- for stdin) holding one.
Sequence embed_id_list(const Model& model, const TextTools& tools, bool source,
                       const SequenceFlags& f, const std::string& flag, const TokenBound& bound) {
  std::error_code ec;  // a long id list is no file name: is_regular_file must not throw on it
  const bool is_file = f.ids == "-" || std::filesystem::is_regular_file(f.ids, ec);
  const auto list =
      parse_ids(is_file ? read_text_file(f.ids) : f.ids, is_file ? f.ids : flag + "ids");
  check_bound(bound, list.size(),
              f.ids == "-" ? "standard input"
              : is_file    ? f.ids
                           : flag + "ids",
              is_file);
  return embed_ids(model, list, labels_of_ids(tools, list, source), source);
}

}  // namespace

Sequence resolve_sequence(const Model& model, const TextTools& tools, const SequenceFlags& f,
                          const std::string& role, const TokenBound& bound) {
  const std::string flag = role == "source" ? "--source-" : "--";
  const bool source = role == "source";
  const bool text = f.has_text();
  if (!f.probe_seed.empty() && f.probe.empty())
    throw usage_error("--seed is the seed of --probe: give --probe too");
  const int given = (text ? 1 : 0) + (f.ids.empty() ? 0 : 1) +
                    (f.tokens.empty() && f.embeddings.empty() ? 0 : 1) + (f.probe.empty() ? 0 : 1);
  if (given > 1) {
    throw usage_error(
        f.probe.empty() ? fmt::format("{0}text, {0}ids and {0}tokens / {0}embeddings give the same "
                                      "input: choose one",
                                      flag)
                        : "--text, --ids, --tokens / --embeddings and --probe give the same input: "
                          "choose one");
  }
  const Config& c = model.config;
  if (auto image = resolve_image(model, f, bound)) return std::move(image->sequence);
  if (c.vision.patch > 0) {
    throw usage_error(fmt::format(
        "{} is a vision model: its input is an image, --image FILE or --pixels X.npy [{}, height, "
        "width]",
        model.name, c.vision.channels));
  }
  // A lone attention module's keys and values may have their own width (nn.MultiheadAttention's
  // kdim / vdim); one source sequence feeds both, so they must agree.
  const bool kv_input = role == "source" && c.arch == Arch::mha;
  if (kv_input && c.kdim != c.vdim) {
    throw Error(
        fmt::format("{}: kdim {} ≠ vdim {}: attnviz feeds one source sequence to both keys and "
                    "values",
                    model.name, c.kdim, c.vdim));
  }
  const int width = kv_input ? c.kdim : c.d_model;
  if (!f.embeddings.empty()) {
    std::vector<std::string> labels;
    if (!f.tokens.empty()) labels = read_tokens(f.tokens);
    Matrix x = read_npy(f.embeddings);
    check_bound(bound, static_cast<size_t>(x.rows()), f.embeddings, true);
    return embedded_input(model, std::move(x), std::move(labels), f.embeddings, width);
  }
  if (width != c.d_model) {
    throw usage_error(
        fmt::format("{}: keys and values are {} wide (kdim), not d_model {}: give "
                    "{}embeddings of that width",
                    model.name, width, c.d_model, flag));
  }
  if (text) {
    const bool from_file = !f.text_file.empty();
    return embed_text(model, tools, tools.tokenizer_for(source), decoder_start(model, role), source,
                      read_text_input(f, flag), flag, bound,
                      from_file ? f.text_file : flag + "text", from_file);
  }
  if (!f.probe.empty()) return embed_probe(model, tools, f, bound);
  if (!f.ids.empty()) return embed_id_list(model, tools, source, f, flag, bound);
  if (!f.tokens.empty()) {
    std::vector<std::string> tokens = read_tokens(f.tokens);
    check_bound(bound, tokens.size(), f.tokens == "-" ? "standard input" : f.tokens, true);
    return embed_tokens(model, tools.vocab, tokens, source);
  }
  const std::string others = fmt::format("{0}text, {0}text-file, {0}tokens, {0}ids", flag);
  throw usage_error(
      fmt::format("no {} input: give {}{}", role, others,
                  role == "source" ? " or --source-embeddings" : ", --embeddings or --probe"));
}

}  // namespace attnviz
