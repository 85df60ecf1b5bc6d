// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// A length list from a CSV file (`requests.hpp`, lengths): benchmark tools replay the prompt and
/// output lengths of a data set, and a CSV of them is how such a list travels.
///
/// Format. A header row names the columns, `prompt` and/or `output` (in either order, each at
/// most once, no other column); every other row holds one integer token count per column,
/// separated by commas (spaces around a value allowed, a trailing `\r` dropped). Blank lines and
/// lines starting with `#` are skipped. With both columns the rows are pairs: `apply_length_csv`
/// sets both laws to `list` and `paired`, so a request takes one row's prompt and output together.
///
/// Bounds: at most 2^20 rows (the `list` law's bound), each count in [1,
/// `serving_limits().tokens`], the file at most `limits().table_file_bytes` bytes, opened by the
/// library's rule (`core/files.hpp`: a regular file, read at most to its cap). Every error is a
/// `config_error` naming the source, the row (1-based line) and the column.

#include <charconv>     // std::from_chars
#include <cstddef>      // std::size_t
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <system_error> // std::errc
#include <vector>       // std::vector

#include "strata/core/error.hpp"
#include "strata/core/files.hpp"
#include "strata/core/limits.hpp"
#include "strata/serving/requests.hpp"

namespace strata {
inline namespace v0 {

/// The columns of a length CSV (file comment); a column the file does not have is empty.
struct length_table {
  std::vector<int> prompt, output;
  bool has_prompt = false, has_output = false;
};

namespace detail {
template <class = void>
inline std::string_view trim_csv_field(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

template <class = void>
[[noreturn]] inline void length_csv_fail(const std::string& source, std::size_t line, const std::string& what) {
  throw config_error(source, "[strata.serving] length CSV '" + message_path(source) + "' line " + std::to_string(line) +
                                 ": " + what);
}
}  // namespace detail

/// Parses a length CSV (file comment) from `text`; `source` names it in errors.
template <class = void>
inline length_table parse_length_csv(std::string_view text, const std::string& source = "lengths.csv") {
  constexpr std::size_t max_rows = std::size_t{1} << 20;
  const int hi = serving_limits().tokens;
  length_table t;
  std::vector<int> column;  // column k of a row: 0 prompt, 1 output
  bool header = false;
  std::size_t line_no = 0, pos = 0;
  while (pos <= text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = detail::trim_csv_field(text.substr(pos, end - pos));
    pos = end + 1;
    ++line_no;
    if (line.empty() || line.front() == '#') {
      if (end == text.size()) break;
      continue;
    }
    std::vector<std::string_view> fields;
    for (std::size_t a = 0;;) {
      const std::size_t c = line.find(',', a);
      fields.push_back(detail::trim_csv_field(line.substr(a, c == std::string_view::npos ? std::string_view::npos : c - a)));
      if (c == std::string_view::npos) break;
      a = c + 1;
      if (fields.size() > 2) break;
    }
    if (!header) {
      if (fields.size() > 2) detail::length_csv_fail(source, line_no, "a header of at most two columns (prompt, output)");
      for (const auto f : fields) {
        if (f == "prompt" && !t.has_prompt) {
          t.has_prompt = true;
          column.push_back(0);
        } else if (f == "output" && !t.has_output) {
          t.has_output = true;
          column.push_back(1);
        } else {
          detail::length_csv_fail(source, line_no,
                                  "header column '" + std::string(f.substr(0, 64)) +
                                      "': prompt or output, each at most once");
        }
      }
      header = true;
    } else {
      if (fields.size() != column.size()) {
        detail::length_csv_fail(source, line_no, std::to_string(column.size()) + " values (one per header column)");
      }
      if (t.prompt.size() + t.output.size() >= max_rows * column.size()) {
        detail::length_csv_fail(source, line_no, "at most 2^20 rows");
      }
      for (std::size_t k = 0; k < fields.size(); ++k) {
        const auto f = fields[k];
        int v = 0;
        const auto [p, ec] = std::from_chars(f.data(), f.data() + f.size(), v);
        const char* name = column[k] == 0 ? "prompt" : "output";
        if (ec != std::errc{} || p != f.data() + f.size() || v < 1 || v > hi) {
          detail::length_csv_fail(source, line_no,
                                  std::string(name) + " '" + std::string(f.substr(0, 32)) + "': an integer in [1, " +
                                      std::to_string(hi) + "] (strata::serving_limits().tokens)");
        }
        (column[k] == 0 ? t.prompt : t.output).push_back(v);
      }
    }
    if (end == text.size()) break;
  }
  if (!header) detail::length_csv_fail(source, line_no, "a header row (prompt and/or output)");
  if (t.prompt.empty() && t.output.empty()) detail::length_csv_fail(source, line_no, "at least one row of lengths");
  return t;
}

/// Reads a length CSV from `path` by the library's opening rule (file comment).
template <class = void>
inline length_table read_length_csv(const std::string& path) {
  const std::string text = read_input_file(path, "lengths", limits().table_file_bytes, "table_file_bytes");
  return parse_length_csv(text, path);
}

/// Sets `g`'s laws from a length table: each column present becomes a `list` law; with both the
/// rows are pairs (`paired`).
template <class = void>
inline void apply_length_csv(request_gen_params& g, const length_table& t) {
  if (t.has_prompt) g.prompt = {.kind = length_kind::list, .value = 512, .min = 1, .max = 1024, .values = t.prompt};
  if (t.has_output) g.output = {.kind = length_kind::list, .value = 128, .min = 1, .max = 1024, .values = t.output};
  g.paired = t.has_prompt && t.has_output;
}

}  // namespace v0
}  // namespace strata
