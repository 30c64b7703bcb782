// The tokenizer and vocabulary a run reads text with: found in the model's folder or --tokenizer,
// with a translation tokenizer's language codes around each side's text.
#include <fmt/format.h>

#include <filesystem>

#include "attnviz/cli/inputs.hpp"
#include "attnviz/core/error.hpp"
#include "attnviz/inputs/tokenizers/find_tokenizer.hpp"
#include "attnviz/inputs/tokenizers/language_codes.hpp"
#include "attnviz/io/gguf/gguf.hpp"

namespace attnviz {

namespace fs = std::filesystem;

Vocabulary vocabulary_of(const Model& model) {
  // A GGUF file's vocabulary is in its metadata, not a vocab.txt that may lie beside it for another
  // model.
  return model.weights.embed.token && model.gguf.empty() ? read_vocabulary(model.dir)
                                                         : Vocabulary{};
}

namespace {

// A translation tokenizer's two sides, each with its language's code around its text (NLLB's);
// the source's language defaults as the tokenizer class does, with a note when text uses it.
void apply_languages(TextTools& t, const LanguageCodes& codes, const LanguageFlags& flags,
                     TokenizerUse use) {
  std::shared_ptr<const Tokenizer> inner = std::move(t.tokenizer);
  const std::string source = flags.source.empty() ? codes.default_source : flags.source;
  const std::string target = flags.target.empty() ? codes.default_target : flags.target;
  // A code the user did not give is named as what it is, not as a flag's value.
  const std::string source_flag =
      flags.source.empty()
          ? fmt::format("{}'s default source language (give --source-lang)", codes.tokenizer_class)
          : "--source-lang";
  t.source_tokenizer = with_language(inner, codes, source, source_flag);
  t.tokenizer = with_language(inner, codes, target, "--target-lang");
  // Generation starts with the code only when asked: transformers' generate reads no tokenizer's
  // tgt_lang (forced_bos_token_id is the caller's).
  if (!flags.target.empty() && codes.forced_bos) {
    t.decoder_prefix = language_code_id(*inner, codes, flags.target, "--target-lang");
  } else if (!flags.target.empty()) {
    t.decoder_prefix_refusal = fmt::format(
        "{} puts a target's code after its text, and its models start generating from "
        "decoder_start_token_id (their target language's code, in config.json), not from a code "
        "after it: leave --target-lang out, or give the decoder's first ids as --ids",
        codes.tokenizer_class);
  }
  if (use == TokenizerUse::text && flags.source.empty() && codes.source_is_default) {
    t.notes.push_back(fmt::format("the source is read as {} ({}'s default; --source-lang chooses)",
                                  source, codes.tokenizer_class));
  }
}

}  // namespace

TextTools text_tools_of(const Model& model, const std::string& dir, TokenizerUse use,
                        bool add_special, BosMode bos, const LanguageFlags& languages) {
  TextTools t;
  t.add_special = add_special;
  t.bos = bos;
  t.vocab = vocabulary_of(model);
  // A GGUF file's tokenizer is its tokenizer.ggml.* metadata; files beside it may be another
  // model's.
  t.tokenizer_dir = !dir.empty() ? fs::path(dir) : model.gguf.empty() ? model.dir : model.gguf;
  std::error_code ec;
  if (!dir.empty() && !fs::exists(t.tokenizer_dir, ec)) {
    throw usage_error(fmt::format(
        "--tokenizer {}: no such file or folder (give the folder holding the tokenizer, "
        "or its file: {})",
        dir, k_tokenizer_files));
  }
  if (!dir.empty() && fs::is_regular_file(t.tokenizer_dir, ec) &&
      !is_tokenizer_file_name(t.tokenizer_dir) && !is_gguf_file(t.tokenizer_dir)) {
    throw usage_error(
        fmt::format("--tokenizer {}: not a tokenizer file (give the folder holding the tokenizer, "
                    "or its file: {})",
                    dir, k_tokenizer_files));
  }
  if (!dir.empty() && use == TokenizerUse::none) {
    throw usage_error("--tokenizer reads --text and labels --ids: give one of them");
  }
  // An encoder-decoder's decoder reads the target side of a folder that has one (Marian's), or its
  // language's code around the text (NLLB's).
  bool marks_languages = false;
  const auto find = [&] {
    t.tokenizer = find_tokenizer(t.tokenizer_dir);
    if (model.config.arch != Arch::encoder_decoder || !t.tokenizer) return;
    if (auto target = find_target_tokenizer(t.tokenizer_dir)) {
      t.source_tokenizer = std::move(t.tokenizer);
      t.tokenizer = std::move(target);
      return;
    }
    const fs::path folder =
        fs::is_directory(t.tokenizer_dir) ? t.tokenizer_dir : t.tokenizer_dir.parent_path();
    if (auto codes = language_codes(folder)) {
      apply_languages(t, *codes, languages, use);
      marks_languages = true;
    }
  };
  const std::string language_flag = !languages.source.empty()   ? "--source-lang"
                                    : !languages.target.empty() ? "--target-lang"
                                                                : "";
  if (!language_flag.empty() && use != TokenizerUse::text) {
    throw usage_error(fmt::format("{} marks the language of a text: give --text or --source-text",
                                  language_flag));
  }
  if (use == TokenizerUse::text) {
    find();
    if (!language_flag.empty() && !marks_languages) {
      throw usage_error(fmt::format(
          "{}: {} marks no language (attnviz reads the codes of NLLB's and mBART's "
          "tokenizer_class)",
          language_flag, t.tokenizer ? t.tokenizer->description() : t.tokenizer_dir.string()));
    }
  } else if (use == TokenizerUse::labels) {
    try {  // only labels depend on it: the ids run whatever the tokenizer files hold
      find();
    } catch (const Error& e) {
      t.notes.push_back(fmt::format("the ids are labelled without the tokenizer: {}", e.what()));
    }
  }
  return t;
}

}  // namespace attnviz
