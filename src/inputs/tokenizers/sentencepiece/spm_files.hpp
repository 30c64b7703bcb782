// What the SentencePiece tokenizers share (tokenizer.model / spiece.model, and Marian's
// source.spm / target.spm with vocab.json): loading a model file, labels of pieces, and the refusal
// of special-token text that transformers would split out and libsentencepiece would not.
#pragma once

#include <sentencepiece_processor.h>

#include <string>
#include <string_view>
#include <vector>

namespace attnviz::detail {

// Loads `file` (at most 64 MiB) into `sp` and returns its bytes; an Error naming the file when it
// is not a SentencePiece model.
std::string load_sentencepiece(const std::string& file, sentencepiece::SentencePieceProcessor& sp);

// A piece as the axes show it: every "▁" (SentencePiece's space) as "␣" (U+2423), control
// characters escaped.
std::string spm_piece_label(std::string_view piece);

// An Error when `text` holds one of `specials` (the first one found, by position): transformers'
// tokenizer reads it as a special token, libsentencepiece as plain text. `instead` says what to
// give instead; `files` names the kind of file (".model files").
void refuse_special_text(std::string_view text, const std::vector<std::string>& specials,
                         const std::string& file, std::string_view files, std::string_view instead);

}  // namespace attnviz::detail
