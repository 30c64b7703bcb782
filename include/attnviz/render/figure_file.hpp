// A figure (the Canvas it was drawn on) as a file: PNG from its pixels, or SVG / PDF from its
// recorded drawing through cairo — rectangles, lines and glyph outlines as vectors, a map's cells
// as one embedded image at a pixel per cell (nearest-neighbour, so cells stay sharp at any zoom),
// PDF text searchable (each glyph mapped back to its character).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "attnviz/render/canvas.hpp"
#include "attnviz/render/figure.hpp"

namespace attnviz {

enum class FigureFormat { png, svg, pdf };

// "png" | "svg" | "pdf"; throws usage Error naming the choices otherwise.
FigureFormat parse_figure_format(std::string_view name);
// The file extension, with its dot (".png").
std::string_view figure_extension(FigureFormat format);

struct FigureFile {
  FigureFormat format = FigureFormat::png;
  // A PNG's pixels per inch, as matplotlib's savefig: the canvas draws dpi / 100 pixels per unit
  // (figure_scale) and the PNG states it in its pHYs chunk. A vector page is the canvas's units /
  // 100 inches whatever the dpi.
  double dpi = 100.0;
  float text_scale = 1.0f;                 // CanvasScale::text (--font-size)
  double width_in = 0.0, height_in = 0.0;  // --size in inches (0: each figure its natural size)
};

// The CanvasScale figures are drawn at for this file.
CanvasScale figure_scale(const FigureFile& file);
// style drawn for this file: its scale, and the size per-head, mask and panel figures fit.
void apply_figure_file(FigureStyle& style, const FigureFile& file);
// "3.3x2.5in", "8x6cm", "3.3x2.5" (inches): width and height in inches; usage Error naming the flag
// otherwise, or for a side outside (0, 100] in.
std::pair<double, double> parse_figure_size(const std::string& text);

// The file's bytes. Throws Error when cairo fails (naming its status).
std::string encode_figure(const Canvas& figure, const FigureFile& file);
// encode_figure + write_file_atomically.
void write_figure(const std::filesystem::path& path, const Canvas& figure, const FigureFile& file);
// dir / (stem + the format's extension): "layer0.self.head3" → "layer0.self.head3.svg".
std::filesystem::path figure_path(const std::filesystem::path& dir, const std::string& stem,
                                  FigureFormat format);

}  // namespace attnviz
