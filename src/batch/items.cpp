// --items files of heads and stats batches: JSON lines written as inputs finish, read back by
// merge.
#include "attnviz/batch/items.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>

#include "attnviz/batch/batch_file.hpp"
#include "attnviz/core/error.hpp"

namespace attnviz {

namespace {
// "attnviz heads items 1", "attnviz stats items 1"
std::string format_of(const std::string& command) {
  return "attnviz " + command + " items 1";
}

// Scores as JSON numbers, exactly (%.17g round-trips a double); NaN / ±inf as strings.
nlohmann::json score_json(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}
// A whole number in [0, max], or the line is refused (nlohmann's get<int> of 1e300 is undefined).
int64_t whole(const nlohmann::json& j, int64_t max, const char* field) {
  if (!j.is_number_integer() ||
      (j.is_number_unsigned() ? j.get<uint64_t>() > static_cast<uint64_t>(max)
                              : j.get<int64_t>() < 0 || j.get<int64_t>() > max)) {
    throw std::runtime_error(
        fmt::format("\"{}\" is {}, not a whole number from 0 to {}", field, j.dump(), max));
  }
  return j.get<int64_t>();
}

double score_of(const nlohmann::json& j) {
  if (j.is_number()) return j.get<double>();
  if (j == "nan") return std::numeric_limits<double>::quiet_NaN();
  if (j == "inf") return std::numeric_limits<double>::infinity();
  if (j == "-inf") return -std::numeric_limits<double>::infinity();
  throw std::runtime_error("a score is neither a number nor nan/inf");
}
}  // namespace

std::string header_line(const ItemsHeader& h) {
  nlohmann::ordered_json j;
  j["format"] = format_of(h.command);
  j["model"] = h.model;
  j["batch"] = h.batch;
  j["items_total"] = h.items_total;
  j["shard"] = fmt::format("{}/{}", h.shard, h.shards);
  j["patterns"] = h.patterns;
  j["measure"] = h.measure;
  j["exclude_bos"] = h.exclude_bos;
  j["exclude_current"] = h.exclude_current;
  j["settings"] = h.settings;
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + '\n';
}

std::string item_line(int64_t index, const std::string& id_json,
                      const std::vector<HeadScores>& heads) {
  nlohmann::ordered_json j;
  j["item"] = index;
  j["id"] = nlohmann::json::parse(id_json);
  auto& hs = j["heads"] = nlohmann::json::array();
  for (const auto& h : heads) {
    nlohmann::json scores = nlohmann::json::array();
    for (const double s : h.scores) scores.push_back(score_json(s));
    hs.push_back({{"stack", h.id.stack},
                  {"layer", h.id.layer},
                  {"site", site_name(h.id.site)},
                  {"head", h.id.head},
                  {"tokens", h.n},
                  {"left", score_json(h.attention_left)},
                  {"scores", scores}});
  }
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + '\n';
}

ItemsHeader read_header(std::istream& in, const std::string& file) {
  std::string text;
  if (!std::getline(in, text))
    throw Error(fmt::format("{}: empty; an --items file starts with its header line", file));
  try {
    const auto j = nlohmann::json::parse(text);
    ItemsHeader h;
    for (const char* command : {"heads", "stats"}) {
      if (j.at("format") == format_of(command)) h.command = command;
    }
    if (j.at("format") != format_of(h.command)) {
      throw Error(fmt::format("{} line 1: format {}, expected \"{}\" or \"{}\"", file,
                              j.at("format").dump(), format_of("heads"), format_of("stats")));
    }
    h.model = j.at("model").get<std::string>();
    h.batch = j.at("batch").get<std::string>();
    h.items_total = j.at("items_total").get<int64_t>();
    std::tie(h.shard, h.shards) = parse_shard(j.at("shard").get<std::string>());
    h.patterns = j.at("patterns").get<std::vector<std::string>>();
    h.measure = j.at("measure").get<std::string>();
    h.exclude_bos = j.at("exclude_bos").get<bool>();
    h.exclude_current = j.at("exclude_current").get<bool>();
    h.settings = j.at("settings").get<std::string>();
    if (h.items_total < 0 || h.patterns.empty())
      throw std::runtime_error("no patterns, or a negative item count");
    return h;
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    throw Error(fmt::format("{} line 1: not an attnviz --items header: {}", file, e.what()));
  }
}

std::optional<ItemLine> read_item(std::istream& in, const std::string& file, int64_t& line,
                                  size_t n_patterns) {
  std::string text;
  if (!std::getline(in, text)) return std::nullopt;
  ++line;
  try {
    const auto j = nlohmann::json::parse(text);
    ItemLine item;
    item.index = whole(j.at("item"), INT64_MAX, "item");
    for (const auto& h : j.at("heads")) {
      HeadScores s;
      s.id.stack = h.at("stack").get<std::string>();
      s.id.layer = static_cast<int>(whole(h.at("layer"), INT32_MAX, "layer"));
      const std::string site = h.at("site").get<std::string>();
      if (site != "self" && site != "cross") throw std::runtime_error("site " + site);
      s.id.site = site == "self" ? Site::self : Site::cross;
      s.id.head = static_cast<int>(whole(h.at("head"), INT32_MAX, "head"));
      s.n = static_cast<int>(whole(h.at("tokens"), INT32_MAX, "tokens"));
      s.attention_left = score_of(h.at("left"));
      for (const auto& v : h.at("scores")) s.scores.push_back(score_of(v));
      if (s.scores.size() != n_patterns)
        throw std::runtime_error(
            fmt::format("{} scores, {} patterns", s.scores.size(), n_patterns));
      item.heads.push_back(std::move(s));
    }
    return item;
  } catch (const std::exception& e) {
    throw Error(
        fmt::format("{} line {}: not an item line of an --items file: {}", file, line, e.what()));
  }
}

}  // namespace attnviz
