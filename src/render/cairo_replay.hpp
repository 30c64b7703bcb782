// Replaying a canvas's drawing on a cairo surface, for the SVG and PDF figures.
#pragma once

#include <cairo.h>

#include "attnviz/render/canvas.hpp"
#include "attnviz/render/figure_file.hpp"

namespace attnviz::detail {

// Draws every op of `figure`'s drawing on cr, in order; an SVG's images are upscaled so viewers
// keep their cells sharp.
void replay(cairo_t* cr, const Canvas& figure, FigureFormat format);

}  // namespace attnviz::detail
