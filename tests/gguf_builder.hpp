// Builds GGUF bytes for tests (and fuzz seeds): header, key/value pairs, tensor infos and data laid
// out as llama.cpp's writer does, with every field overridable to make a bad file.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attnviz::test {

// Little-endian appends.
struct GgufBytes {
  std::string out;
  template <typename T>
  GgufBytes& put(T v) {
    char b[sizeof(T)];
    std::memcpy(b, &v, sizeof(T));
    out.append(b, sizeof(T));
    return *this;
  }
  GgufBytes& str(std::string_view s) {
    put<uint64_t>(s.size());
    out.append(s);
    return *this;
  }
};

struct GgufTensorSpec {
  std::string name;
  int32_t type = 0;
  std::vector<int64_t> dims;
  std::string data;                // written at the tensor's offset
  std::optional<uint64_t> offset;  // default: the running padded total
  std::optional<uint32_t> n_dims;  // default: dims.size()
};

struct GgufBuilder {
  std::string magic = "GGUF";
  uint32_t version = 3;
  std::optional<int64_t> n_tensors, n_kv;  // default: the real counts
  std::vector<std::string> kvs;            // each a whole key/value pair's bytes
  std::vector<GgufTensorSpec> tensors;
  uint64_t alignment = 32;  // for laying out; set general.alignment to change it
  bool pad_last = true;     // pad after the last tensor's data

  // A scalar pair: key, type, value bytes.
  template <typename T>
  GgufBuilder& kv(std::string_view key, int32_t type, T value) {
    GgufBytes b;
    b.str(key).put<int32_t>(type).put<T>(value);
    kvs.push_back(b.out);
    return *this;
  }
  GgufBuilder& kv_string(std::string_view key, std::string_view value) {
    GgufBytes b;
    b.str(key).put<int32_t>(8).str(value);
    kvs.push_back(b.out);
    return *this;
  }
  GgufBuilder& tensor(GgufTensorSpec spec) {
    tensors.push_back(std::move(spec));
    return *this;
  }

  uint64_t pad(uint64_t x) const { return x + (alignment - x % alignment) % alignment; }

  std::string build() const {
    GgufBytes b;
    b.out += magic;
    b.put<uint32_t>(version);
    b.put<int64_t>(n_tensors.value_or(static_cast<int64_t>(tensors.size())));
    b.put<int64_t>(n_kv.value_or(static_cast<int64_t>(kvs.size())));
    for (const auto& kv : kvs) b.out += kv;
    uint64_t running = 0;
    for (const auto& t : tensors) {
      b.str(t.name).put<uint32_t>(t.n_dims.value_or(static_cast<uint32_t>(t.dims.size())));
      for (const int64_t d : t.dims) b.put<int64_t>(d);
      b.put<int32_t>(t.type).put<uint64_t>(t.offset.value_or(running));
      running = pad(running + t.data.size());
    }
    if (tensors.empty()) return b.out;
    b.out.resize(pad(b.out.size()), '\0');
    for (size_t i = 0; i < tensors.size(); ++i) {
      b.out += tensors[i].data;
      if (i + 1 < tensors.size() || pad_last) b.out.resize(pad(b.out.size()), '\0');
    }
    return b.out;
  }
};

}  // namespace attnviz::test
