// SentencePiece .model files through libsentencepiece, with the special tokens of
// tokenizer_config.json beside them.
#include "attnviz/inputs/tokenizers/sentencepiece/sentencepiece_tokenizer.hpp"

#include <fmt/format.h>
#include <sentencepiece_processor.h>

#include <optional>
#include <string>
#include <vector>

#include "attnviz/core/error.hpp"
#include "attnviz/core/plural.hpp"
#include "attnviz/core/unicode.hpp"
#include "attnviz/inputs/tokenizers/pipeline/spec_fields.hpp"
#include "attnviz/io/json.hpp"
#include "spm_files.hpp"

namespace attnviz {

namespace fs = std::filesystem;

namespace {

// --- The model type, read from the serialized ModelProto (libsentencepiece does not expose it).
// sentencepiece_model.proto: ModelProto.trainer_spec = 2; TrainerSpec.model_type = 3
// (UNIGRAM = 1, the default; BPE = 2; WORD = 3; CHAR = 4).

std::optional<uint64_t> read_varint(std::string_view bytes, size_t& at) {
  uint64_t value = 0;
  for (int shift = 0; shift < 64 && at < bytes.size(); shift += 7) {
    const auto b = static_cast<unsigned char>(bytes[at++]);
    value |= uint64_t{b & 0x7Fu} << shift;
    if (!(b & 0x80)) return value;
  }
  return std::nullopt;
}

// The last value of field `field` in a message: a varint, or the bytes of a length-delimited
// field. nullopt when absent or when the message does not walk (groups, truncation).
struct FieldValue {
  uint64_t varint = 0;
  std::string_view bytes;
};
std::optional<FieldValue> find_field(std::string_view message, uint64_t field) {
  std::optional<FieldValue> found;
  for (size_t at = 0; at < message.size();) {
    const auto key = read_varint(message, at);
    if (!key) return std::nullopt;
    FieldValue value;
    switch (*key & 7) {
      case 0: {  // varint
        const auto v = read_varint(message, at);
        if (!v) return std::nullopt;
        value.varint = *v;
        break;
      }
      case 1:
        at += 8;
        break;  // fixed64
      case 5:
        at += 4;
        break;   // fixed32
      case 2: {  // length-delimited
        const auto length = read_varint(message, at);
        if (!length || *length > message.size() - at) return std::nullopt;
        value.bytes = message.substr(at, *length);
        at += *length;
        break;
      }
      default:
        return std::nullopt;
    }
    if (at > message.size()) return std::nullopt;
    if ((*key >> 3) == field) found = value;
  }
  return found;
}

std::string model_type_name(std::string_view model_proto) {
  const auto trainer_spec = find_field(model_proto, 2);
  const auto type = trainer_spec ? find_field(trainer_spec->bytes, 3) : std::nullopt;
  switch (type ? type->varint : 1) {
    case 1:
      return "unigram";
    case 2:
      return "BPE";
    case 3:
      return "word";
    case 4:
      return "char";
    default:
      return fmt::format("model type {}", type->varint);
  }
}

// --- Special tokens from tokenizer_config.json.

struct Specials {
  std::vector<int64_t> prefix;  // BOS
  std::vector<int64_t> suffix;  // EOS
  std::optional<int64_t> bos;   // the BOS token, added or not (T5Tokenizer has none)
  std::string refusal;          // non-empty: add_special is refused with this message
  // The texts transformers' tokenizer would match in the text as special tokens (control and
  // unknown pieces, tokenizer_config.json's special and added tokens): libsentencepiece reads them
  // as plain text, so a text holding one is refused rather than given other ids.
  std::vector<std::string> in_text;
};

bool is_class(const std::string& name, std::string_view base) {
  return name == base || name == fmt::format("{}Fast", base);
}

// "bos_token": "<s>" or {"content": "<s>", …} → its id in the model; nullopt when not set.
std::optional<int64_t> token_field(const nlohmann::json& config, std::string_view field,
                                   const SpecPlace& place,
                                   const sentencepiece::SentencePieceProcessor& sp) {
  const auto it = config.find(std::string(field));
  if (it == config.end() || it->is_null()) return std::nullopt;
  std::string content;
  if (it->is_string()) {
    content = it->get<std::string>();
  } else if (it->is_object()) {
    content = spec_string(*it, "content", place.at(field));
  } else {
    place.at(field).fail(
        fmt::format("expected a string or an object with \"content\", got {}", it->type_name()));
  }
  const int id = sp.PieceToId(content);
  if (id == sp.unk_id() && content != sp.IdToPiece(sp.unk_id())) {
    place.at(field).fail(
        fmt::format("'{}' is not a piece of the SentencePiece model", printable_text(content)));
  }
  return id;
}

// The id a special token gets: tokenizer_config.json's, else the model's (−1: the model has none).
void add_special(std::vector<int64_t>& to, std::optional<int64_t> configured, int model_id,
                 std::string_view name, const std::string& model_file, Specials& specials) {
  if (configured) {
    to.push_back(*configured);
  } else if (model_id >= 0) {
    to.push_back(model_id);
  } else {
    specials.refusal = fmt::format("{}: the model has no {} token to add", model_file, name);
  }
}

Specials read_specials(const fs::path& model_file,
                       const sentencepiece::SentencePieceProcessor& sp) {
  const fs::path config_file = model_file.parent_path() / "tokenizer_config.json";
  std::error_code ec;
  nlohmann::json config = nlohmann::json::object();
  if (fs::exists(config_file, ec)) config = read_json_file(config_file);
  const SpecContext ctx{config_file.string()};
  const SpecPlace place{ctx, ""};
  if (!config.is_object())
    throw Error(fmt::format("{}: expected a JSON object, got {}", ctx.file, config.type_name()));

  // Options of transformers' tokenizers that change the pieces of plain text: without the prefix
  // space the first word loses its "▁"; sp_model_kwargs turn on sampling or change the model.
  spec_require_value(config, "add_prefix_space", true, place);
  spec_require_value(config, "sp_model_kwargs", nlohmann::json::object(), place);
  Specials specials;
  for (int id = 0; id < sp.GetPieceSize(); ++id) {
    if (sp.IsControl(id) || sp.IsUnknown(id)) specials.in_text.push_back(sp.IdToPiece(id));
  }
  // Special and added tokens as tokenizer_config.json, special_tokens_map.json and
  // added_tokens.json name them (transformers reads all three).
  const auto add_content = [&](const nlohmann::json& token) {
    if (token.is_string()) specials.in_text.push_back(token.get<std::string>());
    if (token.is_object() && token.contains("content") && token.at("content").is_string()) {
      specials.in_text.push_back(token.at("content").get<std::string>());
    }
  };
  const auto add_specials_of = [&](const nlohmann::json& object) {
    if (!object.is_object()) return;
    for (const char* field : {"bos_token", "eos_token", "unk_token", "pad_token", "sep_token",
                              "cls_token", "mask_token"}) {
      if (const auto it = object.find(field); it != object.end()) add_content(*it);
    }
    if (const auto it = object.find("additional_special_tokens");
        it != object.end() && it->is_array()) {
      for (const auto& token : *it) add_content(token);
    }
    if (const auto it = object.find("added_tokens_decoder");
        it != object.end() && it->is_object()) {
      for (const auto& [id, token] : it->items()) add_content(token);
    }
  };
  add_specials_of(config);
  const fs::path dir = model_file.parent_path();
  if (fs::exists(dir / "special_tokens_map.json", ec))
    add_specials_of(read_json_file(dir / "special_tokens_map.json"));
  if (fs::exists(dir / "added_tokens.json", ec)) {
    const nlohmann::json added = read_json_file(dir / "added_tokens.json");
    if (added.is_object()) {
      for (const auto& [token, id] : added.items()) specials.in_text.push_back(token);
    }
  }
  std::erase_if(specials.in_text, [](const std::string& t) { return t.empty(); });
  // Which of transformers' classes reads the model decides its special tokens, and for some
  // (XLM-R's id offset, ALBERT's lowercasing) the pieces of plain text too: only the classes whose
  // plain text is libsentencepiece's own ids are read. Without tokenizer_config.json, only a
  // tokenizer.model (Llama's and Mistral's file name) is read, as LlamaTokenizer.
  const auto cls = spec_optional_string(config, "tokenizer_class", place);
  if (!cls && model_file.filename() != "tokenizer.model") {
    throw Error(fmt::format(
        "{}: no tokenizer_config.json beside it says which tokenizer class reads it, and "
        "classes differ (T5 adds </s>, ALBERT lowercases, XLM-R shifts every id): attnviz "
        "reads a .model without one only as tokenizer.model, Llama's",
        model_file.string()));
  }
  const std::string name = cls.value_or("LlamaTokenizer");
  const bool llama = is_class(name, "LlamaTokenizer") || is_class(name, "CodeLlamaTokenizer") ||
                     is_class(name, "GemmaTokenizer");
  if (!llama && !is_class(name, "T5Tokenizer")) {
    place.at("tokenizer_class")
        .fail(fmt::format("'{}' reads a SentencePiece model by its own rules (special tokens, id "
                          "offsets, normalization); attnviz "
                          "knows LlamaTokenizer, CodeLlamaTokenizer, GemmaTokenizer and "
                          "T5Tokenizer (give its tokenizer.json)",
                          printable_text(name)));
  }
  if (is_class(name, "T5Tokenizer")) {
    // T5Tokenizer's sentinel tokens <extra_id_0> … <extra_id_99> are added tokens past the model's
    // pieces.
    const int64_t extra_ids = spec_int(config, "extra_ids", 100, place);
    for (int64_t i = 0; i < extra_ids && i < 10000; ++i)
      specials.in_text.push_back(fmt::format("<extra_id_{}>", i));
  }
  const auto bos = token_field(config, "bos_token", place, sp);
  const auto eos = token_field(config, "eos_token", place, sp);
  if (llama) {
    specials.bos = bos                ? bos
                   : sp.bos_id() >= 0 ? std::optional<int64_t>(sp.bos_id())
                                      : std::nullopt;
    // LlamaTokenizer.build_inputs_with_special_tokens: bos if add_bos_token, eos if add_eos_token.
    if (spec_bool(config, "add_bos_token", true, place)) {
      add_special(specials.prefix, bos, sp.bos_id(), "BOS", model_file.string(), specials);
    }
    if (spec_bool(config, "add_eos_token", false, place)) {
      add_special(specials.suffix, eos, sp.eos_id(), "EOS", model_file.string(), specials);
    }
  } else {
    // T5Tokenizer._add_eos_if_not_present: every sequence ends with </s>, none starts with a BOS.
    add_special(specials.suffix, eos, sp.eos_id(), "EOS", model_file.string(), specials);
  }
  return specials;
}

class SentencePieceTokenizer final : public Tokenizer {
 public:
  explicit SentencePieceTokenizer(const fs::path& model_file) : file_(model_file.string()) {
    type_ = model_type_name(detail::load_sentencepiece(file_, sp_));
    specials_ = read_specials(model_file, sp_);
  }

