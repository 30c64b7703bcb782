// A seeded, portable random generator: the same seed gives the same model on every platform
// (std:: distributions are implementation-defined, so they are not used for anything written out).
#pragma once

#include <cstdint>
#include <string_view>

namespace attnviz {

// splitmix64 (Steele, Lea, Flood 2014): small, fast, passes BigCrush; enough for initialising
// weights.
class Random {
 public:
  explicit Random(uint64_t seed) : state_(seed) {}
  uint64_t next_u64();
  float uniform(float lo, float hi);  // [lo, hi) with 24 random bits
  float normal();                     // N(0, 1), Box–Muller

 private:
  uint64_t state_;
};

// FNV-1a 64-bit hash of bytes: the seed of a token's deterministic embedding. `hash` continues a
// hash of the bytes before these (fnv1a_64(b, fnv1a_64(a)) == fnv1a_64(a + b)).
inline constexpr uint64_t k_fnv1a_64_basis = 0xcbf29ce484222325ULL;
uint64_t fnv1a_64(std::string_view bytes, uint64_t hash = k_fnv1a_64_basis);

}  // namespace attnviz
