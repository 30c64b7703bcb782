// --png: gathers one map, renders it through the colour map and writes it atomically.
#include "attnviz/sinks/png_sink.hpp"

#include <fmt/format.h>

#include "attnviz/core/error.hpp"
#include "attnviz/render/png.hpp"

namespace attnviz {

PngSink::PngSink(std::filesystem::path dir, HeadSelection selection, ColormapId cmap)
    : dir_(std::move(dir)), selection_(selection), cmap_(cmap) {
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  if (ec) throw Error(fmt::format("{}: cannot create directory: {}", dir_.string(), ec.message()));
}

void PngSink::begin_map(const MapInfo& info) {
  current_ = selection_.matches(info.id) ? std::make_unique<GatheredMap>(info) : nullptr;
}

void PngSink::on_block(const AttentionBlock& block) {
  if (current_) current_->add(block);
}

void PngSink::end_map(const MapInfo& info) {
  if (!current_) return;
  const auto path = dir_ / fmt::format("{}.head{}.png", info.id.map_name(), info.id.head);
  write_png(path, heatmap_image(current_->probs, *info.mask, cmap_, 0.0f, 1.0f));
  written_.push_back(path);
  current_.reset();
}

}  // namespace attnviz
