// T5's bucketing of relative positions (see relative_bias.hpp).
#include "attnviz/event/relative_bias.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace attnviz {

int RelativeBias::bucket(int offset) const {
  int n = n_buckets();
  int bucket = 0;
  int distance = 0;
  if (bidirectional) {
    n /= 2;  // half the buckets for keys after the query
    if (offset > 0) bucket += n;
    distance = std::abs(offset);
  } else {
    distance = offset < 0 ? -offset : 0;  // −min(offset, 0): later keys share bucket 0
  }
  const int max_exact = n / 2;
  if (distance < max_exact) return bucket + distance;
  // max_exact + ⌊log(distance / max_exact) / log(max_distance / max_exact) · (n − max_exact)⌋, in
  // float32 as torch computes it; math.log(max_distance / max_exact) is a Python float.
  const auto ratio = static_cast<float>(distance) / static_cast<float>(max_exact);
  const auto span = static_cast<float>(std::log(double(max_distance) / double(max_exact)));
  const float large = std::log(ratio) / span * static_cast<float>(n - max_exact);
  // min(max_exact + ⌊large⌋, n − 1), compared in float first: a huge `large` (many buckets, a short
  // reach) has no int.
  if (!(large < static_cast<float>(n - 1 - max_exact))) return bucket + n - 1;
  return bucket + max_exact + static_cast<int>(large);
}

std::vector<float> RelativeBias::by_offset(int head, int n_query, int n_key) const {
  if (n_query < 1 || n_key < 1) return {};
  std::vector<float> out(static_cast<size_t>(n_query + n_key - 1));
  for (int i = 0; i < int(out.size()); ++i) out[size_t(i)] = table(bucket(i - (n_query - 1)), head);
  return out;
}

}  // namespace attnviz
