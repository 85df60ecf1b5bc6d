// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Published GPU serving measurements as data: the row type of
/// `tests/data/measurements/gpu_measurements.csv` and its reader.
///
/// One row is one figure a public source printed for one setup: a preset model (`preset()` name)
/// served on `devices` cards of a GPU preset (`gpu_preset()` name) in tensor parallel, a batch of
/// `batch` prompts of `input_len` tokens each generating `output_len` tokens, and what was measured:
/// - `e2e_latency` (s): wall time of the whole batch, prefill plus every decode step (vLLM's
///   `benchmark_latency.py` "Avg latency");
/// - `output_tokens_per_s` (tokens/s): output_len / that wall time (batch 1 speed tables);
/// - `tpot` (s): mean time per output token after the first; `ttft` (s): time to the first token.
/// `set` says whether the fit (`baseline/validation.hpp`) may use the row (`fit`) or must hold it
/// back (`check`); the file states the rule that assigned it. The text columns (engine, precision,
/// source, location, unknowns) carry the provenance: what the source states and what it leaves
/// open, and how the model treats the gap.
///
/// Format: comma-separated, one header line naming the 16 columns in order (`#` lines and blank
/// lines are skipped anywhere), no quoting (text columns use ';' instead of ','). Bounds on what a
/// file may ask for: at most `max_rows` rows and `max_line` bytes per line; devices in [1, 64],
/// batch in [1, 4096], input_len in [1, 2^20], output_len in [1, 2^16], a value in the physical
/// range of its metric (`measured_value_range`: a time in [1 µs, 10^5 s], a throughput in
/// [10^-3, 10^6] tokens/s; beyond them no serving measurement exists and the relative errors of
/// the report would overflow or lose every digit). Every
/// bad line throws `config_error` whose `field()` is "<source>:<line>" and whose message names the
/// column, the value and what was expected.

#include <array>         // std::array
#include <cmath>         // std::isfinite
#include <cstddef>       // std::size_t
#include <string>        // std::string
#include <string_view>   // std::string_view
#include <utility>       // std::pair
#include <vector>        // std::vector

#include "strata/baseline/gpu.hpp"
#include "strata/core/error.hpp"
#include "strata/core/files.hpp"
#include "strata/core/limits.hpp"
#include "strata/workload/presets.hpp"
#include "strata/workload/trace_io.hpp"  // detail::csv line reader, splitter, number parser

