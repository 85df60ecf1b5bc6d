// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Readers for recorded MoE routing data (formats in tests/data/traces/README.md):
///
/// - per-token traces, `seq,pos,L1,…,LN`, one token per line, each `Lk` cell holding the k distinct
///   expert IDs of MoE layer k separated by spaces, top-1 first (DeepSeek-V2-Lite, ESFT); `seq` and
///   `pos` may be empty (absent), and a (seq, pos) pair appears at most once:
///   `read_trace_csv`, `parse_trace_csv`, `load_trace_csv` → `routing_trace`;
/// - per-layer expert hit counts per (model, checkpoint, topic, selection):
///   `read_expert_counts_csv`, `load_expert_counts_csv` → `expert_count_table`. Columns are found
///   by name, so both the ESFT layout
///   (`model,task,moe_layer,expert,tokens_routed,gate_weight_sum,tokens_in_layer`) and the OLMoE
///   layout (`model,checkpoint,domain,selection,layer,expert,count,tokens`) read;
/// - cross-layer top-1 transitions (`model,domain,layer_from,layer_to,expert_from,expert_to,count`):
///   `read_top1_transitions_csv`, `load_top1_transitions_csv` → `top1_transition_table`.
///
/// The `load_*` functions open their file under the opening rule (`core/files.hpp`): a regular
/// file within `limits().trace_file_bytes` (a trace) or `limits().table_file_bytes` (a table), else
/// a `config_error` whose field is the role ("trace", "count table", "transition table").
///
/// Every malformed line throws `config_error` whose message names the source, the line and the
/// column, e.g. `[strata.trace] intent.csv:12: L3 (column 5): expert id 64 out of [0, 64)`, and
/// whose `field()` is `"<source>:<line>"`. Quoted CSV fields are not supported (none of the
/// formats needs them) and are rejected.
///
/// Speed: the trace parser reads the whole input into one buffer and walks it with
/// `std::from_chars`, without a per-cell allocation (benchmarks/trace_bench.cpp).
///
/// \code
/// auto t = strata::load_trace_csv("dsv2lite_esft_trace_intent.csv",
///                                 {.experts = 64, .k = 6, .label = "intent"});
/// auto c = strata::load_expert_counts_csv("dsv2lite_esft_expert_counts_by_task.csv");
/// double p = c.at("ESFT-vanilla-lite(DeepSeek-V2-Lite)", "intent", "topk6").hit_rate(1, 0);
/// \endcode

#include <algorithm>     // std::max, std::sort, std::is_sorted, std::fill
#include <charconv>      // std::from_chars
#include <cstddef>       // std::size_t
#include <cstdint>       // std::uint16_t, std::uint32_t, std::int64_t
#include <cstring>       // std::memchr
#include <initializer_list>  // std::initializer_list, column name alternatives
#include <istream>           // std::istream
#include <limits>            // std::numeric_limits
#include <map>               // std::map, grouping rows of the count tables
#include <string>        // std::string, std::to_string
#include <string_view>   // std::string_view
#include <system_error>  // std::errc
#include <tuple>         // std::tie
#include <utility>       // std::move, std::pair
#include <vector>        // std::vector

#include "strata/core/error.hpp"
#include "strata/core/files.hpp"
#include "strata/core/limits.hpp"
#include "strata/workload/expert_counts.hpp"
#include "strata/workload/trace.hpp"