  std::vector<TokenPiece> encode(std::string_view text, bool add_special) const override {
    if (add_special && !specials_.refusal.empty()) throw Error(specials_.refusal);
    detail::refuse_special_text(text, specials_.in_text, file_, ".model files",
                                "give the folder's tokenizer.json (--tokenizer), or --ids");
    sentencepiece::ImmutableSentencePieceText spt;
    if (const auto status = sp_.Encode(text, spt.mutable_proto()); !status.ok()) {
      throw Error(fmt::format("{}: SentencePiece cannot encode the text: {}", file_,
                              status.error_message()));
    }
    std::vector<TokenPiece> pieces;
    if (add_special) {
      for (const int64_t id : specials_.prefix) pieces.push_back({id, label(id), 0, 0, true});
    }
    // begin/end are the surface's byte offsets in the input, through the normalizer's alignment
    // (a dummy-prefix "▁" covers no input byte: begin == end).
    for (const auto& piece : spt.pieces())
      pieces.push_back({piece.id(), label(piece.id()), piece.begin(), piece.end()});
    if (add_special) {
      for (const int64_t id : specials_.suffix)
        pieces.push_back({id, label(id), text.size(), text.size(), true});
    }
    return pieces;
  }

  std::optional<std::string> token(int64_t id) const override {
    if (id < 0 || id >= vocab_size()) return std::nullopt;
    return sp_.IdToPiece(static_cast<int>(id));
  }

  std::string label(int64_t id) const override {
    if (id < 0 || id >= vocab_size()) return fmt::format("#{}", id);
    const int i = static_cast<int>(id);
    const std::string& piece = sp_.IdToPiece(i);
    if (sp_.IsByte(i) || sp_.IsControl(i) || sp_.IsUnknown(i)) return printable_text(piece);
    return detail::spm_piece_label(piece);
  }

  int64_t vocab_size() const override { return sp_.GetPieceSize(); }
  std::optional<int64_t> bos_id() const override { return specials_.bos; }

  std::string description() const override {
    return fmt::format("SentencePiece {} ({}, {})", type_, fs::path(file_).filename().string(),
                       count_of(vocab_size(), "piece"));
  }

 private:
  std::string file_;
  sentencepiece::SentencePieceProcessor sp_;
  std::string type_;
  Specials specials_;
};

}  // namespace

std::unique_ptr<Tokenizer> make_sentencepiece_tokenizer(const fs::path& model_file) {
  return std::make_unique<SentencePieceTokenizer>(model_file);
}

}  // namespace attnviz
