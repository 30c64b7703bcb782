// --batch files: JSON lines read one at a time, each line one input.
#include "attnviz/batch/batch_file.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <charconv>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "attnviz/core/random.hpp"
#include "attnviz/inputs/tokenizer.hpp"

namespace attnviz {

int64_t for_each_batch_line(
    const std::string& file,
    const std::function<void(int64_t index, int64_t line, const std::string& text)>& f) {
  std::error_code ec;
  if (std::filesystem::exists(file, ec) && !std::filesystem::is_regular_file(file, ec)) {
    throw usage_error(
        fmt::format("{}: not a regular file; a --batch file is read more than once (so no pipe, no "
                    "folder)",
                    file));
  }
  std::ifstream in(file);
  if (!in) throw Error(fmt::format("{}: cannot open the --batch file", file));
  std::string text;
  int64_t line = 0, index = 0;
  while (std::getline(in, text)) {
    ++line;
    if (text.size() > k_max_text_bytes) {
      throw Error(fmt::format("{} line {}: {} bytes; a --batch line holds at most {} MiB", file,
                              line, text.size(), k_max_text_bytes >> 20));
    }
    if (text.find_first_not_of(" \t\r") == std::string::npos) continue;
    f(index++, line, text);
  }
  return index;
}

Error batch_line_error(const std::string& file, int64_t line, const Error& e) {
  return Error(fmt::format("{} line {}: {}", file, line, e.what()),
               e.exit_code() == k_exit_usage ? k_exit_runtime : e.exit_code());
}

BatchLine batch_line(const nlohmann::json& j) {
  if (!j.is_object()) throw usage_error("not a JSON object");
  for (const auto& [key, value] : j.items()) {
    if (key != "text" && key != "ids" && key != "id" && key != "image" && key != "pixels") {
      throw usage_error(
          fmt::format("unknown field \"{}\" (known: text, ids, image, pixels, id)", key));
    }
  }
  const bool text = j.contains("text"), ids = j.contains("ids");
  const int given = int(text) + int(ids) + int(j.contains("image")) + int(j.contains("pixels"));
  if (given != 1) throw usage_error("give one of \"text\", \"ids\", \"image\" or \"pixels\"");
  BatchLine line;
  for (const char* key : {"image", "pixels"}) {
    if (!j.contains(key)) continue;
    if (!j[key].is_string() || j[key].get<std::string>().empty())
      throw usage_error(fmt::format("\"{}\" must be a file's path", key));
    (std::string(key) == "image" ? line.image : line.pixels) = j[key].get<std::string>();
    return line;
  }
  if (text) {
    if (!j["text"].is_string() || j["text"].get<std::string>().empty())
      throw usage_error("\"text\" must be a non-empty string");
    line.text = j["text"].get<std::string>();
  } else {
    if (!j["ids"].is_array() || j["ids"].empty())
      throw usage_error("\"ids\" must be a non-empty array of ids");
    for (const auto& id : j["ids"]) {
      if (!id.is_number_unsigned()) throw usage_error("\"ids\" must hold whole numbers ≥ 0");
      line.ids.push_back(id.get<uint64_t>());
    }
  }
  return line;
}

BatchScan scan_batch(const std::string& file) {
  BatchScan scan;
  scan.hash = k_fnv1a_64_basis;
  scan.inputs = for_each_batch_line(file, [&](int64_t, int64_t line, const std::string& s) {
    scan.hash = fnv1a_64(s + '\n', scan.hash);
    try {
      const auto j = nlohmann::json::parse(s);
      if (j.is_object() && j.contains("text")) scan.any_text = true;
    } catch (const nlohmann::json::exception& e) {
      throw Error(fmt::format("{} line {}: not JSON: {}", file, line, e.what()));
    }
  });
  if (scan.inputs == 0)
    throw usage_error(fmt::format("{}: no input (one JSON object per line)", file));
  return scan;
}

void BatchNotes::add(int64_t line, const std::vector<std::string>& notes) {
  if (notes.empty()) return;
  if (count++ == 0) first = fmt::format("line {}: {}", line, notes.front());
}

void BatchNotes::report(std::ostream& out, const char* kind, int64_t inputs) const {
  if (count == 0) return;
  out << fmt::format("attnviz: {}: {} of {} inputs have {}s; the first, {}\n", kind, count, inputs,
                     kind, first);
}

std::pair<int, int> parse_shard(const std::string& text) {
  if (text.empty()) return {0, 1};
  const auto slash = text.find('/');
  int k = -1, n = 0;
  const auto whole = [](const std::string& s, int& out) {
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return !s.empty() && ec == std::errc() && end == s.data() + s.size();
  };
  if (slash == std::string::npos || !whole(text.substr(0, slash), k) ||
      !whole(text.substr(slash + 1), n) || n < 1 || k < 0 || k >= n) {
    throw usage_error(fmt::format("--shard '{}': K/N with 0 ≤ K < N (e.g. 0/4 … 3/4)", text));
  }
  return {k, n};
}

int64_t shard_size(int64_t total, int shard, int shards) {
  return total / shards + (shard < total % shards ? 1 : 0);
}

BatchProgress::BatchProgress(std::string what, int64_t total)
    : what_(std::move(what)),
      total_(total),
      on_(isatty(STDERR_FILENO) != 0),
      start_(std::chrono::steady_clock::now()) {}

BatchProgress::~BatchProgress() {
  if (on_) std::cerr << "\r\x1b[K" << std::flush;
}

void BatchProgress::step(int64_t done) {
  if (!on_) return;
  const auto now = std::chrono::steady_clock::now();
  if (done < total_ && now - last_ < std::chrono::milliseconds(200)) return;
  last_ = now;
  const double spent = std::chrono::duration<double>(now - start_).count();
  const double left =
      done > 0 ? spent / static_cast<double>(done) * static_cast<double>(total_ - done) : 0.0;
  std::cerr << fmt::format("\r\x1b[K{}: input {} of {} · {:.0f} s, about {:.0f} s left", what_,
                           done, total_, spent, left)
            << std::flush;
}

}  // namespace attnviz
