// Reads tokenizer.ggml.* as llama.cpp's llama_vocab::impl::load does (src/llama-vocab.cpp): the
// defaults per model type, the pre-tokenizer table, the special ids and flags, and the names it
// promotes to control tokens; where llama.cpp warns and goes on, attnviz refuses the file.
#include "gguf_vocab.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <optional>

#include "attnviz/core/error.hpp"
#include "attnviz/core/unicode.hpp"
#include "attnviz/io/gguf/gguf.hpp"

namespace attnviz {
namespace {

constexpr const char* k_supported_pre =
    "default (also when absent), gpt-2, phi-2, mpt, olmo, jina-es, jina-de, jina-v2-es, "
    "jina-v2-de, gigachat, a.x-4.0, mellum, modern-bert "
    "(GPT-2's regex); llama-bpe, llama3, llama-v3, falcon3, falcon-h1, pixtral, midm-2.0, lfm2, "
    "jina-v5-nano, "
    "dbrx, smaug-bpe (Llama 3's); qwen2, deepseek-r1-qwen, kormo, f2llmv2, stablelm2 (Qwen2's)";

struct PreEntry {
  std::string_view name;
  GgufPre pre;
  bool ignore_merges;
  bool add_bos;
};

// llama.cpp's tokenizer.ggml.pre → regexes, for the names whose regex attnviz runs exactly (the
// GPT-2, Llama 3 and Qwen2 patterns llama.cpp has hand-written splitters for).
constexpr PreEntry k_pre_table[] = {
    {"gpt-2", GgufPre::gpt2, false, false},
    {"phi-2", GgufPre::gpt2, false, false},
    {"jina-es", GgufPre::gpt2, false, false},
    {"jina-de", GgufPre::gpt2, false, false},
    {"gigachat", GgufPre::gpt2, false, false},
    {"jina-v2-es", GgufPre::gpt2, false, false},
    {"jina-v2-de", GgufPre::gpt2, false, false},
    {"a.x-4.0", GgufPre::gpt2, false, false},
    {"mellum", GgufPre::gpt2, false, false},
    {"modern-bert", GgufPre::gpt2, false, false},
    {"mpt", GgufPre::gpt2, false, false},
    {"olmo", GgufPre::gpt2, false, false},
    {"llama3", GgufPre::llama3, true, true},
    {"llama-v3", GgufPre::llama3, true, true},
    {"llama-bpe", GgufPre::llama3, true, true},
    {"falcon3", GgufPre::llama3, true, true},
    {"falcon-h1", GgufPre::llama3, true, true},
    {"pixtral", GgufPre::llama3, true, true},
    {"midm-2.0", GgufPre::llama3, true, true},
    {"lfm2", GgufPre::llama3, true, true},
    {"jina-v5-nano", GgufPre::llama3, true, true},
    {"dbrx", GgufPre::llama3, false, false},
    {"smaug-bpe", GgufPre::llama3, false, false},
    {"qwen2", GgufPre::qwen2, false, false},
    {"deepseek-r1-qwen", GgufPre::qwen2, false, false},
    {"kormo", GgufPre::qwen2, false, false},
    {"f2llmv2", GgufPre::qwen2, false, false},
    {"stablelm2", GgufPre::qwen2, false, false},
};

// Token texts llama.cpp makes control tokens whatever their type (its EOT, EOM, FIM and EOG lists).
constexpr std::string_view k_control_names[] = {
    "</s>",
    "<EOT>",
    "<MID>",
    "<PAD>",
    "<PRE>",
    "<REPO>",
    "<SUF>",
    "<end_of_turn>",
    "<end_of_utterance>",
    "<fim-middle>",
    "<fim-pad>",
    "<fim-prefix>",
    "<fim-repo>",
    "<fim-suffix>",
    "<fim_middle>",
    "<fim_pad>",
    "<fim_prefix>",
    "<fim_suffix>",
    "<reponame>",
    "<|calls|>",
    "<|call|>",
    "<|code_middle|>",
    "<|code_prefix|>",
    "<|code_suffix|>",
    "<|end_of_text|>",
    "<|endoftext|>",
    "<|end|>",
    "<|eom_id|>",
    "<|eot_id|>",
    "<|file_sep|>",
    "<|fim_middle|>",
    "<|fim_pad|>",
    "<|fim_prefix|>",
    "<|fim_repo|>",
    "<|fim_suffix|>",
    "<|flush|>",
    "<|im_end|>",
    "<|middle|>",
    "<|prefix|>",
    "<|repo_name|>",
    "<|return|>",
    "<|suffix|>",
    "<\xef\xbd\x9c"
    "end\xe2\x96\x81"
    "of\xe2\x96\x81"
    "sentence\xef\xbd\x9c>",
    "<\xef\xbd\x9c"
    "fim\xe2\x96\x81"
    "begin\xef\xbd\x9c>",
    "<\xef\xbd\x9c"
    "fim\xe2\x96\x81"
    "end\xef\xbd\x9c>",
    "<\xef\xbd\x9c"
    "fim\xe2\x96\x81"
    "hole\xef\xbd\x9c>",
    "[EOT]",
    "[PAD]",
    "_<EOT>",
    "\xe2\x96\x81<MID>",
    "\xe2\x96\x81<PRE>",
    "\xe2\x96\x81<SUF>",
};

[[noreturn]] void fail(const GgufVocab& v, std::string_view key, const std::string& message) {
  throw Error(fmt::format("{}: {}: {}", v.file, key, message));
}

void read_model_type(GgufVocab& v, const GgufMetadata& m) {
  v.model = m.get<std::string>("tokenizer.ggml.model");
  if (m.find("tokenizer.ggml.pre")) v.pre_name = m.get<std::string>("tokenizer.ggml.pre");
  if (v.model == "llama") {  // SentencePiece-style (LLAMA_VOCAB_TYPE_SPM)
    v.bos = 1, v.eos = 2, v.unk = 0;
    v.add_space_prefix = true, v.add_bos = true;
    return;
  }
  if (v.model ==
      "bert") {  // WordPiece-style (LLAMA_VOCAB_TYPE_WPM); tokenizer.ggml.pre is not read
    v.bos = 101, v.unk = 100, v.sep = 102, v.pad = 0;
    v.add_bos = true;
    return;
  }
  if (v.model != "gpt2") {
    fail(v, "tokenizer.ggml.model",
         fmt::format("'{}' is not a tokenizer attnviz reads (it reads gpt2: byte-level BPE, llama: "
                     "SentencePiece-style, and bert: WordPiece-style; t5, rwkv and others are not "
                     "implemented)",
                     v.model));
  }
  v.bos = 11, v.eos = 11;  // llama.cpp's defaults for BPE vocabularies
  if (v.pre_name.empty() ||
      v.pre_name == "default") {  // llama.cpp warns that quality degrades, and runs it
    v.pre_name = "default";
    v.pre = GgufPre::llama_default;
    return;
  }
  for (const PreEntry& e : k_pre_table) {
    if (e.name != v.pre_name) continue;
    v.pre = e.pre, v.ignore_merges = e.ignore_merges, v.add_bos = e.add_bos;
    return;
  }
  fail(v, "tokenizer.ggml.pre",
       fmt::format("'{}' is not a pre-tokenizer attnviz implements; supported: {}", v.pre_name,
                   k_supported_pre));
}

void read_tokens(GgufVocab& v, const GgufMetadata& m) {
  v.tokens = m.get_array<std::string>("tokenizer.ggml.tokens");
  if (v.tokens.empty()) fail(v, "tokenizer.ggml.tokens", "the vocabulary is empty");
  if (v.tokens.size() > 0x7fffffff) fail(v, "tokenizer.ggml.tokens", "more than 2^31 - 1 tokens");
  v.ids.reserve(v.tokens.size());
  for (size_t i = 0; i < v.tokens.size(); ++i) {
    if (v.tokens[i].empty()) v.tokens[i] = fmt::format("[EMPTY_{}]", i);
    v.max_token_len = std::max(v.max_token_len, v.tokens[i].size());
    const auto [it, fresh] = v.ids.emplace(v.tokens[i], static_cast<int32_t>(i));
    if (!fresh) {  // llama.cpp aborts (its token_to_id would lose one)
      fail(v, "tokenizer.ggml.tokens",
           fmt::format("token {} '{}' repeats token {}", i, v.tokens[i], it->second));
    }
  }
}

void read_types_and_scores(GgufVocab& v, const GgufMetadata& m) {
  const size_t n = v.tokens.size();
  v.types.assign(n, GgufTokenType::normal);
  v.scores.assign(n, 0.0f);
  if (m.find("tokenizer.ggml.token_type")) {
    const auto types = m.get_array<int32_t>("tokenizer.ggml.token_type");
    if (types.size() != n) {
      fail(v, "tokenizer.ggml.token_type", fmt::format("{} types for {} tokens", types.size(), n));
    }
    for (size_t i = 0; i < n; ++i) {
      if (types[i] < 0 || types[i] > 6) {
        fail(v, "tokenizer.ggml.token_type",
             fmt::format("token {} has type {} (expected 0 to 6)", i, types[i]));
      }
      v.types[i] = static_cast<GgufTokenType>(types[i]);
    }
  }
  const GgufValue* scores = m.find("tokenizer.ggml.scores");
  if (!scores) return;
  if (scores->is_array && scores->type == GgufValueType::I32) {
    const auto ints = m.get_array<int32_t>("tokenizer.ggml.scores");
    v.scores.assign(ints.begin(), ints.end());
  } else {
    v.scores = m.get_array<float>("tokenizer.ggml.scores");
  }
  if (v.scores.size() != n)
    fail(v, "tokenizer.ggml.scores", fmt::format("{} scores for {} tokens", v.scores.size(), n));
}

void read_merges(GgufVocab& v, const GgufMetadata& m) {
  if (v.model != "gpt2") return;
  const auto merges = m.get_array<std::string>("tokenizer.ggml.merges");
  v.merge_count = merges.size();
  v.merge_ranks.reserve(merges.size());
  for (size_t i = 0; i < merges.size(); ++i) {
    const size_t space = merges[i].find(' ', 1);
    if (space == std::string::npos || space + 1 == merges[i].size()) {
      fail(v, "tokenizer.ggml.merges",
           fmt::format("merge {} '{}' is not two tokens separated by a space", i, merges[i]));
    }
    std::string left = merges[i].substr(0, space), right = merges[i].substr(space + 1);
    // tokenizers' BPE builder refuses such a merge; llama.cpp would drop the bytes of its result.
    for (const std::string& part : {left, right, left + right}) {
      if (!v.ids.contains(part)) {
        fail(
            v, "tokenizer.ggml.merges",
            fmt::format("merge {} '{}' needs the token '{}', which is not in tokenizer.ggml.tokens",
                        i, printable_text(merges[i]), printable_text(part)));
      }
    }
    // llama.cpp's emplace keeps the first rank of a repeated pair.
    v.merge_ranks.emplace(std::pair{std::move(left), std::move(right)}, static_cast<int32_t>(i));
  }
}

// tokenizer.ggml.*_token_id keys llama.cpp reads that attnviz only checks.
constexpr const char* k_other_special_ids[] = {
    "tokenizer.ggml.eot_token_id",     "tokenizer.ggml.eom_token_id",
    "tokenizer.ggml.mask_token_id",    "tokenizer.ggml.cls_token_id",
    "tokenizer.ggml.prefix_token_id",  "tokenizer.ggml.suffix_token_id",
    "tokenizer.ggml.middle_token_id",  "tokenizer.ggml.fim_pre_token_id",
    "tokenizer.ggml.fim_suf_token_id", "tokenizer.ggml.fim_mid_token_id",
    "tokenizer.ggml.fim_pad_token_id", "tokenizer.ggml.fim_rep_token_id",
    "tokenizer.ggml.fim_sep_token_id"};

// The id under `key`, when the file writes one: an id outside the vocabulary is an Error (llama.cpp
// warns "bad special token" and goes on with its default).
std::optional<int32_t> special_id(const GgufVocab& v, const GgufMetadata& m, const char* key) {
  if (!m.find(key)) return std::nullopt;
  const uint64_t value = m.get_count(key);
  const auto n = static_cast<uint64_t>(v.tokens.size());
  if (value >= n)
    fail(v, key, fmt::format("id {} is outside the vocabulary ({} tokens)", value, n));
  return static_cast<int32_t>(value);
}

void read_special_ids(GgufVocab& v, const GgufMetadata& m) {
  const int64_t n = static_cast<int64_t>(v.tokens.size());
  const std::pair<const char*, int32_t*> keys[] = {{"tokenizer.ggml.bos_token_id", &v.bos},
                                                   {"tokenizer.ggml.eos_token_id", &v.eos},
                                                   {"tokenizer.ggml.unknown_token_id", &v.unk},
                                                   {"tokenizer.ggml.seperator_token_id", &v.sep},
                                                   {"tokenizer.ggml.padding_token_id", &v.pad}};
  for (const auto& [key, id] : keys) {
    if (*id >= n) *id = -1;  // a default outside the vocabulary: llama.cpp disables it
    if (const auto value = special_id(v, m, key)) *id = *value;
  }
  // The special ids llama.cpp reads besides (end of generation, fill-in-the-middle, mask): attnviz
  // does not use them, but one outside the vocabulary says the file contradicts itself.
  for (const char* key : k_other_special_ids) (void)special_id(v, m, key);
  if (m.find("tokenizer.ggml.add_bos_token"))
    v.add_bos = m.get<bool>("tokenizer.ggml.add_bos_token");
  if (m.find("tokenizer.ggml.add_eos_token"))
    v.add_eos = m.get<bool>("tokenizer.ggml.add_eos_token");
  if (v.model == "llama" && m.find("tokenizer.ggml.add_space_prefix")) {
    v.add_space_prefix = m.get<bool>("tokenizer.ggml.add_space_prefix");
  }
  // BertNormalizer's options: strip_accents follows lowercase unless written.
  if (m.find("tokenizer.ggml.normalizer.lowercase"))
    v.lowercase = m.get<bool>("tokenizer.ggml.normalizer.lowercase");
  v.strip_accents = v.lowercase;
  if (m.find("tokenizer.ggml.normalizer.strip_accents")) {
    v.strip_accents = m.get<bool>("tokenizer.ggml.normalizer.strip_accents");
  }
}

// The special-token cache of llama.cpp: control, user-defined and unknown tokens, longest first;
// and Phi-3's rstrip (by general.name, as llama.cpp decides it).
void build_specials(GgufVocab& v, const GgufMetadata& m) {
  for (std::string_view name : k_control_names) {
    const int32_t id = v.find(name);
    if (id >= 0 && v.types[static_cast<size_t>(id)] != GgufTokenType::unknown)
      v.types[static_cast<size_t>(id)] = GgufTokenType::control;
  }
  for (size_t i = 0; i < v.tokens.size(); ++i) {
    const GgufTokenType t = v.types[i];
    if (t == GgufTokenType::control || t == GgufTokenType::user_defined ||
        t == GgufTokenType::unknown) {
      v.specials.push_back(static_cast<int32_t>(i));
    }
  }
  std::stable_sort(v.specials.begin(), v.specials.end(), [&](int32_t a, int32_t b) {
    return v.tokens[static_cast<size_t>(a)].size() > v.tokens[static_cast<size_t>(b)].size();
  });
  if (const GgufValue* name = m.find("general.name");
      name && name->type == GgufValueType::String && !name->is_array) {
    std::string lower = name->strings.at(0);
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    v.rstrip_specials =
        lower.find("phi-3") != std::string::npos || lower.find("phi3") != std::string::npos;
  }
}

}  // namespace

int32_t GgufVocab::find(std::string_view text) const {
  const auto it = ids.find(std::string(text));
  return it == ids.end() ? -1 : it->second;
}

GgufVocab read_gguf_vocab(const GgufMetadata& metadata, const std::string& file) {
  GgufVocab v;
  v.file = file;
  read_model_type(v, metadata);
  read_tokens(v, metadata);
  read_types_and_scores(v, metadata);
  read_merges(v, metadata);
  read_special_ids(v, metadata);
  build_specials(v, metadata);
  return v;
}

}  // namespace attnviz
