// --png DIR: one viridis PNG per selected head, written as soon as its map is complete.
#pragma once

#include <filesystem>
#include <memory>
#include <vector>

#include "attnviz/render/colormap.hpp"
#include "attnviz/sinks/gather.hpp"

namespace attnviz {

// Files are named "{map}.head{h}.png" (layer0.self.head3.png); each is written atomically.
// Only one map is held at a time.
class PngSink : public AttentionSink {
 public:
  PngSink(std::filesystem::path dir, HeadSelection selection, ColormapId cmap);
  void begin_map(const MapInfo& info) override;
  void on_block(const AttentionBlock& block) override;
  void end_map(const MapInfo& info) override;
  const std::vector<std::filesystem::path>& written() const { return written_; }

 private:
  std::filesystem::path dir_;
  HeadSelection selection_;
  ColormapId cmap_;
  std::unique_ptr<GatheredMap> current_;
  std::vector<std::filesystem::path> written_;
};

}  // namespace attnviz
