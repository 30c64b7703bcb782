// Built-in probe inputs for head detection: random tokens whose structure says where a head of a
// kind must attend, so no data is needed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace attnviz {

// repeat:N    N distinct random tokens, then the same N again (the standard induction probe: on the
//             second copy an induction head attends to the token after the earlier copy, a
//             duplicate-token head to the earlier copy itself).
// duplicate:N N distinct random tokens, then the same N in a random order (each token has one
//             earlier copy at a varying distance; the token after it is unrelated, so induction
//             and duplicate-token heads part ways).
enum class ProbeKind { repeat, duplicate };
struct ProbeSpec {
  ProbeKind kind = ProbeKind::repeat;
  int n = 0;
};

// "repeat:N" / "duplicate:N" with 1 ≤ N ≤ 1,000,000; anything else is a usage error.
ProbeSpec parse_probe(const std::string& text);

// --seed: a whole number from 0 to 2^64 − 1 ("" = 0); anything else is a usage error.
uint64_t parse_probe_seed(const std::string& text);

// The probe's ids: `prefix` (the special tokens a tokenizer puts before a text, e.g. BOS), the 2·N
// probe tokens drawn from [0, vocab_size) without the prefix's and suffix's ids, then `suffix`.
// The same seed gives the same ids everywhere (core's Random). A vocabulary too small for N
// distinct tokens is a usage error.
std::vector<int64_t> probe_ids(const ProbeSpec& spec, int64_t vocab_size,
                               const std::vector<int64_t>& prefix,
                               const std::vector<int64_t>& suffix, uint64_t seed);

}  // namespace attnviz