namespace strata {
inline namespace v0 {

/// Options of the per-token trace reader.
struct trace_csv_options {
  /// Routed experts per layer; IDs must be in [0, experts). 0: inferred as the largest ID + 1
  /// (which undercounts if the highest-numbered experts are never routed to).
  int experts = 0;
  /// Experts per token and layer. 0: taken from the first data cell; every cell must match.
  int k = 0;
  /// Topic label given to every token (e.g. the ESFT task, "intent"); empty: no topic.
  std::string label{};

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("experts", s.experts);
    v("k", s.k);
    v("label", s.label);
  }
  friend bool operator==(const trace_csv_options&, const trace_csv_options&) = default;
};

namespace detail::csv {

/// Reads a whole stream into a string; throws `config_error` naming `source` on a read error.
template <class = void>
inline std::string read_all(std::istream& in, const std::string& source) {
  std::string s;
  char buf[1 << 16];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) s.append(buf, static_cast<std::size_t>(in.gcount()));
  if (in.bad()) throw config_error(source, "[strata.trace] " + source + ": read error");
  return s;
}

/// The kind of a CSV input file, which sets its size cap in `strata::limits()`.
enum class csv_file { trace, table };

/// Reads a whole CSV file under the opening rule (`core/files.hpp`): a regular file within
/// `limits().trace_file_bytes` (a trace) or `limits().table_file_bytes` (a count or transition
/// table); errors are `config_error`s naming `role` and the file.
template <class = void>
inline std::string read_file(const std::string& path, std::string_view role, csv_file kind) {
  return kind == csv_file::trace ? read_input_file(path, role, limits().trace_file_bytes, "trace_file_bytes")
                                 : read_input_file(path, role, limits().table_file_bytes, "table_file_bytes");
}

/// `p` taken relative to `base_dir` (as given when `base_dir` is empty or `p` is absolute).
template <class = void>
inline std::string relative_to(const std::string& base_dir, const std::string& p) {
  return base_dir.empty() || (!p.empty() && p.front() == '/') ? p : base_dir + "/" + p;
}

/// Throws the reader error for `source`:`line`.
[[noreturn]] inline void csv_fail(std::string_view source, std::size_t line, const std::string& what) {
  std::string at(source);
  at += ':';
  at += std::to_string(line);
  throw config_error(at, "[strata.trace] " + at + ": " + what);
}

/// Shortens a field for an error message.
template <class = void>
inline std::string quote(std::string_view s) {
  constexpr std::size_t max = 40;
  std::string q;  // appended piecewise: GCC 12 warns falsely (-Wrestrict) on a chain of operator+
  q.reserve(max + 6);
  q += '"';
  q.append(s.substr(0, max));
  q.append(s.size() > max ? "…\"" : "\"");
  return q;
}

template <class = void>
inline std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

/// Splits a line at commas into `out` (views into `line`); fields are trimmed.
template <class = void>
inline void split_csv(std::string_view line, std::vector<std::string_view>& out) {
  out.clear();
  std::size_t i = 0;
  for (;;) {
    const std::size_t j = line.find(',', i);
    out.push_back(trim(line.substr(i, j == std::string_view::npos ? std::string_view::npos : j - i)));
    if (j == std::string_view::npos) break;
    i = j + 1;
  }
}

/// Parses a whole field as a number of type X; false if it is not exactly one number.
template <class X>
bool parse_number(std::string_view s, X& out) {
  if (s.empty()) return false;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc{} && p == s.data() + s.size();
}

/// A text split into lines with 1-based line numbers; strips a UTF-8 byte-order mark and '\r'.
class line_reader {
 public:
  explicit line_reader(std::string_view text) : p_(text.data()), end_(text.data() + text.size()) {
    if (text.size() >= 3 && text.substr(0, 3) == "\xEF\xBB\xBF") p_ += 3;
  }
  /// Next line (without its end), false at the end of the text.
  template <class = void>
  bool next(std::string_view& line) {
    if (p_ >= end_) return false;
    const auto* nl = static_cast<const char*>(std::memchr(p_, '\n', static_cast<std::size_t>(end_ - p_)));
    const char* e = nl ? nl : end_;
    line = std::string_view(p_, static_cast<std::size_t>(e - p_));
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    p_ = nl ? nl + 1 : end_;
    ++line_no_;
    return true;
  }
  /// Next line that is not blank.
  template <class = void>
  bool next_nonblank(std::string_view& line) {
    while (next(line)) {
      if (!trim(line).empty()) return true;
    }
    return false;
  }
  template <class = void>
  [[nodiscard]] std::size_t line_no() const noexcept { return line_no_; }

 private:
  const char* p_;
  const char* end_;
  std::size_t line_no_ = 0;
};

/// Requires the header of a CSV file and returns its fields.
template <class = void>
inline void read_header(line_reader& lines, std::string_view source, std::vector<std::string_view>& cols,
                        const char* expected) {
  std::string_view line;
  if (!lines.next_nonblank(line)) csv_fail(source, 1, std::string("empty input; expected a header ") + expected);
  if (line.find('"') != std::string_view::npos) {
    csv_fail(source, lines.line_no(), "quoted CSV fields are not supported");
  }
  split_csv(line, cols);
}

}  // namespace detail::csv

