// GGUF files written by tests/fixtures/gguf/make_gguf_fixtures.mjs, read by attnviz and compared
// with what an independent parser (@huggingface/gguf) read from them (the .json beside each).
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "attnviz/io/gguf/gguf.hpp"

namespace fs = std::filesystem;
using attnviz::GgufValueType;
using json = nlohmann::ordered_json;  // keys in file order

namespace {

const fs::path k_fixtures = fs::path(ATTNVIZ_SOURCE_DIR) / "tests" / "fixtures" / "gguf";

// The value of `key` in attnviz's reading, as JSON in the reference's conventions (64-bit integers
// as decimal strings, arrays as JSON arrays).
json value_as_json(const attnviz::GgufMetadata& md, const std::string& key, GgufValueType type,
                   bool array) {
  const auto one = [&](auto tag) -> json {
    using T = decltype(tag);
    if (array) return md.get_array<T>(key);
    return md.get<T>(key);
  };
  switch (type) {
    case GgufValueType::U8:
      return one(uint8_t{});
    case GgufValueType::I8:
      return one(int8_t{});
    case GgufValueType::U16:
      return one(uint16_t{});
    case GgufValueType::I16:
      return one(int16_t{});
    case GgufValueType::U32:
      return one(uint32_t{});
    case GgufValueType::I32:
      return one(int32_t{});
    case GgufValueType::F32:
      return one(float{});
    case GgufValueType::Bool:
      return one(bool{});
    case GgufValueType::String:
      return one(std::string{});
    case GgufValueType::F64:
      return one(double{});
    case GgufValueType::U64:
      return std::to_string(md.get<uint64_t>(key));
    case GgufValueType::I64:
      return std::to_string(md.get<int64_t>(key));
    default:
      return nullptr;
  }
}

void check_fixture(const std::string& name) {
  CAPTURE(name);
  const json ref = json::parse(std::ifstream(k_fixtures / (name + ".json")));
  const auto f = attnviz::GgufFile::open(k_fixtures / (name + ".gguf"));
  CHECK(f.version() == ref["version"].get<uint32_t>());
  CHECK(f.data_offset() == ref["tensor_data_offset"].get<uint64_t>());
  const auto& entries = f.metadata().entries();
  REQUIRE(entries.size() == ref["metadata"].size());
  size_t i = 0;
  for (const auto& [key, r] : ref["metadata"].items()) {
    CAPTURE(key);
    CHECK(entries[i++].first == key);  // file order
    const attnviz::GgufValue* v = f.metadata().find(key);
    REQUIRE(v != nullptr);
    const bool array = r["type"].get<uint32_t>() == 9;
    CHECK(v->is_array == array);
    CHECK(static_cast<uint32_t>(v->type) ==
          (array ? r["subType"].get<uint32_t>() : r["type"].get<uint32_t>()));
    CHECK(value_as_json(f.metadata(), key, v->type, array) == r["value"]);
  }
  REQUIRE(f.tensors().size() == ref["tensors"].size());
  for (size_t t = 0; t < f.tensors().size(); ++t) {
    const auto& mine = f.tensors()[t];
    const json& r = ref["tensors"][t];
    CAPTURE(mine.name);
    CHECK(mine.name == r["name"].get<std::string>());
    CHECK(mine.type == r["dtype"].get<uint32_t>());
    CHECK(mine.dims == r["shape"].get<std::vector<int64_t>>());
    CHECK(mine.offset == r["offset"].get<uint64_t>());
    // Every tensor of the fixtures is of a type attnviz converts; all of its values come out.
    CHECK(f.dequantize(mine).size() == static_cast<size_t>(mine.rows() * mine.row_length()));
  }
}

}  // namespace

TEST_CASE("gguf fixtures: attnviz reads what @huggingface/gguf reads") {
  check_fixture("all_types_v3");
  check_fixture("aligned64_v2");
}
