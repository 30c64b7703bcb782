// The --html page around its data: the facts as one JSON block, the markup, style and script.
#include "html_page.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "attnviz/analysis/stats_metrics.hpp"
#include "attnviz/core/base64.hpp"
#include "attnviz/io/json_write.hpp"
#include "html_blob.hpp"

namespace attnviz::detail {
namespace {

using Json = nlohmann::ordered_json;

std::string hex(const Rgb& c) {
  return fmt::format("#{:02x}{:02x}{:02x}", c.r, c.g, c.b);
}

// A JSON number, or "nan" / "inf" / "-inf" (JSON has neither), as --format json writes them: the
// stats table shows a NaN as NaN, not as the "–" of a value that does not apply.
Json number(double v) {
  return std::isfinite(v) ? Json(v) : Json(non_finite_text(v));
}

Json map_json(const MapRecord& m, size_t index) {
  Json j;
  j["stack"] = m.id.stack;
  j["site"] = site_name(m.id.site);
  j["layer"] = m.id.layer;
  j["head"] = m.id.head;
  j["kvHead"] = m.id.kv_head;
  j["title"] = m.id.title();
  j["kind"] = m.kind;
  j["nHeads"] = m.n_heads;
  j["nQuery"] = m.n_query;
  j["nKey"] = m.n_key;
  j["dK"] = m.d_k;
  j["scale"] = m.scale;
  j["additive"] = m.additive;
  j["softcap"] = m.softcap;
  j["sinkLogit"] = m.sink_logit ? Json(*m.sink_logit) : Json();
  j["pool"] = m.pool;
  j["cellsQ"] = m.cells_q;
  j["cellsK"] = m.cells_k;
  j["topK"] = m.top_k;
  j["qLabels"] = m.query_labels;
  j["kLabels"] = m.key_labels;
  j["mask"] = m.mask;
  j["maskText"] = m.mask_text;
  j["vmax"] = m.vmax;
  j["log"] = m.log;
  j["thumbQ"] = m.thumb_q;
  j["thumbK"] = m.thumb_k;
  Json blobs = Json::object();
  for (const auto& [name, data] : m.blobs) blobs[name] = fmt::format("b{}-{}", index, name);
  j["blobs"] = std::move(blobs);
  return j;
}

Json stats_json(const PageInput& page) {
  Json columns = Json::array();
  for (const StatsMetric& metric : all_stats_metrics()) {
    columns.push_back(
        {{"name", metric.name}, {"description", metric.description}, {"unit", metric.unit_range}});
  }
  Json rows = Json::array();
  for (const HeadStats& h : *page.stats) {
    int index = -1;
    for (size_t i = 0; i < page.maps->size(); ++i) {
      const HeadId& id = (*page.maps)[i].id;
      if (id.stack == h.id.stack && id.layer == h.id.layer && id.site == h.id.site &&
          id.head == h.id.head) {
        index = static_cast<int>(i);
      }
    }
    if (index < 0) continue;
    Json values = Json::array();
    for (const StatsMetric& metric : all_stats_metrics()) values.push_back(number(metric.value(h)));
    rows.push_back({{"map", index}, {"role", role_name(h.role())}, {"values", std::move(values)}});
  }
  return {
      {"saturation", page.saturation}, {"columns", std::move(columns)}, {"rows", std::move(rows)}};
}

// JSON inside <script>: a '<' in a string (a token "</script>") is written as \u003c.
std::string script_safe(const std::string& json) {
  std::string out;
  out.reserve(json.size());
  for (const char c : json) {
    if (c == '<') {
      out += "\\u003c";
    } else {
      out += c;
    }
  }
  return out;
}

// "3f0a…" → the bytes it spells (the CSP source is the base64 of the digest's bytes).
std::string hex_bytes(std::string_view hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out += static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16));
  }
  return out;
}

std::string html_escape(const std::string& text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

void add_blob(const std::function<void(std::string_view)>& out, const std::string& id,
              const std::string& base64) {
  out("<script type=\"application/octet-stream\" id=\"" + id + "\">");
  out(base64);
  out("</script>\n");
}

}  // namespace

void render_page(const PageInput& page, const std::function<void(std::string_view)>& out) {
  Json meta;
  meta["generator"] = "attnviz";
  meta["model"] = page.model_name;
  meta["input"] = page.input_note;
  Json cmap = Json::array();
  for (const Rgb& c : colormap_colors(page.cmap)) cmap.push_back(hex(c));
  meta["cmap"] = std::move(cmap);
  meta["nonFinite"] = hex(k_non_finite_rgb);
  meta["logFloor"] = 1e-4;
  Json labels = Json::array();
  for (const auto& l : *page.labels) labels.push_back(*l);
  meta["labels"] = std::move(labels);
  Json masks = Json::array();
  for (size_t i = 0; i < page.mask_names->size(); ++i) {
    masks.push_back({{"blob", fmt::format("m{}", i)}, {"text", (*page.mask_names)[i]}});
  }
  meta["masks"] = std::move(masks);
  Json maps = Json::array();
  for (size_t i = 0; i < page.maps->size(); ++i) maps.push_back(map_json((*page.maps)[i], i));
  meta["maps"] = std::move(maps);
  meta["stats"] = stats_json(page);
  if (const auto& p = page.picture) {
    meta["image"] = {{"width", p->width}, {"height", p->height}, {"first", p->first},
                     {"rows", p->rows},   {"cols", p->cols},     {"patch", p->patch},
                     {"blob", "img"}};
  }

  std::string head;
  head +=
      "<!DOCTYPE html>\n<html lang=\"en\" data-state=\"loading\">\n<head>\n<meta "
      "charset=\"utf-8\">\n";
  // Nothing may be fetched: the policy itself forbids every URL, so the page works offline by
  // design. Only the viewer's own script runs, named by its hash: a label that escaped its escaping
  // into a <script> or an onerror= attribute would still not run.
  head += fmt::format(
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
      "script-src 'sha256-{}'; style-src 'unsafe-inline'\">\n",
      base64_encode(hex_bytes(k_viewer_js_sha256)));
  head += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  head += "<title>attnviz · " + html_escape(page.model_name) + "</title>\n<style>\n";
  head += k_viewer_css;
  head += "</style>\n</head>\n<body>\n";
  head += k_viewer_body;
  head += "<script type=\"application/json\" id=\"attnviz-meta\">";
  head += script_safe(meta.dump(-1, ' ', false, Json::error_handler_t::replace));
  head += "</script>\n";
  out(head);
  for (size_t i = 0; i < page.maps->size(); ++i) {
    const MapRecord& m = (*page.maps)[i];
    add_blob(out, fmt::format("t{}", i), m.thumb);
    for (const auto& [name, data] : m.blobs) add_blob(out, fmt::format("b{}-{}", i, name), data);
  }
  for (size_t i = 0; i < page.mask_blobs->size(); ++i)
    add_blob(out, fmt::format("m{}", i), (*page.mask_blobs)[i]);
  if (page.picture) add_blob(out, "img", page.picture->blob);
  out("<script>");  // exactly the hashed text between the tags
  out(k_viewer_js);
  out("</script>\n</body>\n</html>\n");
}

}  // namespace attnviz::detail