/// Parses a per-token trace held in `text` (format in the file comment); `source` names the
/// input in error messages. Throws `config_error` ("<source>:<line>") on the first bad line.
template <class = void>
inline routing_trace parse_trace_csv(std::string_view text, const trace_csv_options& opt = {},
                                     std::string_view source = "<string>") {
  using detail::csv::csv_fail;
  const std::string src(source);
  const input_limits& lim = limits();
  detail::require(opt.experts >= 0 && opt.experts <= std::min(lim.experts, 65536), "strata.trace", "experts",
                  opt.experts,
                  ("in [0, " + std::to_string(std::min(lim.experts, 65536)) +
                   "] (0: infer; strata::limits().experts)").c_str());
  detail::require(opt.k >= 0 && (opt.experts == 0 || opt.k <= opt.experts), "strata.trace", "k", opt.k,
                  "in [0, experts] (0: infer)");

  detail::csv::line_reader lines(text);
  std::vector<std::string_view> cols;
  detail::csv::read_header(lines, source, cols, "seq,pos,L1,...,LN");
  const std::size_t header_line = lines.line_no();
  if (cols.size() < 3 || cols[0] != "seq" || cols[1] != "pos") {
    csv_fail(source, header_line, "header must be seq,pos,L1,...,LN, got " + detail::csv::quote(cols.empty() ? "" : cols[0]) +
                                      (cols.size() > 1 ? "," + detail::csv::quote(cols[1]) : std::string()) + ",...");
  }
  const int layers = static_cast<int>(cols.size() - 2);
  for (int l = 0; l < layers; ++l) {
    const std::string want = "L" + std::to_string(l + 1);
    if (cols[static_cast<std::size_t>(l) + 2] != want) {
      csv_fail(source, header_line, "header column " + std::to_string(l + 3) + " must be " + want + ", got " +
                                        detail::csv::quote(cols[static_cast<std::size_t>(l) + 2]));
    }
  }
  if (layers > lim.layers) {
    csv_fail(source, header_line, std::to_string(layers) + " layer columns exceed the limit " +
                                      std::to_string(lim.layers) + " (strata::limits().layers)");
  }

  const std::uint32_t limit =
      opt.experts > 0 ? static_cast<std::uint32_t>(opt.experts) : static_cast<std::uint32_t>(std::min(lim.experts, 65536));
  int k = opt.k;
  std::vector<std::uint16_t> ids;
  std::vector<token_info> infos;
  std::vector<std::size_t> data_lines;  // the line of each token, for the (seq, pos) check
  // Every id takes at least two bytes of text (a digit and a separator), so reserving from the
  // line count is capped by the input's size: a short file with a wide header cannot ask for more.
  const std::size_t max_ids_in_text = text.size() / 2 + 1;
  const auto reserve_ids = [&](std::size_t lines_n) {
    const std::size_t want = lines_n * static_cast<std::size_t>(layers) * static_cast<std::size_t>(k);
    ids.reserve(std::min({want, max_ids_in_text, static_cast<std::size_t>(lim.trace_ids)}));
  };
  {
    // One line per token: reserve from the line count (a memchr pass is much cheaper than regrowth).
    std::size_t n = 0;
    for (const char* p = text.data(); (p = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(text.data() + text.size() - p)))) != nullptr; ++p) ++n;
    infos.reserve(n + 1);
    data_lines.reserve(n + 1);
    if (k > 0) reserve_ids(n + 1);
  }
  // Duplicate check without clearing: seen[id] holds the number of the cell that last used id.
  std::vector<std::uint32_t> seen(limit, 0);
  std::uint32_t cell_no = 0;
  std::uint32_t max_id = 0;

  auto column_name = [](int col) {  // col is 0-based
    if (col == 0) return std::string("seq (column 1)");
    if (col == 1) return std::string("pos (column 2)");
    std::string n = "L";  // appended piecewise: GCC 12 warns falsely (-Wrestrict) on "L" + string&&
    n += std::to_string(col - 1);
    n += " (column ";
    n += std::to_string(col + 1);
    n += ')';
    return n;
  };

  std::string_view line;
  while (lines.next(line)) {
    const char* p = line.data();
    const char* const e = line.data() + line.size();
    const std::size_t ln = lines.line_no();
    if (detail::csv::trim(line).empty()) continue;

    token_info info;
    // seq and pos: non-negative integers, or empty for "absent".
    for (int col = 0; col < 2; ++col) {
      const char* c = static_cast<const char*>(std::memchr(p, ',', static_cast<std::size_t>(e - p)));
      if (c == nullptr) {
        csv_fail(source, ln, "missing column " + std::to_string(col + 2) + ": expected " +
                                 std::to_string(layers + 2) + " columns (seq,pos,L1..L" + std::to_string(layers) + ")");
      }
      const std::string_view f = detail::csv::trim(std::string_view(p, static_cast<std::size_t>(c - p)));
      std::int32_t v = routing_trace::none;
      if (!f.empty() && (!detail::csv::parse_number(f, v) || v < 0)) {
        csv_fail(source, ln, column_name(col) + ": expected a non-negative integer, got " + detail::csv::quote(f));
      }
      (col == 0 ? info.seq : info.pos) = v;
      p = c + 1;
    }
    info.topic = opt.label.empty() ? routing_trace::none : 0;

    bool more = true;  // another column follows
    for (int l = 0; l < layers; ++l) {
      const int col = l + 2;
      if (!more) {
        csv_fail(source, ln, "missing layer column L" + std::to_string(l + 1) + ": expected " +
                                 std::to_string(layers + 2) + " columns, got " + std::to_string(col));
      }
      if (++cell_no == 0) {  // wrapped after 2^32 cells: restart the stamps
        std::fill(seen.begin(), seen.end(), 0u);
        cell_no = 1;
      }
      int count = 0;
      for (;;) {
        while (p < e && (*p == ' ' || *p == '\t')) ++p;
        if (p == e || *p == ',') break;
        std::uint32_t v = 0;
        const auto [q, ec] = std::from_chars(p, e, v);
        if (ec != std::errc{} || (q < e && *q != ' ' && *q != '\t' && *q != ',')) {
          const char* z = p;
          while (z < e && *z != ' ' && *z != ',') ++z;
          csv_fail(source, ln, column_name(col) + ": expected an expert id, got " +
                                   detail::csv::quote(std::string_view(p, static_cast<std::size_t>(z - p))));
        }
        if (v >= limit) {
          csv_fail(source, ln, column_name(col) + ": expert id " + std::to_string(v) + " out of [0, " +
                                   std::to_string(limit) + ")");
        }
        if (seen[v] == cell_no) {
          csv_fail(source, ln, column_name(col) + ": expert id " + std::to_string(v) + " repeated");
        }
        seen[v] = cell_no;
        max_id = std::max(max_id, v);
        ++count;
        if (k > 0 && count > k) {
          csv_fail(source, ln, column_name(col) + ": expected " + std::to_string(k) + " expert ids, got more");
        }
        ids.push_back(static_cast<std::uint16_t>(v));
        p = q;
      }
      if (k == 0) {
        if (count == 0) csv_fail(source, ln, column_name(col) + ": expected expert ids, got an empty cell");
        k = count;  // inferred from the first data cell
        reserve_ids(infos.capacity());
      } else if (count != k) {
        csv_fail(source, ln, column_name(col) + ": expected " + std::to_string(k) + " expert ids, got " +
                                 std::to_string(count));
      }
      more = p < e;  // then *p == ','
      if (more) ++p;
    }
    if (more) {
      csv_fail(source, ln, "too many columns: expected " + std::to_string(layers + 2) + " (seq,pos,L1..L" +
                               std::to_string(layers) + ")");
    }
    if (ids.size() > static_cast<std::size_t>(lim.trace_ids)) {
      csv_fail(source, ln, "the trace holds more than " + std::to_string(lim.trace_ids) +
                               " expert ids (the limit strata::limits().trace_ids)");
    }
    infos.push_back(info);
    data_lines.push_back(ln);
  }

  // A token's (seq, pos) is unique: a second line for the same position of a sequence is a
  // corrupt or concatenated trace, not a longer sequence.
  {
    std::vector<std::size_t> order;
    order.reserve(infos.size());
    for (std::size_t i = 0; i < infos.size(); ++i) {
      if (infos[i].seq >= 0 && infos[i].pos >= 0) order.push_back(i);
    }
    const auto key = [&](std::size_t i) { return std::pair{infos[i].seq, infos[i].pos}; };
    const auto before = [&](std::size_t a, std::size_t b) { return key(a) != key(b) ? key(a) < key(b) : a < b; };
    if (!std::is_sorted(order.begin(), order.end(), before)) std::sort(order.begin(), order.end(), before);  // files are mostly in order
    for (std::size_t j = 1; j < order.size(); ++j) {
      if (key(order[j]) == key(order[j - 1])) {
        csv_fail(source, data_lines[order[j]],
                 "token (seq " + std::to_string(infos[order[j]].seq) + ", pos " + std::to_string(infos[order[j]].pos) +
                     ") repeats line " + std::to_string(data_lines[order[j - 1]]));
      }
    }
  }

  if (k == 0) k = opt.k > 0 ? opt.k : 1;  // no data rows: an empty trace
  const int experts = opt.experts > 0 ? opt.experts : std::max(static_cast<int>(max_id) + 1, k);
  std::vector<std::string> topics;
  if (!opt.label.empty()) topics.push_back(opt.label);
  routing_trace t(layers, experts, k, std::move(topics));
  detail::trace_access::ids(t) = std::move(ids);
  detail::trace_access::infos(t) = std::move(infos);
  return t;
}

