// Writing JSON: one spelling of NaN and ±inf for every JSON writer, since JSON has no such numbers
// and nlohmann would print them as null (which attnviz keeps for "no value", such as a masked
// cell).
#pragma once

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

namespace attnviz {

// "nan", "inf", "-inf": strings, so a reader never takes a broken number for a missing one (null)
// or for a number; Python's float() and NumPy read them back.
inline const char* non_finite_text(double v) {
  return std::isnan(v) ? "nan" : v > 0 ? "inf" : "-inf";
}

// Every non-finite float in doc, at any depth, replaced by its non_finite_text.
template <class Json>
void spell_non_finite(Json& doc) {
  if (doc.is_number_float()) {
    const double v = doc.template get<double>();
    if (!std::isfinite(v)) doc = non_finite_text(v);
  } else if (doc.is_structured()) {
    for (auto& child : doc) spell_non_finite(child);
  }
}

// doc as text (indent as nlohmann's dump; -1: one line), non-finite numbers spelled as above and
// invalid UTF-8 (byte-level token labels) written as U+FFFD instead of throwing.
template <class Json>
std::string json_text(Json doc, int indent = -1) {
  spell_non_finite(doc);
  return doc.dump(indent, ' ', false, Json::error_handler_t::replace);
}

}  // namespace attnviz
