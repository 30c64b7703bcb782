// A tokenizer.json that `attnviz init` writes beside a random model, so --text runs without a
// download.
#pragma once

#include <string>
#include <vector>

namespace attnviz {

// A byte-level BPE tokenizer.json with no merges: ids 0–255 are the bytes (GPT-2's byte-level
// alphabet, as Llama 3, Qwen and GPT-2 spell them), then `specials` as added special tokens (ids
// 256, 257, …); when `bos` is one of them, the post-processor adds it before every text
// (TemplateProcessing). Every text then encodes to one id per UTF-8 byte. The vocabulary has 256 +
// specials.size() tokens.
std::string byte_level_tokenizer_json(const std::vector<std::string>& specials,
                                      const std::string& bos);

}  // namespace attnviz
