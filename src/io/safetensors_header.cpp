// safetensors validation: every check of the reference reader (huggingface/safetensors
// `read_metadata` and `Metadata::validate`) plus duplicate keys, each failing with its own message.
#include "safetensors_header.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <tuple>

#include "attnviz/core/error.hpp"
#include "attnviz/core/unicode.hpp"
#include "attnviz/io/json.hpp"

namespace attnviz::detail {
namespace {

using nlohmann::json;

struct DtypeSize {
  std::string_view name;
  uint64_t size;
};

// The reference's `Dtype` names attnviz knows, with bytes per element.
constexpr std::array<DtypeSize, 15> k_dtypes = {{{"BOOL", 1},
                                                 {"U8", 1},
                                                 {"I8", 1},
                                                 {"F8_E5M2", 1},
                                                 {"F8_E4M3", 1},
                                                 {"I16", 2},
                                                 {"U16", 2},
                                                 {"F16", 2},
                                                 {"BF16", 2},
                                                 {"I32", 4},
                                                 {"U32", 4},
                                                 {"F32", 4},
                                                 {"F64", 8},
                                                 {"I64", 8},
                                                 {"U64", 8}}};

std::string known_dtypes() {
  std::vector<std::string_view> names;
  for (const auto& d : k_dtypes) names.push_back(d.name);
  return fmt::format("{}", fmt::join(names, ", "));
}

// A JSON value for messages: its type and its text, shortened (on a UTF-8 boundary) if long.
std::string describe(const json& j) {
  constexpr size_t k_max_text = 40;
  std::string text = j.dump();
  if (text.size() > k_max_text) {
    size_t cut = k_max_text - 3;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
    text = text.substr(0, cut) + "...";
  }
  return fmt::format("{} {}", j.type_name(), text);
}

// nlohmann::json keeps only the last of duplicate keys, so watch keys as the parser meets them:
// depth 1 holds tensor names, depth 2 the fields of one tensor or the keys of __metadata__.
struct DuplicateKey {
  int depth = 0;
  std::string parent;  // the depth-1 key owning a depth-2 duplicate
  std::string key;
};

json parse_json_watching_duplicates(std::string_view header, std::optional<DuplicateKey>& dup) {
  std::vector<std::set<std::string>> open_objects;
  std::string top_key;
  auto watch = [&](int depth, json::parse_event_t event, json& parsed) {
    if (event == json::parse_event_t::object_start) open_objects.emplace_back();
    if (event == json::parse_event_t::object_end && !open_objects.empty()) open_objects.pop_back();
    if (event == json::parse_event_t::key && !open_objects.empty()) {
      const auto& key = parsed.get_ref<const std::string&>();
      if (depth == 1) top_key = key;
      if (!dup && depth <= 2 && !open_objects.back().insert(key).second) {
        dup = DuplicateKey{depth, depth == 1 ? std::string() : top_key, key};
      }
    }
    return true;
  };
  return json::parse(header.begin(), header.end(), watch);
}

// UTF-8, then JSON, then "an object", then no duplicate keys: the first failure is reported.
json parse_header(std::string_view header, const std::string& file) {
  // Overlong forms, surrogates and code points past U+10FFFF are invalid, as for Rust's
  // str::from_utf8.
  if (const auto bad = attnviz::find_invalid_utf8(header)) {
    throw Error(fmt::format("{}: header is not valid UTF-8: byte 0x{:02x} at header offset {}",
                            file, static_cast<unsigned char>(header[*bad]), *bad));
  }
  check_json_depth(header, file + ": header");  // before nlohmann, whose dump() recurses
  std::optional<DuplicateKey> dup;
  json root;
  try {
    root = parse_json_watching_duplicates(header, dup);
  } catch (const json::exception& e) {  // parse_error, and out_of_range for a number like 1e309
    throw Error(fmt::format("{}: header is not valid JSON: {}", file, e.what()));
  }
  if (!root.is_object()) {
    throw Error(fmt::format("{}: header must be a JSON object, got {}", file, describe(root)));
  }
  if (dup && dup->depth == 1) {
    throw Error(fmt::format("{}: duplicate tensor name '{}' in the header", file, dup->key));
  }
  if (dup && dup->parent == "__metadata__") {
    throw Error(fmt::format("{}: __metadata__ has duplicate key '{}'", file, dup->key));
  }
  if (dup) {
    throw Error(
        fmt::format("{}: tensor '{}' has duplicate field '{}'", file, dup->parent, dup->key));
  }
  return root;
}

// The reference reads "__metadata__" as Option<HashMap<String, String>>: null means none.
std::map<std::string, std::string> parse_metadata(const json& value, const std::string& file) {
  std::map<std::string, std::string> metadata;
  if (value.is_null()) return metadata;
  if (!value.is_object()) {
    throw Error(fmt::format("{}: __metadata__ must be an object of string values, got {}", file,
                            describe(value)));
  }
  for (const auto& [key, v] : value.items()) {
    if (!v.is_string()) {
      throw Error(fmt::format("{}: __metadata__ entry '{}' must be a string, got {}", file, key,
                              describe(v)));
    }
    metadata.emplace(key, v.get<std::string>());
  }
  return metadata;
}

// One header entry before layout checks; dims stay unsigned 64-bit as in the file.
struct Entry {
  std::string name;
  std::string dtype;
  std::vector<uint64_t> dims;
  uint64_t begin = 0;
  uint64_t end = 0;
};

const json& require_field(const json& entry, const char* field, const std::string& name,
                          const std::string& file) {
  const auto it = entry.find(field);
  if (it == entry.end()) {
    throw Error(fmt::format("{}: tensor '{}': missing field '{}'", file, name, field));
  }
  return *it;
}

std::vector<uint64_t> parse_shape(const json& shape, const std::string& name,
                                  const std::string& file) {
  if (!shape.is_array()) {
    throw Error(
        fmt::format("{}: tensor '{}': shape must be an array of non-negative integers, got {}",
                    file, name, describe(shape)));
  }
  std::vector<uint64_t> dims;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (!shape[i].is_number_unsigned()) {
      throw Error(fmt::format("{}: tensor '{}': shape[{}] must be a non-negative integer, got {}",
                              file, name, i, describe(shape[i])));
    }
    dims.push_back(shape[i].get<uint64_t>());
  }
  return dims;
}

Entry parse_entry(const std::string& name, const json& entry, const std::string& file) {
  if (!entry.is_object()) {
    throw Error(fmt::format("{}: tensor '{}': entry must be an object, got {}", file, name,
                            describe(entry)));
  }
  Entry e{name, {}, {}, 0, 0};
  const json& dtype = require_field(entry, "dtype", name, file);
  if (!dtype.is_string()) {
    throw Error(fmt::format("{}: tensor '{}': dtype must be a string, got {}", file, name,
                            describe(dtype)));
  }
  e.dtype = dtype.get<std::string>();
  if (safetensors_dtype_size(e.dtype) == 0) {
    throw Error(fmt::format("{}: tensor '{}': unknown dtype '{}' (expected one of {})", file, name,
                            e.dtype, known_dtypes()));
  }
  e.dims = parse_shape(require_field(entry, "shape", name, file), name, file);
  const json& offsets = require_field(entry, "data_offsets", name, file);
  if (!offsets.is_array() || offsets.size() != 2) {
    throw Error(
        fmt::format("{}: tensor '{}': data_offsets must be an array of 2 unsigned integers, "
                    "got {}",
                    file, name, describe(offsets)));
  }
  for (size_t i = 0; i < 2; ++i) {
    if (!offsets[i].is_number_unsigned()) {
      throw Error(
          fmt::format("{}: tensor '{}': data_offsets[{}] must be an unsigned integer, got {}", file,
                      name, i, describe(offsets[i])));
    }
  }
  e.begin = offsets[0].get<uint64_t>();
  e.end = offsets[1].get<uint64_t>();
  return e;
}

// The reference computes shape product × dtype size with checked_mul; then the span must match.
void check_byte_length(const Entry& e, const std::string& file) {
  const uint64_t elem = safetensors_dtype_size(e.dtype);
  uint64_t n_elems = 1;
  uint64_t n_bytes = 0;
  bool overflow = false;
  for (uint64_t d : e.dims) overflow = overflow || __builtin_mul_overflow(n_elems, d, &n_elems);
  overflow = overflow || __builtin_mul_overflow(n_elems, elem, &n_bytes);
  if (overflow) {
    throw Error(fmt::format("{}: tensor '{}': shape [{}] × {} bytes ({}) overflows 64 bits", file,
                            e.name, fmt::join(e.dims, ", "), elem, e.dtype));
  }
  // Only reachable with a zero dimension elsewhere: TensorInfo keeps shapes as int64 like PyTorch.
  for (size_t i = 0; i < e.dims.size(); ++i) {
    if (e.dims[i] > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      throw Error(fmt::format("{}: tensor '{}': shape[{}] = {} does not fit in int64", file, e.name,
                              i, e.dims[i]));
    }
  }
  if (e.end - e.begin != n_bytes) {
    throw Error(fmt::format(
        "{}: tensor '{}': data_offsets [{}, {}] hold {} bytes but shape [{}] of "
        "{} needs {} bytes",
        file, e.name, e.begin, e.end, e.end - e.begin, fmt::join(e.dims, ", "), e.dtype, n_bytes));
  }
}

// Sorted by begin, the tensors must tile [0, last end) exactly: each begins where the last ended.
uint64_t check_tiling(std::vector<Entry>& entries, const std::string& file) {
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return std::tie(a.begin, a.end, a.name) < std::tie(b.begin, b.end, b.name);
  });
  uint64_t expected = 0;
  const Entry* previous = nullptr;
  for (const Entry& e : entries) {
    if (e.begin > expected) {
      const std::string where = previous ? fmt::format("the end of tensor '{}'", previous->name)
                                         : std::string("the start of the data buffer");
      throw Error(
          fmt::format("{}: tensor '{}': data_offsets [{}, {}] leave a hole: expected begin "
                      "{} ({}), got {}",
                      file, e.name, e.begin, e.end, expected, where, e.begin));
    }
    if (e.begin < expected) {
      throw Error(
          fmt::format("{}: tensor '{}': data_offsets [{}, {}] overlap tensor '{}', which "
                      "ends at {}",
                      file, e.name, e.begin, e.end, previous->name, expected));
    }
    if (e.end < e.begin) {
      throw Error(fmt::format("{}: tensor '{}': data_offsets [{}, {}] end before they begin", file,
                              e.name, e.begin, e.end));
    }
    check_byte_length(e, file);
    expected = e.end;
    previous = &e;
  }
  return expected;
}

}  // namespace

