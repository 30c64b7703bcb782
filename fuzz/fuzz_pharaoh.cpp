// Fuzzes gold alignment lines (align --gold: Pharaoh "i-j" sure and "i?j" possible links):
// parse_gold_line, then the AER counts of its own sure links against it.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "attnviz/analysis/alignment.hpp"
#include "attnviz/core/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const attnviz::GoldAlignment g =
        attnviz::parse_gold_line({reinterpret_cast<const char*>(data), size}, 40, 40, "gold");
    attnviz::AerCounts c;
    c.add(g.sure, g);
    (void)c.aer();
  } catch (const attnviz::Error&) {
  }
  return 0;
}
