// The GGUF report of `inspect`: format and layout, general.architecture / name / file_type, the
// tensors with their ggml types, the quantisation mix (tensors, parameters and bytes per type) and
// the metadata. Every name and string is the file's bytes, so each is escaped (printable_text)
// and long ones cut; arrays show their type, count and first elements.
#include "inspect_gguf.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstring>
#include <fstream>
#include <iostream>
#include <map>

#include "attnviz/core/plural.hpp"
#include "attnviz/core/tensor.hpp"
#include "attnviz/core/unicode.hpp"
#include "attnviz/io/gguf/gguf.hpp"
#include "attnviz/io/gguf/gguf_file_type.hpp"
#include "size_text.hpp"

namespace attnviz::detail {
namespace {

constexpr int k_string_columns = 80;   // a chat template is kilobytes: cut, with its size
constexpr uint64_t k_array_shown = 8;  // a vocabulary is 100k strings: the first few

// A string of the file between quotes: '\' and '"' escaped first, so `"\""` is one quote and the
// \n, \xNN escapes printable_text adds stay unambiguous.
std::string quoted(const std::string& s) {
  std::string escaped;
  for (const char c : s) {
    if (c == '\\' || c == '"') escaped += '\\';
    escaped += c;
  }
  const std::string printable = printable_text(escaped);
  const std::string shown = truncate_to_width(printable, k_string_columns);
  const bool cut = shown.size() < printable.size();
  return "\"" + shown + "\"" +
         (cut ? fmt::format(" ({})", count_of(static_cast<long long>(s.size()), "byte")) : "");
}

template <typename T>
std::string number_at(const GgufValue& v, uint64_t i) {
  T x;
  std::memcpy(&x, v.bytes.data() + i * sizeof(T), sizeof(T));
  if constexpr (sizeof(T) == 1 && !std::is_same_v<T, bool>)
    return std::to_string(static_cast<int>(x));
  else
    return fmt::format("{}", x);
}

// Element i of a value, as text.
std::string element(const GgufValue& v, uint64_t i) {
  switch (v.type) {
    case GgufValueType::U8:
      return number_at<uint8_t>(v, i);
    case GgufValueType::I8:
      return number_at<int8_t>(v, i);
    case GgufValueType::U16:
      return number_at<uint16_t>(v, i);
    case GgufValueType::I16:
      return number_at<int16_t>(v, i);
    case GgufValueType::U32:
      return number_at<uint32_t>(v, i);
    case GgufValueType::I32:
      return number_at<int32_t>(v, i);
    case GgufValueType::U64:
      return number_at<uint64_t>(v, i);
    case GgufValueType::I64:
      return number_at<int64_t>(v, i);
    case GgufValueType::F32:
      return number_at<float>(v, i);
    case GgufValueType::F64:
      return number_at<double>(v, i);
    case GgufValueType::Bool:
      return v.bytes[i] != 0 ? "true" : "false";
    case GgufValueType::String:
      return quoted(v.strings[i]);
    default:
      return "?";
  }
}

// "u32 = 2048", "str = \"llama\"", "arr[str] × 32,000 = [\"<unk>\", \"<s>\", …]".
std::string describe_value(const GgufValue& v) {
  const std::string type(gguf_value_type_name(v.type));
  if (!v.is_array) return type + " = " + element(v, 0);
  std::vector<std::string> items;
  for (uint64_t i = 0; i < std::min(v.count, k_array_shown); ++i) items.push_back(element(v, i));
  if (v.count > k_array_shown) items.push_back("…");
  return fmt::format("arr[{}] × {} = [{}]", type, grouped(v.count), fmt::join(items, ", "));
}

// general.file_type as llama.cpp names it, with the number the file holds.
std::string file_type_line(const GgufMetadata& md) {
  if (!md.find("general.file_type")) return "file type: none (no general.file_type)";
  const uint64_t n = md.get_count("general.file_type");
  const std::string name = llama_file_type_name(n);
  return fmt::format("file type: {} (general.file_type = {})", name.empty() ? "unknown" : name, n);
}

std::string string_or_none(const GgufMetadata& md, const std::string& key) {
  const GgufValue* v = md.find(key);
  if (!v || v->type != GgufValueType::String || v->is_array) return "none";
  return quoted(v->strings[0]);
}

void print_tensors(const GgufFile& f) {
  size_t name_width = 6;
  std::vector<std::string> names;
  for (const GgufTensorInfo& t : f.tensors()) {
    names.push_back(printable_text(t.name));
    name_width = std::max(name_width, static_cast<size_t>(display_width(names.back())));
  }
  const auto row = [&](const std::string& a, const std::string& b, const std::string& c,
                       const std::string& d) {
    std::cout << fmt::format("{}  {:<7}  {:<24}  {:>12}\n",
                             pad_to_width(a, static_cast<int>(name_width)), b, c, d);
  };
  row("tensor", "type", "ne (ggml order)", "bytes");
  uint64_t total = 0;
  for (size_t i = 0; i < names.size(); ++i) {
    const GgufTensorInfo& t = f.tensors()[i];
    row(names[i], ggml_type_name(t.type), shape_string(t.dims), std::to_string(t.bytes));
    total += t.bytes;
  }
  row("total", "", "", std::to_string(total));
}

// The quantisation mix: per ggml type, in type-number order, and the total.
void print_mix(const GgufFile& f) {
  std::map<uint32_t, DtypeTotals> by_type;
  DtypeTotals all;
  for (const GgufTensorInfo& t : f.tensors()) {
    const uint64_t n = static_cast<uint64_t>(t.row_length()) * static_cast<uint64_t>(t.rows());
    for (DtypeTotals* d : {&by_type[t.type], &all}) {
      d->tensors += 1;
      d->parameters += n;
      d->bytes += t.bytes;
    }
  }
  std::cout << "\ntypes\n";
  if (by_type.empty()) std::cout << "  none\n";
  for (const auto& [type, totals] : by_type)
    std::cout << describe_totals(ggml_type_name(type), totals);
  if (by_type.size() > 1) std::cout << describe_totals("total", all);
}

}  // namespace

void print_gguf(const ModelLocation& where) {
  const GgufFile f = GgufFile::open(where.path);
  const GgufMetadata& md = f.metadata();
  uint64_t parameters = 0;
  for (const GgufTensorInfo& t : f.tensors())
    parameters += static_cast<uint64_t>(t.row_length()) * static_cast<uint64_t>(t.rows());
  const uint64_t size = std::filesystem::file_size(where.path);
  std::cout << fmt::format("source: {}\n", printable_text(where.description()))
            << fmt::format("format: GGUF v{}, alignment {}, tensor data at byte {} of {} ({})\n",
                           f.version(), f.alignment(), grouped(f.data_offset()), grouped(size),
                           decimal_size(size))
            << fmt::format("architecture: {}, name: {}\n",
                           string_or_none(md, "general.architecture"),
                           string_or_none(md, "general.name"))
            << file_type_line(md) << '\n'
            << fmt::format("{}, {} parameters\n\n",
                           count_of(static_cast<long long>(f.tensors().size()), "tensor"),
                           grouped(parameters));
  print_tensors(f);
  print_mix(f);
  std::cout << "\nmetadata (" << count_of(static_cast<long long>(md.entries().size()), "key")
            << ")\n";
  for (const auto& [key, value] : md.entries()) {
    std::cout << fmt::format("  {}: {}\n", printable_text(key), describe_value(value));
  }
}

}  // namespace attnviz::detail
