// A small pool of weight buffers, keyed by size, bounded so it never holds more than a large layer.
#include "weight_buffers.hpp"

#include <map>
#include <mutex>

namespace attnviz::detail {

namespace {

// Free buffers beyond this many bytes are released, not kept: a Llama-3-8B layer in float32 is ~0.9
// GB.
constexpr size_t k_max_pooled_bytes = size_t(1) << 30;

struct Pool {
  std::mutex mutex;
  std::multimap<size_t, float*> free;  // by element count
  size_t bytes = 0;
};

// Never destroyed: a buffer may be given back while static objects are torn down.
Pool& pool() {
  static Pool* p = new Pool;
  return *p;
}

void give_back(size_t n, float* buffer) {
  Pool& p = pool();
  const std::lock_guard lock(p.mutex);
  if (p.bytes + n * sizeof(float) > k_max_pooled_bytes) {
    delete[] buffer;
    return;
  }
  p.free.emplace(n, buffer);
  p.bytes += n * sizeof(float);
}

float* take(size_t n) {
  Pool& p = pool();
  const std::lock_guard lock(p.mutex);
  const auto it = p.free.find(n);
  if (it == p.free.end()) return nullptr;
  float* buffer = it->second;
  p.free.erase(it);
  p.bytes -= n * sizeof(float);
  return buffer;
}

}  // namespace

std::shared_ptr<float> weight_buffer(size_t n, bool pooled) {
  float* buffer = take(n);
  if (!buffer) buffer = new float[n];
  if (!pooled) return std::shared_ptr<float>(buffer, std::default_delete<float[]>());
  return std::shared_ptr<float>(buffer, [n](float* b) { give_back(n, b); });
}

void free_weight_buffers() {
  Pool& p = pool();
  const std::lock_guard lock(p.mutex);
  for (const auto& [n, buffer] : p.free) delete[] buffer;
  p.free.clear();
  p.bytes = 0;
}

}  // namespace attnviz::detail
