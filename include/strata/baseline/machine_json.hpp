// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// A machine named by a preset or read from a machine file: the one loader of `strata-eval eval
/// --machine` and of a serving scenario's `gpu.name` / `machines[i].name`
/// (`serving/serving_json.hpp`).
///
/// A machine file is a JSON object holding either
/// - a `gpu_params` object (`baseline/gpu.hpp`): one card, every key optional (a missing key keeps
///   the H100 SXM5 default it has in `gpu_params`), quantities with units (`"3.35 TB/s"`); the
///   caller picks how many cards serve (tensor or expert parallelism, `make_machine`); or
/// - a `roofline_machine` object (`workload/roofline.hpp`): a whole machine with its memory tiers,
///   recognised by its `"tiers"` key (its `devices` is the device count).
///
/// Reading follows the library's rules: the file is opened by `read_input_file` (a regular file of
/// at most `limits().json_file_bytes`, else a `config_error` naming the role and the file), parsed
/// by `parse_json` (nesting bounded by `limits().json_depth`, numbers within a double), read field
/// by field (unknown keys, bare numbers for quantities, wrong units and out-of-range magnitudes are
/// errors naming the JSON path) and validated (`validate(gpu_params)`, `validate(roofline_machine)`).
/// Every error is a `config_error` whose message starts with the file's name; its `field()` is the
/// JSON path inside the file (the caller prefixes its own key, e.g. `machines[1].name`).
///
/// \code
///   const strata::loaded_machine a = strata::load_machine("h100_sxm5");          // a preset
///   const strata::loaded_machine b = strata::load_machine("cards/h100_nvl.json"); // a gpu_params file
///   if (b.gpu) { const auto m = strata::make_machine(*b.gpu, 2); }
/// \endcode

#include <cctype>        // std::tolower, preset names folded
#include <filesystem>    // std::filesystem::exists (a preset name or a file)
#include <optional>      // std::optional, the card of a GPU machine
#include <string>        // std::string
#include <string_view>   // std::string_view
#include <system_error>  // std::error_code
#include <utility>       // std::move
#include <vector>        // std::vector, the caller's other accepted names

#include "strata/baseline/baseline_gpu.hpp"
#include "strata/baseline/gpu.hpp"
#include "strata/baseline/gpu_knob_set.hpp"
#include "strata/core/error.hpp"
#include "strata/core/files.hpp"
#include "strata/core/json.hpp"
#include "strata/core/limits.hpp"
#include "strata/workload/roofline.hpp"

namespace strata {
inline namespace v0 {

/// A machine from a preset or a file: a GPU card (`gpu` set) or a ready roofline machine.
struct loaded_machine {
  std::optional<gpu_params> gpu;  ///< the card: a GPU preset or a gpu_params file; empty for a roofline_machine file
  std::string preset;             ///< the GPU preset's name (`gpu_preset_names`); empty for a file
  roofline_machine machine;       ///< a roofline_machine file's machine (meaningful when `gpu` is empty)

  /// Whether the machine came from a file rather than a preset.
  [[nodiscard]] bool from_file() const { return preset.empty(); }
};

/// The GPU preset `name` names (case-insensitive, '-' and '_' the same), as `gpu_preset_names`
/// spells it; empty when it names none.
template <class = void>
inline std::string gpu_preset_named(std::string_view name) {
  const auto fold = [](char c) { return c == '-' ? '_' : static_cast<char>(std::tolower(static_cast<unsigned char>(c))); };
  for (const auto& n : gpu_preset_names()) {
    if (n.size() != name.size()) continue;
    bool same = true;
    for (std::size_t i = 0; i < n.size() && same; ++i) same = fold(n[i]) == fold(name[i]);
    if (same) return n;
  }
  return {};
}

/// A machine from the JSON text of a machine file (file comment); `source` names the file in
/// errors. Throws `config_error` whose field is the JSON path in the file.
template <class = void>
inline loaded_machine parse_machine_json(std::string_view text, const std::string& source) {
  // Depth-limited; invalid JSON and numbers beyond a double name the source and the JSON path.
  const json j = parse_json(text, source);
  loaded_machine m;
  try {
    if (j.is_object() && j.contains("tiers")) {
      m.machine = from_json_at<roofline_machine>(j);
      validate(m.machine);
    } else {
      m.gpu = from_json_at<gpu_params>(j);
      validate(*m.gpu);
    }
  } catch (const config_error& e) {
    throw config_error(e.field(), source + ": " + e.what());
  }
  return m;
}

/// The machine file at `path` (`read_input_file`: a regular file of at most
/// `limits().json_file_bytes`; `role` names it in that rule's errors).
template <class = void>
inline loaded_machine load_machine_file(const std::string& path, const std::string& role = "machine") {
  return parse_machine_json(read_input_file(path, role, limits().json_file_bytes, "json_file_bytes"), path);
}

/// A GPU preset name (with its `knobs`, `baseline_gpu`) or a machine file's path. A file's knobs
/// are taken as written: `knobs` other than the cited set with a file is a `config_error` naming
/// `knobs`. A name that is no preset and no file is a `config_error` naming `role`, listing the
/// presets (and `also_accepted`, the caller's other names, when given).
template <class = void>
inline loaded_machine load_machine(const std::string& arg, gpu_knob_set knobs = default_gpu_knobs,
                                   const std::string& role = "machine",
                                   const std::vector<std::string>& also_accepted = {}) {
  if (std::string n = gpu_preset_named(arg); !n.empty()) {
    loaded_machine m;
    m.gpu = baseline_gpu(gpu_preset(n), knobs);
    m.preset = std::move(n);
    return m;
  }
  std::error_code ec;
  if (!std::filesystem::exists(arg, ec)) {
    std::string list;
    for (const auto& n : gpu_preset_names()) list += n + ", ";
    for (const auto& n : also_accepted) list += n + ", ";
    throw config_error(role, "unknown " + role + " preset " + detail::quoted_path(arg) + " and no such file (presets: " +
                                 list + "'-' = '_')");
  }
  if (knobs != gpu_knob_set::cited) {
    throw config_error("knobs", "[strata.machine] knobs apply to a GPU preset, not to the machine file " +
                                    detail::quoted_path(arg) + " (its knobs are taken as written)");
  }
  return load_machine_file(arg, role);
}

}  // namespace v0
}  // namespace strata
