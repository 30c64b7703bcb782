// GPT-2's vocab.json + merges.txt (private to inputs/).
#pragma once

#include <filesystem>
#include <memory>

#include "attnviz/inputs/tokenizer.hpp"

namespace attnviz {

// The byte-level BPE of dir/vocab.json + dir/merges.txt; an Error naming the missing or
// malformed file.
std::unique_ptr<Tokenizer> read_gpt2_tokenizer(const std::filesystem::path& dir);

}  // namespace attnviz