/// Reads a per-token trace from a stream (the whole stream is read first); `source` names the
/// input in error messages.
template <class = void>
inline routing_trace read_trace_csv(std::istream& in, const trace_csv_options& opt = {},
                                    const std::string& source = "<stream>") {
  const std::string text = detail::csv::read_all(in, source);
  return parse_trace_csv(text, opt, source);
}

/// Reads a per-token trace file (a regular file within `limits().trace_file_bytes`); errors name
/// `path` and, when the file cannot be read, its role `"trace"`.
template <class = void>
inline routing_trace load_trace_csv(const std::string& path, const trace_csv_options& opt = {}) {
  const std::string text = detail::csv::read_file(path, "trace", detail::csv::csv_file::trace);
  return parse_trace_csv(text, opt, path);
}

// ---------------------------------------------------------------------------------------------
// Expert count tables (the types: workload/expert_counts.hpp)

namespace detail::csv {

/// Index of the first column named one of `names`, or -1.
template <class = void>
inline int column_of(const std::vector<std::string_view>& cols, std::initializer_list<std::string_view> names) {
  for (std::size_t i = 0; i < cols.size(); ++i) {
    for (auto n : names) {
      if (cols[i] == n) return static_cast<int>(i);
    }
  }
  return -1;
}

/// k stated by a selection name: "top1" -> 1, "topk8" -> 8, "top8" -> 8; 0 if none.
template <class = void>
inline int k_of_selection(std::string_view s) {
  if (s.substr(0, 4) == "topk") s.remove_prefix(4);
  else if (s.substr(0, 3) == "top") s.remove_prefix(3);
  else return 0;
  int k = 0;
  return parse_number(s, k) && k > 0 ? k : 0;
}

}  // namespace detail::csv

