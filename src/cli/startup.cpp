// Process-wide settings made before the command line is read: glibc malloc's thresholds, and the
// OpenBLAS setting that needs a fresh process (how long its idle threads spin).
#include "attnviz/cli/startup.hpp"

#include <malloc.h>
#include <unistd.h>

#include <cstdlib>
#include <limits>

namespace attnviz {

std::map<std::string, std::string> openblas_settings(
    const std::function<const char*(const char*)>& get_env) {
  std::map<std::string, std::string> add;
  // After each product OpenBLAS's idle workers spin on sched_yield for 2^28 cycles (≈ 0.1 s) by
  // default: a quarter of a run's samples, mostly system time, and a core taken from attnviz's own
  // work between products. 2^4 puts them to sleep at once; the next product wakes them.
  if (get_env("OPENBLAS_THREAD_TIMEOUT") == nullptr) add["OPENBLAS_THREAD_TIMEOUT"] = "4";
  return add;
}

void keep_freed_memory() {
  // Buffers of 128 KiB to 32 MiB (activations, products: one per layer and head) come from the
  // heap and stay there when freed, instead of being mapped and unmapped each time: fresh pages
  // cost a fault and a clearing each (a third of a long run's time was system time). 32 MiB is the
  // largest threshold glibc accepts; larger buffers are still mapped.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, std::numeric_limits<int>::max());
}

void tune_openblas(char** argv) {
  const auto add =
      openblas_settings([](const char* name) -> const char* { return std::getenv(name); });
  if (add.empty()) return;  // the user set them, or this is the re-executed process
  for (const auto& [name, value] : add) setenv(name.c_str(), value.c_str(), 0);
  execv("/proc/self/exe", argv);  // returns only on failure: then run as we are
}

}  // namespace attnviz
