// strata-eval: what the subcommands share (one file per subcommand, parsed with CLI11).
//
// A subcommand file defines `command add_<name>(CLI::App& app)`: it adds its CLI::App subcommand
// with options bound to its own state and returns how to run it once parsed. main.cpp registers
// the subcommands, parses, and maps errors to exit statuses: 0 success, 2 a command line that
// cannot be parsed, 1 an input that cannot be loaded or evaluated (config_error and the like).
#pragma once

#include <cctype>      // std::tolower
#include <charconv>    // std::from_chars
#include <cmath>       // std::isfinite
#include <cstdio>      // std::snprintf
#include <filesystem>  // std::filesystem::is_regular_file
#include <functional>  // std::function
#include <iostream>    // std::cout
#include <string>      // std::string
#include <system_error>  // std::errc
#include <utility>     // std::move
#include <vector>      // std::vector

#include <CLI/CLI.hpp>

#include "data_location.hpp"  // strata_programs::find_data
#include "strata/baseline/coverage.hpp"
#include "strata/core/data_dir.hpp"
#include "strata/core/error.hpp"
#include "strata/core/files.hpp"
#include "strata/core/json.hpp"
#include "strata/core/json_plain.hpp"
#include "strata/workload/hf_config.hpp"
#include "strata/workload/presets.hpp"

namespace strata_eval {

// A command-line problem found after parsing (options that contradict each other): exit status 2.
struct usage_error {
  std::string what;
};

// A parsed subcommand: its CLI11 node and what runs it (returns the exit status).
struct command {
  CLI::App* app = nullptr;
  std::function<int()> run;
};

// Preset name comparison: case-insensitive, '-' and '_' equal (h100-sxm5 is h100_sxm5).
inline bool same_name(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  const auto fold = [](char c) { return c == '_' ? '-' : std::tolower(static_cast<unsigned char>(c)); };
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (fold(a[i]) != fold(b[i])) return false;
  }
  return true;
}

// A command-line value quoted for a message, the one form of every strata-eval message: a long
// value is shortened in the middle and keeps its tail, so a path's file name always shows
// (strata::detail::quoted_path).
inline std::string quoted(const std::string& s) { return strata::detail::quoted_path(s); }

inline bool is_file(const std::string& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec);
}

// True if something exists at `path` (a file, a directory, a device, a FIFO): a probe that opens
// nothing, so the reader's opening rule (strata/core/files.hpp) decides and names what it refuses.
inline bool path_exists(const std::string& path) {
  std::error_code ec;
  return std::filesystem::exists(path, ec);
}

// A file named on the command line (`run`'s and `serve`'s scenario, `plot`'s files, `thermal`'s
// inputs, a config.json `--model`): in the working directory, else in the data directory
// (`data_dir_option`: --data-dir, else STRATA_DATA_DIR, else the installed share/strata), where a
// source-tree name such as `examples/scenarios/x.json` is also looked for under its installed name
// (strata::resolve_input_path), so README's and docs/' commands run from an installed prefix.
inline std::string input_arg(const std::string& path, const std::string& data_dir_option = {}) {
  return strata::resolve_input_path(path, ".", strata_programs::find_data(data_dir_option).dir);
}

// A model and the config keys its reader ignored although they may change cost (a preset: the
// keys of the config it was written from, strata::preset_ignored_keys).
struct loaded_model {
  strata::model m;
  std::vector<std::string> ignored_keys;
};

// --model: a preset name (case-insensitive) or a Hugging Face config.json (read under the opening
// rule: a directory, device or FIFO is refused naming it). The reader's warnings go to stderr.
inline loaded_model load_model_with_keys(const std::string& arg) {
  for (const auto& n : strata::preset_names()) {
    if (same_name(n, arg)) return {strata::preset(n), strata::preset_ignored_keys(n)};
  }
  if (const std::string path = input_arg(arg); path_exists(path)) {
    strata::hf_read_result r = strata::load_hf_config_with_warnings(path);
    for (const auto& w : r.warnings) std::cerr << "strata-eval: warning: " << w.message << "\n";
    return {std::move(r.m), strata::warning_keys(r.warnings)};
  }
  std::string list;
  for (const auto& n : strata::preset_names()) list += (list.empty() ? "" : ", ") + n;
  throw strata::config_error("model", "unknown model preset " + quoted(arg) + " and no such file (presets: " + list + ")");
}

inline strata::model load_model(const std::string& arg) { return load_model_with_keys(arg).m; }

