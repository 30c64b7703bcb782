// .npy header: the preamble (magic, version, header length) and the Python dict literal after it,
// each malformed case failing with its own message.
#include "npy_header.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstring>
#include <limits>
#include <map>
#include <variant>
#include <vector>

#include "attnviz/core/error.hpp"

namespace attnviz::detail {
namespace {

// The values a .npy header dict holds: str, bool, or a tuple of ints.
using PyValue = std::variant<std::string, bool, std::vector<int64_t>>;

// Reads the Python literal numpy writes, e.g. {'descr': '<f4', 'fortran_order': False,
// 'shape': (2, 3), }. Only what a header can hold is accepted; errors give the header offset.
class DictReader {
 public:
  DictReader(std::string_view text, const std::string& file) : text_(text), file_(file) {}

  std::map<std::string, PyValue> read_dict() {
    skip_space();
    expect('{');
    std::map<std::string, PyValue> dict;
    while (skip_space(), !peek('}')) {
      const std::string key = read_string();
      skip_space();
      expect(':');
      skip_space();
      PyValue value = read_value(key);
      if (!dict.emplace(key, std::move(value)).second) fail(fmt::format("duplicate key '{}'", key));
      skip_space();
      if (!consume(',')) break;
    }
    expect('}');
    skip_space();
    if (pos_ != text_.size()) fail("unexpected text after the dict");
    return dict;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw Error(fmt::format("{}: npy header: {} at header offset {}", file_, what, pos_));
  }
  bool peek(char c) const { return pos_ < text_.size() && text_[pos_] == c; }
  bool consume(char c) {
    if (!peek(c)) return false;
    ++pos_;
    return true;
  }
  void expect(char c) {
    if (!consume(c)) fail(fmt::format("expected '{}'", c));
  }
  void skip_space() {
    while (pos_ < text_.size() && std::strchr(" \t\r\n", text_[pos_]) != nullptr) ++pos_;
  }
  bool consume_word(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  std::string read_string() {
    const char quote = pos_ < text_.size() ? text_[pos_] : '\0';
    if (quote != '\'' && quote != '"') fail("expected a quoted string");
    const size_t close = text_.find(quote, pos_ + 1);
    if (close == std::string_view::npos) fail("unterminated string");
    const std::string_view body = text_.substr(pos_ + 1, close - pos_ - 1);
    // numpy never writes escapes in these strings; refusing them keeps the reader exact.
    if (body.find('\\') != std::string_view::npos) fail("escape sequences are not supported");
    pos_ = close + 1;
    return std::string(body);
  }

  PyValue read_value(const std::string& key) {
    if (peek('\'') || peek('"')) return read_string();
    if (consume_word("True")) return true;
    if (consume_word("False")) return false;
    if (peek('(')) return read_tuple();
    fail(fmt::format("value of '{}' is not a string, True, False or a tuple of ints", key));
  }

  std::vector<int64_t> read_tuple() {
    expect('(');
    std::vector<int64_t> items;
    bool trailing_comma = false;
    while (skip_space(), !peek(')')) {
      items.push_back(read_int());
      skip_space();
      trailing_comma = consume(',');
      if (!trailing_comma) break;
    }
    expect(')');
    // In Python "(3)" is the int 3; only "(3,)" is a 1-tuple.
    if (items.size() == 1 && !trailing_comma) fail("a parenthesised int is not a tuple");
    return items;
  }

  int64_t read_int() {
    const bool negative = consume('-');
    if (pos_ >= text_.size() || text_[pos_] < '0' || text_[pos_] > '9') fail("expected an int");
    uint64_t v = 0;
    while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
      const auto digit = static_cast<uint64_t>(text_[pos_] - '0');
      if (v > (static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) - digit) / 10) {
        fail("int too large");
      }
      v = v * 10 + digit;
      ++pos_;
    }
    consume('L');  // Python 2 longs, as old numpy wrote them: (3L, 4L)
    return negative ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
  }

