// NLLB's and mBART's language codes around each side's text (see language_codes.hpp).
#include "attnviz/inputs/tokenizers/language_codes.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "attnviz/core/error.hpp"
#include "attnviz/inputs/tokenizers/pipeline/tokenizer_config.hpp"
#include "attnviz/inputs/tokenizers/sentencepiece/m2m100_tokenizer.hpp"

namespace attnviz {

namespace fs = std::filesystem;

namespace {

// The id of a token the tokenizer matches whole in text (a special token of tokenizer.json).
std::optional<int64_t> whole_token_id(const Tokenizer& t, const std::string& token) {
  const std::vector<TokenPiece> pieces = t.encode(token, false);
  if (pieces.size() != 1 || t.token(pieces[0].id) != token) return std::nullopt;
  return pieces[0].id;
}

std::string known_codes(const LanguageCodes& codes) {
  std::string list;
  for (size_t i = 0; i < codes.codes.size() && i < 8; ++i) list += (i ? ", " : "") + codes.codes[i];
  return codes.codes.size() > 8 ? fmt::format("{}, … ({} in all)", list, codes.codes.size()) : list;
}

class LanguageTokenizer final : public Tokenizer {
 public:
  LanguageTokenizer(std::shared_ptr<const Tokenizer> inner, const LanguageCodes& codes,
                    std::string code, std::string flag)
      : inner_(std::move(inner)), codes_(codes), code_(std::move(code)), flag_(std::move(flag)) {
    if (!code_.empty()) code_id_ = language_code_id(*inner_, codes_, code_, flag_);
    const auto eos = whole_token_id(*inner_, codes_.eos);
    if (!eos) {
      throw Error(fmt::format("{}: eos_token '{}' is not one token of the tokenizer", codes_.file,
                              codes_.eos));
    }
    eos_id_ = *eos;
  }

  std::vector<TokenPiece> encode(std::string_view text, bool add_special) const override {
    std::vector<TokenPiece> pieces = inner_->encode(text, false);
    if (!add_special) return pieces;
    if (!code_id_) {
      throw usage_error(
          fmt::format("{} ({}) marks each side's language with a code: give {} (one of {})",
                      inner_->description(), codes_.tokenizer_class, flag_, known_codes(codes_)));
    }
    const TokenPiece code{*code_id_, inner_->label(*code_id_), codes_.code_first ? 0 : text.size(),
                          codes_.code_first ? 0 : text.size(), true};
    const TokenPiece eos{eos_id_, codes_.eos, text.size(), text.size(), true};
    if (codes_.code_first) pieces.insert(pieces.begin(), code);
    pieces.push_back(eos);
    if (!codes_.code_first) pieces.push_back(code);
    return pieces;
  }
  std::optional<int64_t> unknown_id() const override { return inner_->unknown_id(); }
  std::optional<int64_t> bos_id() const override { return inner_->bos_id(); }
  std::string label(int64_t id) const override { return inner_->label(id); }
  std::optional<std::string> token(int64_t id) const override { return inner_->token(id); }
  int64_t vocab_size() const override { return inner_->vocab_size(); }
  std::string description() const override {
    return fmt::format("{}, {}", inner_->description(),
                       code_.empty() ? "no language given" : "language " + code_);
  }