/// Parses an expert count table held in `text`. Required columns (by name): `model`, the topic
/// (`task`, `domain` or `topic`), the layer (`layer` or `moe_layer`), `expert`, the count
/// (`count` or `tokens_routed`) and the tokens (`tokens` or `tokens_in_layer`); optional:
/// `checkpoint`, `selection` and `gate_weight_sum`.
///
/// Checks: numbers parse; 0 <= count <= tokens; tokens > 0 and equal within a (series, layer);
/// no expert twice; every expert 0..E−1 present in every layer (E = largest id + 1 of the
/// series); each layer's counts sum to k·tokens, with k from the selection ("top1", "topk8") or,
/// without a selection column, inferred from the first layer (then the selection is named
/// "topk<k>", or "top1" for k = 1) and required of all layers. A selection name that states no
/// k (not "top<k>" or "topk<k>") leaves k = 0 and the sums unchecked.
template <class = void>
inline expert_count_table parse_expert_counts_csv(std::string_view text, std::string_view source = "<string>") {
  using detail::csv::csv_fail;
  detail::csv::line_reader lines(text);
  std::vector<std::string_view> cols;
  detail::csv::read_header(lines, source, cols, "model,...,expert,count,tokens");
  const std::size_t header_line = lines.line_no();
  const int c_model = detail::csv::column_of(cols, {"model"});
  const int c_ckpt = detail::csv::column_of(cols, {"checkpoint"});
  const int c_topic = detail::csv::column_of(cols, {"task", "domain", "topic"});
  const int c_sel = detail::csv::column_of(cols, {"selection"});
  const int c_layer = detail::csv::column_of(cols, {"layer", "moe_layer"});
  const int c_expert = detail::csv::column_of(cols, {"expert"});
  const int c_count = detail::csv::column_of(cols, {"count", "tokens_routed"});
  const int c_gate = detail::csv::column_of(cols, {"gate_weight_sum"});
  const int c_tokens = detail::csv::column_of(cols, {"tokens", "tokens_in_layer"});
  {
    std::string missing;
    auto need = [&](int c, const char* name) {
      if (c < 0) missing += (missing.empty() ? "" : ", ") + std::string(name);
    };
    need(c_model, "model");
    need(c_topic, "task|domain|topic");
    need(c_layer, "layer|moe_layer");
    need(c_expert, "expert");
    need(c_count, "count|tokens_routed");
    need(c_tokens, "tokens|tokens_in_layer");
    if (!missing.empty()) csv_fail(source, header_line, "header lacks column(s) " + missing);
  }

  struct group {
    std::size_t first_line = 0;
    std::int64_t tokens = 0;
    std::vector<std::int64_t> counts;  // -1: not seen
    std::vector<double> gate;
  };
  std::map<expert_count_key, std::map<int, group>> groups;
  std::map<expert_count_key, int> max_expert;
  // Cells are allocated by the largest expert id seen per (series, layer); their total is bounded.
  const std::int64_t max_cells = limits().table_cells;
  std::int64_t cells = 0;
  const std::size_t ncols = cols.size();
  const bool has_gate = c_gate >= 0;

  std::string_view line;
  expert_count_key key;
  std::vector<std::string_view> f;
  while (lines.next(line)) {
    if (detail::csv::trim(line).empty()) continue;
    const std::size_t ln = lines.line_no();
    if (line.find('"') != std::string_view::npos) csv_fail(source, ln, "quoted CSV fields are not supported");
    detail::csv::split_csv(line, f);
    if (f.size() != ncols) {
      csv_fail(source, ln, "expected " + std::to_string(ncols) + " columns, got " + std::to_string(f.size()));
    }
    auto name = [&](int c) { return std::string(cols[static_cast<std::size_t>(c)]) + " (column " + std::to_string(c + 1) + ")"; };
    auto integer = [&](int c, std::int64_t lo) {
      std::int64_t v = 0;
      const auto s = f[static_cast<std::size_t>(c)];
      if (!detail::csv::parse_number(s, v)) csv_fail(source, ln, name(c) + ": expected an integer, got " + detail::csv::quote(s));
      if (v < lo) csv_fail(source, ln, name(c) + ": must be >= " + std::to_string(lo) + ", got " + std::to_string(v));
      return v;
    };
    auto text_of = [&](int c) {
      const auto s = f[static_cast<std::size_t>(c)];
      if (s.empty()) csv_fail(source, ln, name(c) + ": empty");
      return s;
    };
    const std::string_view model = text_of(c_model), topic = text_of(c_topic);
    const std::string_view ckpt = c_ckpt >= 0 ? text_of(c_ckpt) : std::string_view{};
    const std::string_view sel = c_sel >= 0 ? text_of(c_sel) : std::string_view{};
    if (key.model != model || key.topic != topic || key.checkpoint != ckpt || key.selection != sel) {
      key = expert_count_key{std::string(model), std::string(ckpt), std::string(topic), std::string(sel)};
    }
    const std::int64_t layer = integer(c_layer, 0);
    const std::int64_t expert = integer(c_expert, 0);
    const std::int64_t count = integer(c_count, 0);
    const std::int64_t tokens = integer(c_tokens, 1);
    if (layer > 1'000'000) csv_fail(source, ln, name(c_layer) + ": implausible layer " + std::to_string(layer));
    if (expert > 65535) csv_fail(source, ln, name(c_expert) + ": expert id " + std::to_string(expert) + " out of [0, 65536)");
    if (count > tokens) {
      csv_fail(source, ln, name(c_count) + ": count " + std::to_string(count) + " exceeds the layer's tokens " +
                               std::to_string(tokens));
    }
    double gate = 0.0;
    if (has_gate) {
      const auto s = f[static_cast<std::size_t>(c_gate)];
      if (!detail::csv::parse_number(s, gate) || !(gate >= 0.0)) {
        csv_fail(source, ln, name(c_gate) + ": expected a number >= 0, got " + detail::csv::quote(s));
      }
    }
    group& g = groups[key][static_cast<int>(layer)];
    if (g.first_line == 0) {
      g.first_line = ln;
      g.tokens = tokens;
    } else if (g.tokens != tokens) {
      csv_fail(source, ln, name(c_tokens) + ": " + std::to_string(tokens) + " differs from " +
                               std::to_string(g.tokens) + " on line " + std::to_string(g.first_line) +
                               " for the same layer");
    }
    const auto e = static_cast<std::size_t>(expert);
    if (g.counts.size() <= e) {
      cells += static_cast<std::int64_t>(e + 1 - g.counts.size());
      if (cells > max_cells) {
        csv_fail(source, ln, name(c_expert) + ": expert id " + std::to_string(expert) + " makes the table exceed " +
                                 std::to_string(max_cells) + " cells (the limit strata::limits().table_cells)");
      }
      g.counts.resize(e + 1, -1);
      g.gate.resize(e + 1, 0.0);
    }
    if (g.counts[e] >= 0) csv_fail(source, ln, name(c_expert) + ": expert " + std::to_string(expert) + " repeated for layer " + std::to_string(layer));
    g.counts[e] = count;
    g.gate[e] = gate;
    int& me = max_expert[key];
    me = std::max(me, static_cast<int>(expert) + 1);
  }

  {
    // Every layer of a series is padded to the series' expert count: bound the total first.
    std::int64_t padded = 0;
    for (const auto& [gk, layers] : groups) {
      padded += static_cast<std::int64_t>(layers.size()) * max_expert[gk];
      if (padded > max_cells) {
        csv_fail(source, layers.begin()->second.first_line,
                 gk.model + "/" + gk.topic + ": " + std::to_string(layers.size()) + " layers x " +
                     std::to_string(max_expert[gk]) + " experts exceed " + std::to_string(max_cells) +
                     " cells (the limit strata::limits().table_cells)");
      }
    }
  }
  expert_count_table table;
  for (auto& [gk, layers] : groups) {
    expert_counts s;
    s.key = gk;
    s.experts = max_expert[gk];
    s.k = detail::csv::k_of_selection(gk.selection);
    for (auto& [layer, g] : layers) {
      g.counts.resize(static_cast<std::size_t>(s.experts), -1);
      g.gate.resize(static_cast<std::size_t>(s.experts), 0.0);
      std::int64_t sum = 0;
      for (std::size_t e = 0; e < g.counts.size(); ++e) {
        if (g.counts[e] < 0) {
          csv_fail(source, g.first_line, gk.model + "/" + gk.topic + (gk.selection.empty() ? "" : "/" + gk.selection) +
                                             " layer " + std::to_string(layer) + " lacks expert " + std::to_string(e) +
                                             " (the series has " + std::to_string(s.experts) + " experts)");
        }
        if (sum > std::numeric_limits<std::int64_t>::max() - g.counts[e]) {
          csv_fail(source, g.first_line, "layer " + std::to_string(layer) + " counts overflow a 64-bit sum");
        }
        sum += g.counts[e];
      }
      if (s.k == 0 && gk.selection.empty()) {
        if (sum % g.tokens != 0 || sum == 0) {
          csv_fail(source, g.first_line, "layer " + std::to_string(layer) + " counts sum to " + std::to_string(sum) +
                                             ", not a multiple of its " + std::to_string(g.tokens) + " tokens");
        }
        s.k = static_cast<int>(sum / g.tokens);
      }
      if (s.k > 0 && (g.tokens > std::numeric_limits<std::int64_t>::max() / s.k ||
                      sum != static_cast<std::int64_t>(s.k) * g.tokens)) {
        csv_fail(source, g.first_line, gk.model + "/" + gk.topic + " layer " + std::to_string(layer) +
                                           ": counts sum to " + std::to_string(sum) + ", expected k * tokens = " +
                                           std::to_string(s.k) + " * " + std::to_string(g.tokens));
      }
      s.layers.push_back(expert_count_layer{layer, g.tokens, std::move(g.counts),
                                            has_gate ? std::move(g.gate) : std::vector<double>{}});
    }
    if (s.key.selection.empty()) s.key.selection = s.k == 1 ? "top1" : "topk" + std::to_string(s.k);
    table.series.push_back(std::move(s));
  }
  std::sort(table.series.begin(), table.series.end(),
            [](const expert_counts& a, const expert_counts& b) { return a.key < b.key; });
  return table;
}