namespace strata {
inline namespace v0 {

/// What a measurement row measured.
enum class measured_metric { e2e_latency, output_tokens_per_s, tpot, ttft };
constexpr auto enum_names(measured_metric) {
  return std::array{std::pair{measured_metric::e2e_latency, "e2e_latency"},
                    std::pair{measured_metric::output_tokens_per_s, "output_tokens_per_s"},
                    std::pair{measured_metric::tpot, "tpot"}, std::pair{measured_metric::ttft, "ttft"}};
}
/// Name of a metric ("e2e_latency", ...).
template <class = void>
inline const char* to_string(measured_metric m) {
  for (const auto& [e, n] : enum_names(measured_metric{})) {
    if (e == m) return n;
  }
  return "?";
}
/// Unit a metric is written in: "s" or "tokens/s".
template <class = void>
inline const char* unit_of(measured_metric m) { return m == measured_metric::output_tokens_per_s ? "tokens/s" : "s"; }
/// True for metrics where larger is better (throughput), false for times.
constexpr bool higher_is_better(measured_metric m) { return m == measured_metric::output_tokens_per_s; }

/// The range a measured value of metric `m` must lie in (file comment), in `unit_of(m)`: a time in
/// [1 µs, 10^5 s] (a microsecond is below any GPU step, 10^5 s more than a day of one batch), a
/// throughput in [10^-3, 10^6] tokens/s (one token in 17 minutes; a million tokens per second
/// from one batch).
template <class = void>
inline std::pair<double, double> measured_value_range(measured_metric m) {
  return higher_is_better(m) ? std::pair{1e-3, 1e6} : std::pair{1e-6, 1e5};
}

/// Which side of the fit a row is on.
enum class measurement_set { fit, check };
constexpr auto enum_names(measurement_set) {
  return std::array{std::pair{measurement_set::fit, "fit"}, std::pair{measurement_set::check, "check"}};
}
template <class = void>
inline const char* to_string(measurement_set s) { return s == measurement_set::fit ? "fit" : "check"; }

/// One published measurement (file comment).
struct measurement {
  std::string id;                 ///< unique row id
  std::string model;              ///< preset name, as `preset()` accepts it
  std::string gpu;                ///< GPU preset name, as `gpu_preset()` accepts it
  int devices = 1;                ///< tensor-parallel degree as the source states it
  int batch = 1;                  ///< prompts in the batch (or concurrency)
  int input_len = 1;              ///< prompt tokens per sequence
  int output_len = 1;             ///< generated tokens per sequence
  measured_metric metric = measured_metric::e2e_latency;
  double value = 0.0;             ///< the published figure, in `unit_of(metric)`
  measurement_set set = measurement_set::check;
  std::string engine;             ///< serving software, version and settings
  std::string precision;          ///< weight precision: BF16, FP16 or FP8
  std::string source;             ///< URL or repository + path
  std::string location;           ///< where in the source the figure is
  std::string unknowns;           ///< what the source leaves open and how the model treats it
  std::size_t line = 0;           ///< line of the file the row came from (0: not from a file)

  /// Bits per weight of `precision`.
  template <class = void>
  [[nodiscard]] int weight_bits() const { return precision == "FP8" ? 8 : 16; }
};

/// Bounds of the reader (file comment).
struct measurements_csv_limits {
  std::size_t max_rows = 4096;   ///< rows per file
  std::size_t max_line = 4096;   ///< bytes per line
  int max_devices = 64;
  int max_batch = 4096;
  int max_input_len = 1 << 20;
  int max_output_len = 1 << 16;
};

namespace detail {
inline constexpr std::array<const char*, 16> measurement_columns{
    "id",     "model",     "gpu", "devices", "batch",     "input_len", "output_len", "metric",
    "value",  "unit",      "set", "engine",  "precision", "source",    "location",   "unknowns"};

[[noreturn]] inline void measurement_fail(std::string_view source, std::size_t line, const std::string& what) {
  std::string at(source);
  at += ':';
  at += std::to_string(line);
  throw config_error(at, "[strata.measurements] " + at + ": " + what);
}
}  // namespace detail

/// Parses measurement rows from `text` (format and bounds in the file comment); `source` names the
/// input in errors. Model and GPU names must be presets, ids unique, units those of the metric.
template <class = void>
inline std::vector<measurement> parse_measurements_csv(std::string_view text, std::string_view source = "<string>",
                                                      const measurements_csv_limits& lim = {}) {
  using detail::measurement_fail;
  namespace csv = detail::csv;
  csv::line_reader lines(text);
  std::vector<std::string_view> cols;
  std::string_view line;
  bool header = false;
  std::vector<measurement> out;
  while (lines.next(line)) {
    const std::size_t n = lines.line_no();
    if (line.size() > lim.max_line) {
      measurement_fail(source, n, "line of " + std::to_string(line.size()) + " bytes exceeds the limit " +
                                      std::to_string(lim.max_line));
    }
    const std::string_view t = csv::trim(line);
    if (t.empty() || t.front() == '#') continue;
    if (t.find('"') != std::string_view::npos) measurement_fail(source, n, "quoted CSV fields are not supported");
    csv::split_csv(t, cols);
    if (!header) {
      bool ok = cols.size() == detail::measurement_columns.size();
      for (std::size_t i = 0; ok && i < cols.size(); ++i) ok = cols[i] == detail::measurement_columns[i];
      if (!ok) {
        measurement_fail(source, n, "header must be id,model,gpu,devices,batch,input_len,output_len,metric,value,unit,"
                                    "set,engine,precision,source,location,unknowns; got " +
                                        csv::quote(t));
      }
      header = true;
      continue;
    }
    if (cols.size() != detail::measurement_columns.size()) {
      measurement_fail(source, n, "expected 16 columns, got " + std::to_string(cols.size()));
    }
    if (out.size() >= lim.max_rows) {
      measurement_fail(source, n, "more than " + std::to_string(lim.max_rows) + " rows");
    }
    measurement m;
    m.line = n;
    auto text_col = [&](std::size_t i, std::string& dst, bool required) {
      if (required && cols[i].empty()) measurement_fail(source, n, std::string(detail::measurement_columns[i]) + " is empty");
      dst.assign(cols[i]);
    };
    auto int_col = [&](std::size_t i, int& dst, int hi) {
      int v = 0;
      if (!csv::parse_number(cols[i], v) || v < 1 || v > hi) {
        measurement_fail(source, n, std::string(detail::measurement_columns[i]) + " must be an integer in [1, " +
                                        std::to_string(hi) + "], got " + csv::quote(cols[i]));
      }
      dst = v;
    };
    text_col(0, m.id, true);
    text_col(1, m.model, true);
    text_col(2, m.gpu, true);
    try {
      m.model = preset(m.model).name;
    } catch (const config_error&) {
      measurement_fail(source, n, "model " + csv::quote(cols[1]) + " is not a preset (strata::preset_names())");
    }
    try {
      (void)gpu_preset(m.gpu);
    } catch (const config_error&) {
      measurement_fail(source, n, "gpu " + csv::quote(cols[2]) + " is not a GPU preset (strata::gpu_preset_names())");
    }
    int_col(3, m.devices, lim.max_devices);
    int_col(4, m.batch, lim.max_batch);
    int_col(5, m.input_len, lim.max_input_len);
    int_col(6, m.output_len, lim.max_output_len);
    bool known = false;
    for (const auto& [e, name] : enum_names(measured_metric{})) {
      if (cols[7] == name) {
        m.metric = e;
        known = true;
      }
    }
    if (!known) {
      measurement_fail(source, n, "metric must be e2e_latency, output_tokens_per_s, tpot or ttft, got " + csv::quote(cols[7]));
    }
    const auto [lo, hi] = measured_value_range(m.metric);
    if (!csv::parse_number(cols[8], m.value) || !std::isfinite(m.value) || !(m.value >= lo && m.value <= hi)) {
      measurement_fail(source, n, std::string("value of ") + to_string(m.metric) + " must be a number in [" +
                                      detail::to_text(lo) + ", " + detail::to_text(hi) + "] " + unit_of(m.metric) +
                                      " (strata::measured_value_range), got " + csv::quote(cols[8]));
    }
    if (cols[9] != unit_of(m.metric)) {
      measurement_fail(source, n, std::string("unit of ") + to_string(m.metric) + " must be " + unit_of(m.metric) +
                                      ", got " + csv::quote(cols[9]));
    }
    if (cols[10] == "fit") {
      m.set = measurement_set::fit;
    } else if (cols[10] == "check") {
      m.set = measurement_set::check;
    } else {
      measurement_fail(source, n, "set must be fit or check, got " + csv::quote(cols[10]));
    }
    text_col(11, m.engine, true);
    text_col(12, m.precision, true);
    if (m.precision != "BF16" && m.precision != "FP16" && m.precision != "FP8") {
      measurement_fail(source, n, "precision must be BF16, FP16 or FP8, got " + csv::quote(cols[12]));
    }
    text_col(13, m.source, true);
    text_col(14, m.location, true);
    text_col(15, m.unknowns, false);
    for (const auto& o : out) {
      if (o.id == m.id) measurement_fail(source, n, "id " + csv::quote(m.id) + " repeats line " + std::to_string(o.line));
    }
    out.push_back(std::move(m));
  }
  if (!header) measurement_fail(source, lines.line_no(), "no header line");
  if (out.empty()) measurement_fail(source, lines.line_no(), "no measurement rows");
  return out;
}

/// Reads a measurement file under the opening rule (`core/files.hpp`): a regular file within
/// `limits().measurement_file_bytes`; throws `config_error` naming the file and its role
/// (`"measurements"`) if it cannot be read, or naming `path`:line for a bad line.
template <class = void>
inline std::vector<measurement> read_measurements_csv(const std::string& path, const measurements_csv_limits& lim = {}) {
  const std::string text = read_input_file(path, "measurements", limits().measurement_file_bytes, "measurement_file_bytes");
  return parse_measurements_csv(text, path, lim);
}

}  // namespace v0
}  // namespace strata
