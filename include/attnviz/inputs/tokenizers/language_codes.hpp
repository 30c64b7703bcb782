// Translation tokenizers that mark each side's language with a code token around its text, as
// transformers' classes build them in set_src_lang_special_tokens and
// set_tgt_lang_special_tokens (tokenizer_config.json's tokenizer_class, slow or fast): M2M100's
// (M2M100Tokenizer, slow only, its codes the class's list) "[__code__] text </s>"; NLLB's
// "[code] text </s>", or with legacy_behaviour "text </s> [code]"; mBART's (MBartTokenizer,
// mbart-large-cc25) "text </s> [code]"; mBART-50's (MBart50Tokenizer) "[code] text </s>". The saved
// tokenizer.json holds one language's template; these read every text of a side with that side's
// code instead.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "attnviz/inputs/tokenizer.hpp"

namespace attnviz {

struct LanguageCodes {
  std::string tokenizer_class;     // "NllbTokenizerFast", "MBart50TokenizerFast", …
  std::vector<std::string> codes;  // additional_special_tokens: the codes the tokenizer knows
  bool code_first = true;  // false under NLLB's legacy_behaviour and for mBART: the code after </s>
  std::string eos = "</s>";
  // tokenizer_config.json's src_lang, else the class's default (NLLB's eng_Latn, mBART's en_XX);
  // its tgt_lang, else "".
  std::string default_source, default_target;
  bool source_is_default = false;  // no src_lang in the file: the class's own default
  std::string file;                // tokenizer_config.json, for messages
  // M2M100's codes are "en", "fr", … and their tokens "__en__", "__fr__", …; the others' codes are
  // their tokens.
  bool underscored = false;
  // Generation starts with the target's code after decoder_start_token_id, as transformers'
  // forced_bos_token_id puts it (NLLB, mBART-50, M2M100); mBART's (MBartTokenizer) models start
  // from decoder_start_token_id alone, their target's code.
  bool forced_bos = true;
  std::string token_of(const std::string& code) const {
    return underscored ? "__" + code + "__" : code;
  }
};

// The language codes of the tokenizer in `dir` (a folder, or the folder of a tokenizer file);
// nullopt when its class marks no language. An Error naming the file when the class has codes but
// the file lists none, or names a default code it does not list.
std::optional<LanguageCodes> language_codes(const std::filesystem::path& dir);

// `inner` reading each text with `code` and </s> around it when it adds special tokens (code one
// of codes.codes: else a usage Error naming `flag` and the known codes). An empty code: a usage
// Error at the first text, asking for `flag`.
std::unique_ptr<Tokenizer> with_language(std::shared_ptr<const Tokenizer> inner,
                                         const LanguageCodes& codes, const std::string& code,
                                         const std::string& flag);

// The id of `code` in `tokenizer` (a code of codes.codes, one token of its own).
int64_t language_code_id(const Tokenizer& tokenizer, const LanguageCodes& codes,
                         const std::string& code, const std::string& flag);

}  // namespace attnviz
