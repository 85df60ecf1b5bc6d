// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Input limits and checked integer arithmetic (bad input is a clear error, never a wrong number): every number read from
/// outside (a JSON file, a Hugging Face `config.json`, a CSV trace or count table) is range-checked
/// before it sizes an allocation or enters integer arithmetic.
///
/// A reader sizes what it allocates by what the input actually contains (the largest expert id
/// seen, the number of rows present), and checks that size against a limit here before it
/// allocates. Exceeding a limit is a `config_error` that names the field and the limit, e.g.
/// `[strata.hf_config] config.json: num_hidden_layers must be an integer in [1, 1024]
/// (strata::limits().layers), got 1000000`.
///
/// The defaults are far above every published model (the largest dimension of the eleven presets
/// is DeepSeek-V3's 129 280-entry vocabulary; the most layers, Qwen2.5-32B's 64) and small enough
/// that a hostile file cannot make strata use more than a few hundred MB or overflow a 64-bit
/// byte or parameter count without an error. Adjust them once, before reading, with
/// `strata::limits().layers = 4096;` (process-wide; not synchronised: set them before reading
/// from several threads).
///
/// Quantities (`"460 GB/s"`) are accepted when their SI magnitude is 0 or within
/// [`quantity_min`, `quantity_max`] = [1e-24, 1e24]: the smallest physical input of strata is an
/// attofarad-scale capacitance (1e-18 F), the largest a petabyte-scale capacity (1e15 B), and any
/// product or quotient of a few such values stays finite in a double.
///
/// `checked_mul` and `checked_add` are the 64-bit integer arithmetic for sizes built from input
/// (parameter counts, table cells): they throw `config_error` naming the field instead of wrapping.

#include <cmath>    // std::isfinite
#include <cstdint>  // std::int64_t
#include <limits>   // std::numeric_limits
#include <string>   // std::string, std::to_string

#include "strata/core/error.hpp"

