// T5's relative position bias (Raffel et al. 2020, §2.1; transformers' T5Attention): each head
// adds a learned scalar to every score, chosen by the bucket of the key's offset from the query.
// The bucketing is exact for small offsets and logarithmic up to a maximum distance; an encoder's
// buckets tell keys before the query from keys after it, a causal decoder's only how far back.
#pragma once

#include "attnviz/core/matrix.hpp"

namespace attnviz {

struct RelativeBias {
  Matrix table;  // [buckets, heads]: the stack's layer-0 relative_attention_bias
  int max_distance = 128;
  bool bidirectional = true;  // the encoder's; a decoder's buckets only look back

  int n_buckets() const { return static_cast<int>(table.rows()); }
  // The bucket of the offset key − query, as T5Attention._relative_position_bucket computes it (in
  // float32, as torch does: log(offset / max_exact) / log(max_distance / max_exact)).
  int bucket(int offset) const;
  // What head h adds to the score of (query, key).
  float at(int head, int query, int key) const { return table(bucket(key - query), head); }
  // Head h's bias for every offset key − query from −(n_query − 1) to n_key − 1, at index
  // offset + n_query − 1: the kernel reads row i's from index n_query − 1 − i.
  std::vector<float> by_offset(int head, int n_query, int n_key) const;
};

}  // namespace attnviz
