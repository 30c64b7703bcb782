// One cell's text escaped for the table formats that read it as markup: Markdown (GitHub's inline
// HTML and syntax) and CSV (RFC 4180 quoting, spreadsheet formulas neutralised).
#include <charconv>
#include <string>
#include <string_view>

#include "attnviz/core/unicode.hpp"
#include "attnviz/render/table.hpp"

namespace attnviz {

// GitHub renders a cell as Markdown with inline HTML: "<s>" would open a strikethrough and "<bos>"
// vanish as an unknown tag, "__init__" turn bold. So &, <, > become entities and the characters of
// Markdown's inline syntax are backslash-escaped; "|" would end the cell.
std::string markdown_field(std::string_view field) {
  std::string out;
  for (char c : printable_text(field)) {
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
      case '|':
      case '\\':
      case '*':
      case '_':
      case '`':
      case '[':
      case ']':
      case '~':
        out += '\\';
        out += c;
        break;
      default:
        out += c;
    }
  }
  return out;
}

namespace {

// A whole number as CSV writes one ("-0.125", "+0.5", "3", "nan", "-inf"): what a spreadsheet reads
// as a number, never as a formula.
bool is_number(std::string_view field) {
  if (field.size() > 1 && field.front() == '+' && field[1] != '-')
    field.remove_prefix(1);  // from_chars takes no '+'
  double v = 0;
  const char* end = field.data() + field.size();
  const auto [ptr, ec] = std::from_chars(field.data(), end, v);
  return !field.empty() && ec == std::errc() && ptr == end;
}

}  // namespace

// RFC 4180: a field with a comma, a quote or a line break is quoted, its quotes doubled. A text
// cell that a spreadsheet would run as a formula (starting with =, +, -, @, tab or CR) gets a
// leading single quote first, as OWASP's CSV injection advice says; a number ("-0.5") stays a
// number.
std::string csv_field(std::string_view text) {
  std::string neutralised;
  if (!text.empty() && std::string_view("=+-@\t\r").find(text.front()) != std::string_view::npos &&
      !is_number(text)) {
    neutralised = "'" + std::string(text);
    text = neutralised;
  }
  const std::string_view field = text;
  if (field.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(field);
  std::string out = "\"";
  for (char c : field) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + '"';
}

}  // namespace attnviz