namespace strata {
inline namespace v0 {

/// Upper bounds on what an input may ask for (see the file comment). All are inclusive.
struct input_limits {
  /// Nesting depth of a JSON document (objects and arrays). strata's own files nest at most 4.
  int json_depth = 64;
  /// Decoder layers of a model (published MoE models: at most 126).
  int layers = 1024;
  /// Hidden size d (published: at most 25 600).
  int hidden = 1 << 17;
  /// Any FFN intermediate size, dense, routed or shared expert (published: at most 53 248).
  int ffn = 1 << 20;
  /// Routed experts per layer, top-k and shared experts (also the expert-id range of traces).
  int experts = 65536;
  /// Attention and key/value heads (published: at most 128).
  int heads = 1 << 14;
  /// A head dimension, MHA/GQA or MLA (rope, nope, value) (published: at most 256).
  int head_dim = 1 << 14;
  /// Vocabulary size (published: at most 256 000).
  int vocab = 1 << 22;
  /// An MLA low rank, kv_lora_rank or q_lora_rank (DeepSeek-V3: 1536).
  int rank = 1 << 17;
  /// Independently serving banks of one memory tier.
  int banks = 1 << 16;
  /// Expert ids held by one routing trace, tokens × layers × k (2 bytes each: 512 MiB).
  std::int64_t trace_ids = std::int64_t{1} << 28;
  /// Cells of the count and transition tables one read may allocate (8 bytes each: 32 MiB; the
  /// OLMoE/Mixtral transition file holds 41 600, a 2048-expert matrix 4 194 304).
  std::int64_t table_cells = std::int64_t{1} << 22;
  /// Bytes of one input file, by kind (`core/files.hpp`: every reader opens through
  /// `read_input_file`, which refuses larger files before reading them). A JSON document: a
  /// config.json, machine, parameter set, scenario or serving scenario (the largest of strata's
  /// own is 58 kB).
  std::int64_t json_file_bytes = std::int64_t{64} << 20;
  /// A routing-trace CSV (the ESFT intent trace is 3.7 MB; 1 GiB of text holds about the
  /// `trace_ids` expert ids at three to four bytes each).
  std::int64_t trace_file_bytes = std::int64_t{1} << 30;
  /// A count or transition table CSV (`table_cells` cells at about ten bytes each).
  std::int64_t table_file_bytes = std::int64_t{64} << 20;
  /// A GPU measurement CSV (the published set is 12 kB).
  std::int64_t measurement_file_bytes = std::int64_t{4} << 20;
  /// A DQN checkpoint (the shipped one is 50 kB; the largest network the reader accepts is a
  /// few MB of text).
  std::int64_t checkpoint_file_bytes = std::int64_t{64} << 20;
  /// A HotSpot input file: floorplan (.flp), power trace (.ptrace), configuration (.config) or
  /// layer file (.lcf) (HotSpot's shipped gcc.ptrace is 10 kB, its largest floorplan 2 kB).
  std::int64_t thermal_file_bytes = std::int64_t{64} << 20;
  /// Blocks of one floorplan (the EV6 floorplan has 30; the block model solves a dense
  /// neighbour search over pairs of blocks, so this bounds that work at 16 M pairs).
  int thermal_blocks = 4096;
  /// Rows of one power trace (gcc.ptrace has 100; one value per block per row).
  std::int64_t thermal_trace_cells = std::int64_t{1} << 24;
  /// Layers of one stack (.lcf) (HotSpot's 3D EV6 example has 6).
  int thermal_layers = 64;
  /// Nodes of one thermal network, grid rows x columns x layers plus the package (a 64 x 64 grid
  /// of 8 layers is 32 768; each node costs a few hundred bytes in the sparse factorisation).
  std::int64_t thermal_nodes = std::int64_t{1} << 20;
  /// Largest SI magnitude of a quantity read from JSON or held by a memory tier.
  double quantity_max = 1e24;
  /// Smallest non-zero SI magnitude of a quantity read from JSON or held by a memory tier.
  double quantity_min = 1e-24;
};

/// The process-wide limits every reader checks (adjustable; see the file comment).
template <class = void>
inline input_limits& limits() {
  static input_limits l;
  return l;
}

namespace detail {

/// a · b for sizes from input; throws `config_error` naming `field` if it does not fit 64 bits.
template <class = void>
inline std::int64_t checked_mul(std::int64_t a, std::int64_t b, const char* model, const field_path& path) {
  std::int64_t r = 0;
#if defined(__GNUC__) || defined(__clang__)
  const bool overflow = __builtin_mul_overflow(a, b, &r);
#else
  constexpr std::int64_t hi = std::numeric_limits<std::int64_t>::max();
  constexpr std::int64_t lo = std::numeric_limits<std::int64_t>::min();
  bool overflow = false;
  if (a != 0 && b != 0) {
    if (a > 0) overflow = b > 0 ? a > hi / b : b < lo / a;
    else overflow = b > 0 ? a < lo / b : a < hi / b;
  }
  if (!overflow) r = a * b;
#endif
  if (overflow) {
    const std::string field = path.str();
    throw config_error(field, std::string("[") + model + "] " + field + ": " + std::to_string(a) + " * " +
                                  std::to_string(b) + " overflows a 64-bit integer (expected a size below 2^63)");
  }
  return r;
}

/// a + b for sizes from input; throws `config_error` naming `field` if it does not fit 64 bits.
template <class = void>
inline std::int64_t checked_add(std::int64_t a, std::int64_t b, const char* model, const field_path& path) {
  constexpr std::int64_t hi = std::numeric_limits<std::int64_t>::max();
  constexpr std::int64_t lo = std::numeric_limits<std::int64_t>::min();
  if ((b > 0 && a > hi - b) || (b < 0 && a < lo - b)) {
    const std::string field = path.str();
    throw config_error(field, std::string("[") + model + "] " + field + ": " + std::to_string(a) + " + " +
                                  std::to_string(b) + " overflows a 64-bit integer (expected a size below 2^63)");
  }
  return a + b;
}

/// Throws `config_error` "<field> <what> exceeds the limit <limit> (strata::limits().<name>)"
/// unless `n <= limit`.
template <class = void>
inline void require_within_limit(std::int64_t n, std::int64_t limit, const char* limit_name, const char* model,
                                 const field_path& path, const char* what) {
  if (n > limit) {
    const std::string field = path.str();
    throw config_error(field, std::string("[") + model + "] " + field + ": " + what + " " + std::to_string(n) +
                                  " exceeds the limit " + std::to_string(limit) + " (strata::limits()." +
                                  limit_name + ")");
  }
}

/// Requires a finite value that is 0 or of magnitude in [limits().quantity_min, quantity_max].
template <class T>
void require_magnitude(const T& x, const char* model, const field_path& path, const char* unit = "") {
  const double v = value_of(x);
  const double a = v < 0 ? -v : v;
  const input_limits& l = limits();
  if (!(std::isfinite(v) && (a == 0.0 || (a >= l.quantity_min && a <= l.quantity_max)))) {
    const std::string field = path.str();
    throw config_error(field, std::string("[") + model + "] " + field + " must be 0 or of magnitude in [" +
                                  to_text(l.quantity_min) + ", " + to_text(l.quantity_max) +
                                  "] (strata::limits().quantity_min/max), got " + to_text(v) + (*unit ? " " : "") +
                                  unit);
  }
}

}  // namespace detail
}  // namespace v0
}  // namespace strata