/// Reads an expert count table from a stream; `source` names it in error messages.
template <class = void>
inline expert_count_table read_expert_counts_csv(std::istream& in, const std::string& source = "<stream>") {
  const std::string text = detail::csv::read_all(in, source);
  return parse_expert_counts_csv(text, source);
}

/// Reads an expert count table file (a regular file within `limits().table_file_bytes`; role
/// `"count table"`).
template <class = void>
inline expert_count_table load_expert_counts_csv(const std::string& path) {
  const std::string text = detail::csv::read_file(path, "count table", detail::csv::csv_file::table);
  return parse_expert_counts_csv(text, path);
}

// ---------------------------------------------------------------------------------------------
// Cross-layer top-1 transitions

/// Tokens whose top-1 expert is `from` at `layer_from` and `to` at `layer_to`.
struct top1_transitions {
  std::string model;
  std::string topic;
  int layer_from = 0;
  int layer_to = 0;
  int experts = 0;                   ///< routed experts per layer (largest id of the model + 1)
  std::vector<std::int64_t> counts;  ///< row-major experts × experts: counts[from·E + to]
  std::int64_t tokens = 0;           ///< Σ counts

  /// Tokens going from expert `from` to expert `to`.
  template <class = void>
  [[nodiscard]] std::int64_t count(int from, int to) const {
    check(from, "from");
    check(to, "to");
    return counts[static_cast<std::size_t>(from) * static_cast<std::size_t>(experts) + static_cast<std::size_t>(to)];
  }
  /// Tokens whose top-1 at `layer_from` is `from`.
  template <class = void>
  [[nodiscard]] std::int64_t row_total(int from) const {
    check(from, "from");
    std::int64_t s = 0;
    for (int to = 0; to < experts; ++to) s += count(from, to);
    return s;
  }
  /// P(top-1 at layer_to is `to` | top-1 at layer_from is `from`); 0 if `from` is never top-1.
  template <class = void>
  [[nodiscard]] double probability(int from, int to) const {
    const auto r = row_total(from);
    return r > 0 ? static_cast<double>(count(from, to)) / static_cast<double>(r) : 0.0;
  }

