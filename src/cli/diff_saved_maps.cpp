// Reading a --save file's maps for `diff`.
#include "diff_saved_maps.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <regex>

#include "attnviz/core/error.hpp"

namespace attnviz::detail {

// "layer3.self", "decoder.layer1.cross", "rollout.layer0.self": the map names --save writes.
HeadId map_id(const std::string& map, const std::filesystem::path& file) {
  static const std::regex name(R"(^(?:(.+)\.)?layer(\d{1,9})\.(self|cross)$)");
  std::smatch m;
  if (!std::regex_match(map, m, name)) {
    throw Error(
        fmt::format("{}: tensor {}.probs is not a map attnviz --save writes "
                    "({{stack.}}layer{{L}}.self|cross.probs)",
                    file.string(), map));
  }
  return HeadId{m[1].str(), std::stoi(m[2].str()), m[3].str() == "self" ? Site::self : Site::cross,
                0};
}

// The head each of a map's `n` slots holds: "{map}.heads" ("[1, 3]") when --head chose some, else 0
// to n − 1.
std::vector<int> saved_heads(const SafetensorsFile& f, const std::string& map, int64_t n) {
  const auto it = f.metadata().find(map + ".heads");
  std::vector<int> heads;
  if (it == f.metadata().end()) {
    for (int64_t h = 0; h < n; ++h) heads.push_back(static_cast<int>(h));
    return heads;
  }
  try {
    const auto list = nlohmann::json::parse(it->second);
    if (list.is_array() && static_cast<int64_t>(list.size()) == n) {
      for (const auto& h : list) heads.push_back(h.is_number_integer() ? h.get<int>() : -1);
      if (std::all_of(heads.begin(), heads.end(), [](int h) { return h >= 0; })) return heads;
    }
  } catch (const nlohmann::json::exception&) {
  }
  throw Error(fmt::format("{}: metadata {}.heads is '{}', not a list of {} head numbers",
                          f.path().string(), map, it->second, n));
}

// Where a map's tensors hold `head`: its index among the saved heads.
int slot_of(const SafetensorsFile& f, const std::string& map, int head) {
  const std::vector<int> heads = saved_heads(f, map, f.find(map + ".probs")->shape[0]);
  return static_cast<int>(std::find(heads.begin(), heads.end(), head) - heads.begin());
}

// The maps a --save file holds, for --layer and --head lists (-1: the last of them).
MapList saved_maps(const SafetensorsFile& f) {
  MapList list;
  for (const auto& t : f.tensors()) {
    if (!t.name.ends_with(".probs") || t.shape.size() != 3) continue;
    const std::string map = t.name.substr(0, t.name.size() - 6);
    list.maps.push_back(map_id(map, f.path()));
    for (const int h : saved_heads(f, map, t.shape[0]))
      list.n_heads = std::max(list.n_heads, h + 1);
  }
  return list;
}

std::vector<std::string> labels(const SafetensorsFile& f, const std::string& map,
                                const char* axis) {
  const auto it = f.metadata().find(map + axis);
  if (it == f.metadata().end()) return {};
  try {
    return nlohmann::json::parse(it->second).get<std::vector<std::string>>();
  } catch (const nlohmann::json::exception&) {
    throw Error(fmt::format("{}: metadata {}{} is not a JSON array of labels", f.path().string(),
                            map, axis));
  }
}

// Head `slot` of a saved [heads, n_query, n_key] map, converted to float: one head in memory, not
// the whole tensor.
std::vector<float> head_map(const SafetensorsFile& f, const std::string& tensor, int64_t slot) {
  const StoredTensor t = f.stored(tensor);
  const auto cells = static_cast<size_t>(t.shape[1] * t.shape[2]);
  std::vector<float> out(cells);
  convert_to_float(t.dtype, t.data + static_cast<size_t>(slot) * cells * dtype_bytes(t.dtype),
                   cells, out.data());
  return out;
}

// A's labels, "a→b" where B's differ (a figure's axes show both inputs).
std::vector<std::string> both_labels(const SafetensorsFile& fa, const SafetensorsFile& fb,
                                     const std::string& map, const char* axis, int64_t n) {
  std::vector<std::string> a = labels(fa, map, axis), b = labels(fb, map, axis);
  if (a.size() != static_cast<size_t>(n)) return {};  // indices
  if (b.size() == a.size()) {
    for (size_t i = 0; i < a.size(); ++i) {
      if (a[i] != b[i]) a[i] += "→" + b[i];
    }
  }
  return a;
}

// "the inputs differ at 1 of 24 positions (first: 5 'cat' → 'dog')", or "" when they agree.
std::string label_note(const std::vector<std::string>& a, const std::vector<std::string>& b,
                       const std::string& map) {
  if (a.empty() || b.empty() || a == b) return "";
  if (a.size() != b.size())
    return fmt::format("{}: {} labels in A, {} in B", map, a.size(), b.size());
  size_t n = 0, first = a.size();
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] != b[i]) n += 1, first = std::min(first, i);
  }
  return fmt::format("{}: the inputs differ at {} of {} positions (first: {} '{}' → '{}')", map, n,
                     a.size(), first, a[first], b[first]);
}

}  // namespace attnviz::detail