  std::string_view text_;
  const std::string& file_;
  size_t pos_ = 0;
};

// Python's repr of a shape tuple, for messages: (5,), (2, 3), ().
std::string tuple_repr(const std::vector<int64_t>& t) {
  if (t.size() == 1) return fmt::format("({},)", t[0]);
  return fmt::format("({})", fmt::join(t, ", "));
}

// Returns the header text; sets data_start to the first byte after it.
std::string_view read_preamble(std::string_view bytes, const std::string& file,
                               uint64_t& data_start) {
  if (bytes.substr(0, k_npy_magic.size()) != k_npy_magic) {
    throw Error(
        fmt::format("{}: not a .npy file: it does not start with the magic \\x93NUMPY", file));
  }
  if (bytes.size() < k_npy_magic.size() + 2) {
    throw Error(fmt::format("{}: file ends before the npy version bytes", file));
  }
  const auto major = static_cast<unsigned char>(bytes[6]);
  const auto minor = static_cast<unsigned char>(bytes[7]);
  if (major < 1 || major > 3 || minor != 0) {
    throw Error(fmt::format("{}: unsupported npy version {}.{} (expected 1.0, 2.0 or 3.0)", file,
                            major, minor));
  }
  // Version 1.0 has a u16 header length; 2.0 and 3.0 a u32. Both little-endian.
  const size_t len_bytes = major == 1 ? 2 : 4;
  const size_t start = 8 + len_bytes;
  if (bytes.size() < start) {
    throw Error(fmt::format("{}: file ends inside the npy header length field", file));
  }
  uint32_t header_len = 0;
  std::memcpy(&header_len, bytes.data() + 8, len_bytes);  // little-endian host
  if (header_len > bytes.size() - start) {
    throw Error(
        fmt::format("{}: npy header length {} runs past the end of the file: {} + {} > {} "
                    "bytes",
                    file, header_len, start, header_len, bytes.size()));
  }
  data_start = start + header_len;
  return bytes.substr(start, header_len);
}

template <typename T>
const T& require(const std::map<std::string, PyValue>& dict, const std::string& key,
                 const char* expected, const std::string& file) {
  const auto it = dict.find(key);
  if (it == dict.end()) throw Error(fmt::format("{}: npy header has no '{}' key", file, key));
  const T* value = std::get_if<T>(&it->second);
  if (!value) throw Error(fmt::format("{}: npy header '{}' must be {}", file, key, expected));
  return *value;
}

// numpy's array-protocol type strings for the dtypes attnviz reads: byte order, kind, item size.
void set_descr(NpyHeader& h, const std::string& descr, const std::string& file) {
  const auto unsupported = [&] {
    return Error(
        fmt::format("{}: unsupported npy descr '{}' (expected a bool, integer or float "
                    "dtype such as '<f4', '<f8', '|b1', '<i8' or '|u1')",
                    file, descr));
  };
  // '=' is native order, which is little-endian on every host attnviz builds for; '|' means
  // byte order does not apply (one-byte items).
  if (descr.size() != 3 || std::string_view("<>=|").find(descr[0]) == std::string_view::npos) {
    throw unsupported();
  }
  const char kind = descr[1];
  const int size = descr[2] - '0';
  const bool ok =
      (kind == 'b' && size == 1) ||
      ((kind == 'i' || kind == 'u') && (size == 1 || size == 2 || size == 4 || size == 8)) ||
      (kind == 'f' && (size == 4 || size == 8));
  if (!ok || (descr[0] == '|' && size != 1)) throw unsupported();
  h.descr = descr;
  h.kind = kind;
  h.big_endian = descr[0] == '>';
  h.item_size = static_cast<uint64_t>(size);
}

void set_shape(NpyHeader& h, const std::vector<int64_t>& shape, const std::string& file) {
  uint64_t n_items = 1, n_bytes = 0;
  bool overflow = false;
  for (const int64_t d : shape) {
    if (d < 0) {
      throw Error(
          fmt::format("{}: npy shape {} has a negative dimension", file, tuple_repr(shape)));
    }
    overflow |= __builtin_mul_overflow(n_items, static_cast<uint64_t>(d), &n_items);
  }
  overflow |= __builtin_mul_overflow(n_items, h.item_size, &n_bytes);
  if (overflow) {
    throw Error(fmt::format("{}: npy shape {} of '{}' overflows 64 bits", file, tuple_repr(shape),
                            h.descr));
  }
  h.shape = shape;
  h.n_items = n_items;
}

}  // namespace

NpyHeader parse_npy_header(std::string_view bytes, const std::string& file) {
  NpyHeader h;
  const std::string_view text = read_preamble(bytes, file, h.data_start);
  const std::map<std::string, PyValue> dict = DictReader(text, file).read_dict();
  for (const auto& [key, value] : dict) {
    if (key != "descr" && key != "fortran_order" && key != "shape") {
      throw Error(
          fmt::format("{}: npy header has unexpected key '{}' (expected 'descr', "
                      "'fortran_order' and 'shape')",
                      file, key));
    }
  }
  set_descr(h, require<std::string>(dict, "descr", "a string", file), file);
  h.fortran_order = require<bool>(dict, "fortran_order", "True or False", file);
  set_shape(h, require<std::vector<int64_t>>(dict, "shape", "a tuple of ints", file), file);
  return h;
}

}  // namespace attnviz::detail