  friend bool operator==(const top1_transitions&, const top1_transitions&) = default;

 private:
  template <class = void>
  void check(int e, const char* what) const {
    if (e < 0 || e >= experts) {  // the message is built only on failure: count() is called E² times
      detail::require(false, "strata.trace", what, e, ("in [0, " + std::to_string(experts) + ")").c_str());
    }
  }
};

/// All transition matrices of a file, sorted by (model, topic, layer_from, layer_to).
struct top1_transition_table {
  std::vector<top1_transitions> series;

  /// The matrix of `model` on `topic` from `layer_from` to `layer_to`; throws `config_error`.
  template <class = void>
  [[nodiscard]] const top1_transitions& at(std::string_view model, std::string_view topic, int layer_from,
                                           int layer_to) const {
    for (const auto& s : series) {
      if (s.model == model && s.topic == topic && s.layer_from == layer_from && s.layer_to == layer_to) return s;
    }
    throw config_error("key", "[strata.trace] no top-1 transitions for " + std::string(model) + "/" +
                                  std::string(topic) + " layer " + std::to_string(layer_from) + " -> " +
                                  std::to_string(layer_to));
  }

  friend bool operator==(const top1_transition_table&, const top1_transition_table&) = default;
};

/// Parses a cross-layer top-1 transition file held in `text` (only non-zero pairs need appear;
/// a pair may appear once).
template <class = void>
inline top1_transition_table parse_top1_transitions_csv(std::string_view text, std::string_view source = "<string>") {
  using detail::csv::csv_fail;
  detail::csv::line_reader lines(text);
  std::vector<std::string_view> cols;
  detail::csv::read_header(lines, source, cols, "model,domain,layer_from,layer_to,expert_from,expert_to,count");
  const std::size_t header_line = lines.line_no();
  const int c_model = detail::csv::column_of(cols, {"model"});
  const int c_topic = detail::csv::column_of(cols, {"domain", "task", "topic"});
  const int c_lf = detail::csv::column_of(cols, {"layer_from"});
  const int c_lt = detail::csv::column_of(cols, {"layer_to"});
  const int c_ef = detail::csv::column_of(cols, {"expert_from"});
  const int c_et = detail::csv::column_of(cols, {"expert_to"});
  const int c_count = detail::csv::column_of(cols, {"count"});
  if (c_model < 0 || c_topic < 0 || c_lf < 0 || c_lt < 0 || c_ef < 0 || c_et < 0 || c_count < 0) {
    csv_fail(source, header_line, "header must name model, domain, layer_from, layer_to, expert_from, expert_to, count");
  }
  using gkey = std::tuple<std::string, std::string, int, int>;
  struct cell {
    int from, to;
    std::int64_t count;
    std::size_t line;
  };
  std::map<gkey, std::vector<cell>> groups;
  std::map<std::string, int> experts;  // per model
  std::vector<std::string_view> f;
  std::string_view line;
  while (lines.next(line)) {
    if (detail::csv::trim(line).empty()) continue;
    const std::size_t ln = lines.line_no();
    if (line.find('"') != std::string_view::npos) csv_fail(source, ln, "quoted CSV fields are not supported");
    detail::csv::split_csv(line, f);
    if (f.size() != cols.size()) {
      csv_fail(source, ln, "expected " + std::to_string(cols.size()) + " columns, got " + std::to_string(f.size()));
    }
    auto integer = [&](int c, std::int64_t lo, std::int64_t hi) {
      std::int64_t v = 0;
      const auto s = f[static_cast<std::size_t>(c)];
      const std::string nm = std::string(cols[static_cast<std::size_t>(c)]) + " (column " + std::to_string(c + 1) + ")";
      if (!detail::csv::parse_number(s, v)) csv_fail(source, ln, nm + ": expected an integer, got " + detail::csv::quote(s));
      if (v < lo || v > hi) {
        csv_fail(source, ln, nm + ": " + std::to_string(v) + " out of [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
      }
      return v;
    };
    const auto model = f[static_cast<std::size_t>(c_model)], topic = f[static_cast<std::size_t>(c_topic)];
    if (model.empty() || topic.empty()) csv_fail(source, ln, "empty model or domain");
    const auto lf = static_cast<int>(integer(c_lf, 0, 1'000'000));
    const auto lt = static_cast<int>(integer(c_lt, 0, 1'000'000));
    const auto ef = static_cast<int>(integer(c_ef, 0, 65535));
    const auto et = static_cast<int>(integer(c_et, 0, 65535));
    const auto n = integer(c_count, 0, std::numeric_limits<std::int64_t>::max());
    groups[gkey{std::string(model), std::string(topic), lf, lt}].push_back(cell{ef, et, n, ln});
    int& me = experts[std::string(model)];
    me = std::max({me, ef + 1, et + 1});
  }
  {
    // Each matrix is experts x experts of its model (largest id seen + 1): bound the total first.
    const std::int64_t max_cells = limits().table_cells;
    std::int64_t total = 0;
    for (const auto& [gk, cells] : groups) {
      const std::int64_t e = experts[std::get<0>(gk)];
      total += e * e;
      if (total > max_cells) {
        csv_fail(source, cells.front().line,
                 std::get<0>(gk) + " has expert ids up to " + std::to_string(e - 1) + ": its " + std::to_string(e) +
                     " x " + std::to_string(e) + " matrices exceed " + std::to_string(max_cells) +
                     " cells (the limit strata::limits().table_cells)");
      }
    }
  }
  top1_transition_table table;
  for (auto& [gk, cells] : groups) {
    top1_transitions t;
    std::tie(t.model, t.topic, t.layer_from, t.layer_to) = gk;
    t.experts = experts[t.model];
    const auto E = static_cast<std::size_t>(t.experts);
    t.counts.assign(E * E, 0);
    // Repeated pairs: sort by (from, to, line), so a repeat follows its first occurrence.
    std::stable_sort(cells.begin(), cells.end(), [](const cell& a, const cell& b) {
      return a.from != b.from ? a.from < b.from : a.to < b.to;
    });
    for (std::size_t j = 0; j < cells.size(); ++j) {
      const cell& c = cells[j];
      if (j > 0 && cells[j - 1].from == c.from && cells[j - 1].to == c.to) {
        csv_fail(source, c.line, "pair " + std::to_string(c.from) + " -> " + std::to_string(c.to) +
                                     " repeated (first on line " + std::to_string(cells[j - 1].line) + ")");
      }
      const std::size_t i = static_cast<std::size_t>(c.from) * E + static_cast<std::size_t>(c.to);
      if (t.tokens > std::numeric_limits<std::int64_t>::max() - c.count) {
        csv_fail(source, c.line, "count: the matrix total overflows a 64-bit integer");
      }
      t.counts[i] = c.count;
      t.tokens += c.count;
    }
    table.series.push_back(std::move(t));
  }
  return table;
}

/// Reads a cross-layer top-1 transition table from a stream.
template <class = void>
inline top1_transition_table read_top1_transitions_csv(std::istream& in, const std::string& source = "<stream>") {
  const std::string text = detail::csv::read_all(in, source);
  return parse_top1_transitions_csv(text, source);
}

/// Reads a cross-layer top-1 transition file (a regular file within `limits().table_file_bytes`;
/// role `"transition table"`).
template <class = void>
inline top1_transition_table load_top1_transitions_csv(const std::string& path) {
  const std::string text = detail::csv::read_file(path, "transition table", detail::csv::csv_file::table);
  return parse_top1_transitions_csv(text, path);
}

}  // namespace v0
}  // namespace strata
