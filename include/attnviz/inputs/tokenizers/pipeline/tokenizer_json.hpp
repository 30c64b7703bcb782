// Hugging Face's tokenizer.json (private to inputs/).
#pragma once

#include <filesystem>
#include <memory>

#include "attnviz/inputs/tokenizer.hpp"

namespace attnviz {

// The tokenizer a tokenizer.json describes, with tokenizer_config.json beside it where it changes
// the special tokens; an Error naming the file and field for anything malformed or not implemented.
std::unique_ptr<Tokenizer> read_tokenizer_json(const std::filesystem::path& file);

}  // namespace attnviz