uint64_t safetensors_dtype_size(std::string_view dtype) {
  for (const auto& d : k_dtypes) {
    if (d.name == dtype) return d.size;
  }
  return 0;
}

SafetensorsLayout validate_safetensors(std::string_view bytes, const std::string& file) {
  if (bytes.size() < k_safetensors_length_bytes) {
    throw Error(
        fmt::format("{}: file is {} bytes, too short for the 8-byte header length that "
                    "starts a safetensors file",
                    file, bytes.size()));
  }
  uint64_t n = 0;
  std::memcpy(&n, bytes.data(), sizeof n);  // little-endian on disk and (static_assert) in memory
  if (n > k_safetensors_max_header) {
    throw Error(fmt::format("{}: header length {} exceeds the limit of {} bytes", file, n,
                            k_safetensors_max_header));
  }
  if (n > bytes.size() - k_safetensors_length_bytes) {
    throw Error(fmt::format("{}: header length {} runs past the end of the file: 8 + {} > {} bytes",
                            file, n, n, bytes.size()));
  }
  const json root = parse_header(bytes.substr(k_safetensors_length_bytes, n), file);
  SafetensorsLayout layout;
  layout.data_start = k_safetensors_length_bytes + n;
  std::vector<Entry> entries;
  for (const auto& [key, value] : root.items()) {
    if (key == "__metadata__") {
      layout.metadata = parse_metadata(value, file);
    } else {
      entries.push_back(parse_entry(key, value, file));
    }
  }
  const uint64_t data_end = check_tiling(entries, file);
  const uint64_t data_size = bytes.size() - layout.data_start;
  if (data_size < data_end) {
    throw Error(fmt::format("{}: data buffer is {} bytes but the tensors need {} (file truncated?)",
                            file, data_size, data_end));
  }
  if (data_size > data_end) {
    throw Error(
        fmt::format("{}: data buffer is {} bytes but the tensors end at {}: {} trailing "
                    "bytes",
                    file, data_size, data_end, data_size - data_end));
  }
  for (const Entry& e : entries) {
    layout.tensors.push_back(TensorInfo{
        e.name, e.dtype, std::vector<int64_t>(e.dims.begin(), e.dims.end()), e.begin, e.end});
  }
  return layout;
}

}  // namespace attnviz::detail
