// The normalizer of a tokenizer.json, by "type".
#include <fmt/format.h>

#include "pipeline_parts.hpp"
#include "spec_fields.hpp"

namespace attnviz {

std::unique_ptr<Normalizer> make_normalizer(const nlohmann::json& spec, const SpecPlace& place) {
  const std::string type = spec_type(spec, place);
  // All normalizers: coming (helper B).
  place.at("type").fail(fmt::format("the normalizer '{}' is not one attnviz implements", type));
}

}  // namespace attnviz
