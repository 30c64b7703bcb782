// BERT's tokenizer from a vocab.txt folder (private to inputs/): vocab.txt, and
// tokenizer_config.json beside it when there is one, assembled as transformers'
// BertTokenizerFast does: BertNormalizer → BertPreTokenizer → WordPiece("##", 100) →
// BertProcessing, the special tokens of the vocabulary matched first.
#pragma once

#include <filesystem>
#include <memory>

#include "attnviz/inputs/tokenizer.hpp"

namespace attnviz {

// dir/vocab.txt (read_vocabulary's rules: a token listed twice takes its last line) and
// dir/tokenizer_config.json: do_lower_case (default true), strip_accents (default null: as
// do_lower_case), tokenize_chinese_chars (default true), unk_token, cls_token, sep_token,
// pad_token, mask_token (defaults "[UNK]" "[CLS]" "[SEP]" "[PAD]" "[MASK]"), never_split (only
// special tokens: the slow and fast tokenizers treat other words differently). An Error naming
// the file and field for a malformed one, for a vocab.txt that is missing or empty, and, when
// special tokens are asked for, for a [CLS]/[SEP] token the vocabulary lacks.
std::unique_ptr<Tokenizer> make_bert_vocab_tokenizer(const std::filesystem::path& dir);

}  // namespace attnviz
