// Which map a block belongs to: stack, layer, site (self or cross) and head.
#pragma once

#include <string>

namespace attnviz {

enum class Site { self, cross };
const char* site_name(Site site);  // "self" / "cross"

// Which map a block belongs to. stack is "" for a single-stack model, else "encoder" / "decoder".
struct HeadId {
  std::string stack;
  int layer = 0;
  Site site = Site::self;
  int head = 0;
  int kv_head =
      -1;  // the key/value head this query head reads when heads share them (GQA/MQA), else -1

  // "layer0.self" or "decoder.layer1.cross": the prefix of the --save tensor names.
  std::string map_name() const;
  // "layer 0 · self · head 3" (with the stack first when there is one, and "· kv 1" under GQA), for
  // titles.
  std::string title() const;
};

}  // namespace attnviz
