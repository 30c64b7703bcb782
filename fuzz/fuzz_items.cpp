// Fuzzes what `merge` and `--batch` read: an --items file of heads or stats (header, then item
// lines) and a
// --batch line's input object.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "attnviz/batch/batch_file.hpp"
#include "attnviz/batch/items.hpp"
#include "attnviz/core/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    std::istringstream in(text);
    const auto header = attnviz::read_header(in, "fuzz");
    int64_t line = 1;
    while (attnviz::read_item(in, "fuzz", line, header.patterns.size())) {
    }
  } catch (const attnviz::Error&) {
  }
  try {
    (void)attnviz::batch_line(nlohmann::json::parse(text));
  } catch (const attnviz::Error&) {
  } catch (const nlohmann::json::exception&) {
  }
  return 0;
}
