// Figures as files: PNG from the canvas's pixels; SVG and PDF by replaying its drawing on a cairo
// surface (cairo_replay.cpp).
#include "attnviz/render/figure_file.hpp"

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <cairo.h>
#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <regex>
#include <utility>

#include "attnviz/core/error.hpp"
#include "attnviz/io/atomic_file.hpp"
#include "cairo_replay.hpp"

namespace attnviz {
namespace {

// cairo 1.16 writes an SVG <image> without its nearest-neighbour filter (a PDF gets /Interpolate
// false), so viewers would blur a map's cells into each other: each image states it.
void pixelate_svg_images(std::string& svg) {
  static constexpr std::string_view tag = "<image ";
  static constexpr std::string_view rendering =
      "image-rendering=\"optimizeSpeed\" style=\"image-rendering:pixelated\" ";
  for (size_t at = svg.find(tag); at != std::string::npos;
       at = svg.find(tag, at + tag.size() + rendering.size())) {
    svg.insert(at + tag.size(), rendering);
  }
}

cairo_status_t append_bytes(void* closure, const unsigned char* data, unsigned int length) {
  static_cast<std::string*>(closure)->append(reinterpret_cast<const char*>(data), length);
  return CAIRO_STATUS_SUCCESS;
}

// A PDF's /CreationDate, as ISO 8601: SOURCE_DATE_EPOCH's (reproducible-builds.org) when it is set,
// else none, so two runs on the same input write the same bytes (as PNG and --save do); cairo would
// write the current time. A value that is not whole seconds since 1970 is an error, as the spec
// asks.
std::string pdf_create_date() {
  const char* epoch = std::getenv("SOURCE_DATE_EPOCH");
  if (epoch == nullptr) return "";
  const std::string_view text(epoch);
  int64_t seconds = -1;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), seconds);
  std::tm utc{};
  const auto t = static_cast<std::time_t>(seconds);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || seconds < 0 ||
      seconds > 253402300799 || gmtime_r(&t, &utc) == nullptr) {  // up to 9999-12-31T23:59:59Z
    throw Error(
        fmt::format("SOURCE_DATE_EPOCH = '{}': expected whole seconds since 1970-01-01 UTC", text));
  }
  char date[32] = {};
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return date;
}

std::string encode_vector(const Canvas& figure, const FigureFile& file) {
  const double points = 72.0 / k_units_per_inch;  // per canvas unit
  const double w = figure.width() * points, h = figure.height() * points;
  std::string out;
  const std::string create_date = file.format == FigureFormat::pdf ? pdf_create_date() : "";
  cairo_surface_t* surface = nullptr;
  if (file.format == FigureFormat::svg) {
    surface = cairo_svg_surface_create_for_stream(append_bytes, &out, w, h);
    cairo_svg_surface_set_document_unit(surface, CAIRO_SVG_UNIT_PT);
  } else {
    surface = cairo_pdf_surface_create_for_stream(append_bytes, &out, w, h);
    cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_CREATOR, "attnviz");
    cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_CREATE_DATE, create_date.c_str());
  }
  const std::unique_ptr<cairo_surface_t, decltype(&cairo_surface_destroy)> owned(
      surface, cairo_surface_destroy);
  cairo_t* cr = cairo_create(surface);
  const std::unique_ptr<cairo_t, decltype(&cairo_destroy)> owned_cr(cr, cairo_destroy);
  cairo_scale(cr, points, points);
  detail::replay(cr, figure, file.format);
  cairo_show_page(cr);
  const cairo_status_t drawn = cairo_status(cr);
  cairo_surface_finish(surface);
  const cairo_status_t status =
      drawn != CAIRO_STATUS_SUCCESS ? drawn : cairo_surface_status(surface);
  if (status != CAIRO_STATUS_SUCCESS) {
    throw Error(fmt::format("figure: cairo could not write the {}: {}",
                            figure_extension(file.format).substr(1),
                            cairo_status_to_string(status)));
  }
  if (file.format == FigureFormat::svg) pixelate_svg_images(out);
  return out;
}

}  // namespace

FigureFormat parse_figure_format(std::string_view name) {
  if (name == "png") return FigureFormat::png;
  if (name == "svg") return FigureFormat::svg;
  if (name == "pdf") return FigureFormat::pdf;
  throw usage_error(fmt::format("--figure-format {}: expected png, svg or pdf", name));
}

std::string_view figure_extension(FigureFormat format) {
  switch (format) {
    case FigureFormat::png:
      return ".png";
    case FigureFormat::svg:
      return ".svg";
    case FigureFormat::pdf:
      return ".pdf";
  }
  return ".png";
}

CanvasScale figure_scale(const FigureFile& file) {
  if (!(file.dpi > 0.0) || !std::isfinite(file.dpi))
    throw Error(fmt::format("figure: dpi {} must be positive", file.dpi));
  return CanvasScale{static_cast<float>(file.dpi / k_units_per_inch), file.text_scale};
}

void apply_figure_file(FigureStyle& style, const FigureFile& file) {
  style.scale = figure_scale(file);
  style.fit_width = static_cast<int>(std::floor(file.width_in * k_units_per_inch));
  style.fit_height = static_cast<int>(std::floor(file.height_in * k_units_per_inch));
}

std::pair<double, double> parse_figure_size(const std::string& text) {
  static const std::regex size(R"(([0-9]+(?:\.[0-9]*)?)x([0-9]+(?:\.[0-9]*)?)(in|cm)?)");
  std::smatch m;
  if (!std::regex_match(text, m, size)) {
    throw usage_error(
        fmt::format("--size {}: expected WIDTHxHEIGHT in inches or cm (3.3x2.5in, 8x6cm)", text));
  }
  const double per = m[3] == "cm" ? 1.0 / 2.54 : 1.0;
  const double w = std::stod(m[1]) * per, h = std::stod(m[2]) * per;
  if (!(w > 0.0 && h > 0.0 && w <= 100.0 && h <= 100.0)) {
    throw usage_error(fmt::format("--size {}: each side must be above 0 and at most 100 in", text));
  }
  return {w, h};
}

std::string encode_figure(const Canvas& figure, const FigureFile& file) {
  if (file.format == FigureFormat::png) return encode_png(figure.image(), file.dpi);
  return encode_vector(figure, file);
}

void write_figure(const std::filesystem::path& path, const Canvas& figure, const FigureFile& file) {
  write_file_atomically(path, encode_figure(figure, file));
}

std::filesystem::path figure_path(const std::filesystem::path& dir, const std::string& stem,
                                  FigureFormat format) {
  return dir / (stem + std::string(figure_extension(format)));
}

}  // namespace attnviz
