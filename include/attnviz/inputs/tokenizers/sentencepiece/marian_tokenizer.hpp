// Marian's tokenizer (transformers' MarianTokenizer, Helsinki-NLP/opus-mt-*): a SentencePiece model
// per side (source.spm for the encoder's text, target.spm for the decoder's) and one vocab.json
// that gives the pieces their model ids.
#pragma once

#include <filesystem>
#include <memory>

#include "attnviz/inputs/tokenizer.hpp"

namespace attnviz {

enum class MarianSide { source, target };

// Whether `dir` holds a Marian tokenizer: source.spm, target.spm and vocab.json.
bool is_marian_folder(const std::filesystem::path& dir);

// The tokenizer of one side of the Marian folder `dir`, as MarianTokenizer reads a text (the source
// side, or the target side as `text_target=` does): a leading language code ">>xx<<" (up to the
// first "<<") kept as one token, the rest encoded by the side's .spm into pieces, each piece's id
// looked up in vocab.json (a piece SentencePiece does not know is <unk>), then </s> when
// add_special. Refused, as an Error naming the file: tokenizer_config.json's separate_vocabs (a
// target_vocab.json of its own) and sp_model_kwargs; a piece the .spm knows but vocab.json lacks
// (transformers versions differ on it); a language code vocab.json lacks; text holding a special
// token (</s>, <unk>, <pad>), which transformers splits out and SentencePiece does not.
std::unique_ptr<Tokenizer> make_marian_tokenizer(const std::filesystem::path& dir, MarianSide side);

}  // namespace attnviz