 private:
  std::shared_ptr<const Tokenizer> inner_;
  LanguageCodes codes_;
  std::string code_, flag_;
  std::optional<int64_t> code_id_;
  int64_t eos_id_ = 0;
};

// A tokenizer class that marks languages, as transformers' set_src_lang_special_tokens builds its
// template: NllbTokenizerFast "[code] $A </s>" (or "$A </s> [code]" under legacy_behaviour),
// MBartTokenizerFast "$A </s> [code]" (tokenization_mbart_fast.py: prefix [], suffix [eos, code]),
// MBart50TokenizerFast "[code] $A </s>" (tokenization_mbart50_fast.py: prefix [code], suffix
// [eos]); the source's language when the file names none.
struct LanguageClass {
  const char* name;
  bool code_first;
  bool legacy_key;  // legacy_behaviour: true puts the code last (NLLB)
  const char* default_source;
};
constexpr LanguageClass k_classes[] = {{"Nllb", true, true, "eng_Latn"},
                                       {"MBart", false, false, "en_XX"},
                                       {"MBart50", true, false, "en_XX"}};

const LanguageClass* language_class(const std::string& tokenizer_class) {
  for (const LanguageClass& c : k_classes) {
    const std::string name = std::string(c.name) + "Tokenizer";
    if (tokenizer_class == name || tokenizer_class == name + "Fast") return &c;
  }
  return nullptr;
}

}  // namespace

std::optional<LanguageCodes> language_codes(const fs::path& dir) {
  const TokenizerConfig config = read_tokenizer_config(dir);
  const auto cls = config.text("tokenizer_class");
  if (cls == "M2M100Tokenizer") {  // its codes are the class's, its tokens __code__
    LanguageCodes codes;
    codes.tokenizer_class = *cls;
    codes.file = config.path.string();
    codes.codes = m2m100_language_codes(dir);
    codes.underscored = true;
    codes.eos = config.token("eos_token").value_or("</s>");
    const auto src = config.text("src_lang");
    codes.source_is_default = !src;
    codes.default_source = src.value_or("en");
    codes.default_target = config.text("tgt_lang").value_or("");
    for (const auto& [key, code] : {std::pair{"src_lang", codes.default_source},
                                    std::pair{"tgt_lang", codes.default_target}}) {
      if (!code.empty() &&
          std::find(codes.codes.begin(), codes.codes.end(), code) == codes.codes.end()) {
        throw Error(fmt::format("{}: {} '{}' is not one of {}'s language codes", codes.file, key,
                                code, *cls));
      }
    }
    return codes;
  }
  const LanguageClass* kind = cls ? language_class(*cls) : nullptr;
  if (!kind) return std::nullopt;
  LanguageCodes codes;
  codes.tokenizer_class = *cls;
  codes.file = config.path.string();
  const auto& list = config.json.find("additional_special_tokens");
  if (list == config.json.end() || !list->is_array() || list->empty()) {
    throw Error(
        fmt::format("{}: additional_special_tokens: expected the list of the {}'s language "
                    "codes ({}, …)",
                    codes.file, *cls, kind->default_source));
  }
  for (const auto& entry : *list) {
    const auto& content = entry.is_object() && entry.contains("content") ? entry["content"] : entry;
    if (!content.is_string()) {
      throw Error(
          fmt::format("{}: additional_special_tokens: expected strings (or {{\"content\": "
                      "…}}), got {}",
                      codes.file, entry.dump()));
    }
    codes.codes.push_back(content.get<std::string>());
  }
  codes.code_first =
      kind->legacy_key ? !config.flag("legacy_behaviour").value_or(false) : kind->code_first;
  codes.forced_bos = kind->legacy_key || kind->code_first;  // all but MBartTokenizer
  codes.eos = config.token("eos_token").value_or("</s>");
  const auto known = [&](const std::string& code) {
    return std::find(codes.codes.begin(), codes.codes.end(), code) != codes.codes.end();
  };
  const auto src = config.text("src_lang");
  codes.source_is_default = !src;
  codes.default_source = src.value_or(kind->default_source);  // the class's default
  codes.default_target = config.text("tgt_lang").value_or("");
  // The declared ones only: the class's own default is checked when a text uses it.
  for (const auto& [key, code] :
       {std::pair{"src_lang", src.value_or("")}, std::pair{"tgt_lang", codes.default_target}}) {
    if (!code.empty() && !known(code)) {
      throw Error(fmt::format("{}: {} '{}' is not among its additional_special_tokens", codes.file,
                              key, code));
    }
  }
  return codes;
}

int64_t language_code_id(const Tokenizer& tokenizer, const LanguageCodes& codes,
                         const std::string& code, const std::string& flag) {
  if (std::find(codes.codes.begin(), codes.codes.end(), code) == codes.codes.end()) {
    // A flag's value, or a default named by what it is (`flag` then says where it comes from).
    throw usage_error(flag.starts_with("--")
                          ? fmt::format("{} {}: not a language code of {} (it knows {})", flag,
                                        code, codes.file, known_codes(codes))
                          : fmt::format("{}, {}, is not a language code of {} (it knows {})", code,
                                        flag, codes.file, known_codes(codes)));
  }
  const auto id = whole_token_id(tokenizer, codes.token_of(code));
  if (!id) {
    throw Error(fmt::format("{}: the language code '{}' is not one token of {}", codes.file,
                            codes.token_of(code), tokenizer.description()));
  }
  return *id;
}

std::unique_ptr<Tokenizer> with_language(std::shared_ptr<const Tokenizer> inner,
                                         const LanguageCodes& codes, const std::string& code,
                                         const std::string& flag) {
  return std::make_unique<LanguageTokenizer>(std::move(inner), codes, code, flag);
}

}  // namespace attnviz
