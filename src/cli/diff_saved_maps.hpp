// The maps of a --save file as `diff` reads them: their names, heads, labels, one head at a time.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "attnviz/core/row_list.hpp"
#include "attnviz/event/head_id.hpp"
#include "attnviz/event/selection.hpp"
#include "attnviz/io/safetensors.hpp"

namespace attnviz::detail {

// "layer3.self", "decoder.layer1.cross", "rollout.layer0.self": the map names --save writes.
HeadId map_id(const std::string& map, const std::filesystem::path& file);

// The head each of a map's `n` slots holds: "{map}.heads" ("[1, 3]") when --head chose some, else 0
// to n − 1.
std::vector<int> saved_heads(const SafetensorsFile& f, const std::string& map, int64_t n);

// Where a map's tensors hold `head`: its index among the saved heads.
int slot_of(const SafetensorsFile& f, const std::string& map, int head);

// The maps a --save file holds, for --layer and --head lists (-1: the last of them).
MapList saved_maps(const SafetensorsFile& f);

// A map's query (or key: ".key_labels") labels as --save wrote them.
std::vector<std::string> labels(const SafetensorsFile& f, const std::string& map,
                                const char* axis = ".query_labels");

// Head `slot` of a saved [heads, n_query, n_key] map, converted to float: one head in memory, not
// the whole tensor.
std::vector<float> head_map(const SafetensorsFile& f, const std::string& tensor, int64_t slot);

// A's labels, "a→b" where B's differ (a figure's axes show both inputs).
std::vector<std::string> both_labels(const SafetensorsFile& fa, const SafetensorsFile& fb,
                                     const std::string& map, const char* axis, int64_t n);

// "the inputs differ at 1 of 24 positions (first: 5 'cat' → 'dog')", or "" when they agree.
std::string label_note(const std::vector<std::string>& a, const std::vector<std::string>& b,
                       const std::string& map);

}  // namespace attnviz::detail