inline std::string num(double v, const char* fmt = "%.4g") {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

// "25.50 GB", "268.6 MB": decimal prefixes.
inline std::string bytes_text(double b) {
  const char* u[] = {"B", "kB", "MB", "GB", "TB"};
  int i = 0;
  while (b >= 1000.0 && i < 4) {
    b /= 1000.0;
    ++i;
  }
  return num(b, "%.4g") + " " + u[i];
}

inline std::string time_text(double s) {
  if (s >= 1.0) return num(s, "%.4g") + " s";
  if (s >= 1e-3) return num(s * 1e3, "%.4g") + " ms";
  return num(s * 1e6, "%.4g") + " us";
}

inline std::string pad(std::string s, std::size_t w, bool right = false) {
  if (s.size() >= w) return s;
  return right ? std::string(w - s.size(), ' ') + s : s + std::string(w - s.size(), ' ');
}

// --json [--units display|si] output. Names come from files and the command line: invalid UTF-8
// is replaced (U+FFFD), not fatal. The document is converted in place and streamed: its tree is
// the only copy held (a caller moves it in).
inline void print_json(strata::json&& j, strata::json_units units) {
  strata::convert_units(j, units);
  strata::dump_json(std::cout, j, 2);
  std::cout << "\n";
}

// --units: display or si, with --json only.
inline CLI::Option* add_units_option(CLI::App& app, std::string& units, CLI::Option* json_flag) {
  return app
      .add_option("--units", units,
                  "with --json: display (quantities as strings with units) or si (plain numbers in SI units, "
                  "each such key suffixed by its unit, e.g. weight_bytes_B)")
      ->check(CLI::IsMember({"display", "si"}))
      ->needs(json_flag)
      ->default_str("display");
}

inline strata::json_units units_of(const std::string& s) {
  return s == "si" ? strata::json_units::si : strata::json_units::display;
}

// Numbers on the command line are decimal and finite. CLI11 reads an integer with strtoll base 0
// (010 is 8, 0x10 is 16; newer versions also 0b1, 0o7 and digit separators) and a real with
// strtold (nan, inf, " 5", hex floats; a NaN passes CLI::Range). So every integer option takes
// digits without a leading zero, with a leading '-' only where its type is signed ("0", "17",
// "-3"; not "010", "0x10", "0b1", "+5", "-0", " 5"), and every real option a finite decimal
// number (std::from_chars: not "nan", "inf", "+0.5", " 0.5", "0x1p-2"). The error names the
// option (CLI11: "--batch: ..."), exit status 2.
inline std::string decimal_integer_error(const std::string& v, bool is_signed) {
  const std::size_t digits = !v.empty() && v.front() == '-' && is_signed ? 1 : 0;
  bool ok = v.size() > digits && (v[digits] != '0' || v.size() == digits + 1) && !(digits == 1 && v == "-0");
  for (std::size_t i = digits; ok && i < v.size(); ++i) ok = v[i] >= '0' && v[i] <= '9';
  if (ok) return {};
  return "must be a decimal integer (digits" + std::string(is_signed ? " after an optional '-'" : "") +
         ", no leading zero, sign '+', spaces or base prefix such as 0x), got " + quoted(v);
}

inline std::string finite_number_error(const std::string& v) {
  double x = 0.0;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  if (!v.empty() && ec == std::errc{} && end == v.data() + v.size() && std::isfinite(x)) return {};
  return "must be a finite decimal number (not nan or inf; no sign '+', spaces or hex), got " + quoted(v);
}

// Adds the checks above, ahead of every other check, to every integer and real option of `app`
// and of its subcommands (by CLI11's type name: INT, UINT, FLOAT).
inline void strict_numbers(CLI::App& app) {
  for (CLI::Option* o : app.get_options()) {
    const std::string type = o->get_type_name();
    const std::string base = type.substr(0, type.find(':'));
    if (base == "INT" || base == "UINT") {
      const bool is_signed = base == "INT";
      o->transform(CLI::Validator([is_signed](std::string& v) { return decimal_integer_error(v, is_signed); }, ""));
    } else if (base == "FLOAT") {
      o->transform(CLI::Validator([](std::string& v) { return finite_number_error(v); }, ""));
    }
  }
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) strict_numbers(*sub);
}

// The subcommands (one file each).
command add_eval(CLI::App& app);
command add_list(CLI::App& app);
command add_validate(CLI::App& app);
command add_serve(CLI::App& app);
command add_run(CLI::App& app);
command add_plot(CLI::App& app);
command add_sensitivity(CLI::App& app);
command add_hcrmap(CLI::App& app);
command add_thermal(CLI::App& app);
command add_explain(CLI::App& app);

}  // namespace strata_eval
