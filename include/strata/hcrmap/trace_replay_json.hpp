// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// The trace replay (`trace_replay.hpp`) as JSON, for `strata-eval hcrmap --json` (plain SI
/// numbers, keys naming their unit), and as a text table (`print_replay`). The io header of the
/// replay: the only one that includes nlohmann/json (through strata/core/json.hpp) or streams.
///
/// \code{.json}
/// { "model": "DeepSeek-V2-Lite", "mode": "decode", "tokens": 1859, "profile_tokens": 940,
///   "evaluation_tokens": 919, "windows": 16, "window_tokens": 512, "context": 2048,
///   "sequences_reused": false, "packages": 2, "evaluated_layers": [2, 7, ...],
///   "non_routed_s": 0.011, "value": "greedy", "note": "...",
///   "policies": [ { "policy": "static", "latency_s": ..., "energy_J": ..., "edp_J_s": ...,
///                   "normalised": { "latency": 1, "energy": 1, "edp": 1 },
///                   "moe_s": ..., "stages_s": { "gate": ..., "dispatch": ..., "queue": ...,
///                   "memory": ..., "compute": ..., "gather": ..., "combine": ... },
///                   "dram_stream_bytes_B": ..., "hbm_stream_bytes_B": ..., "edits": 0,
///                   "controller_edits": { "promotes": 0, "demotes": 0, "evictions": 0,
///                                         "total": 0, "published": 0, "moves": 0 },
///                   "e2e_s": [ ... per served window ... ], "violations": 0 }, ... ],
///   "order": "split" }
/// \endcode
///
/// With `"order": "file"` (the task-switch workload) the JSON also has `"window_task"`: per served
/// window, the task holding most of its tokens; the text table then adds each policy's mean T_E2E
/// over the windows of each task.

#include <algorithm>  // std::find
#include <cstddef>  // std::size_t
#include <iomanip>  // std::setw, std::setprecision
#include <ios>      // std::fixed
#include <ostream>  // std::ostream
#include <sstream>  // std::ostringstream
#include <string>   // std::string, std::to_string
#include <vector>   // std::vector

#include "strata/core/json.hpp"
#include "strata/hcrmap/trace_replay.hpp"

namespace strata {
inline namespace v0 {

/// `r` as the JSON of the file comment.
template <class = void>
inline json replay_json(const replay_result& r) {
  json j;
  j["model"] = r.model;
  j["mode"] = r.mode == phase::prefill ? "prefill" : "decode";
  j["tokens"] = r.tokens;
  j["profile_tokens"] = r.profile_tokens;
  j["evaluation_tokens"] = r.evaluation_tokens;
  j["windows"] = r.windows;
  j["window_tokens"] = r.window_tokens;
  j["context"] = r.context;
  j["sequences_reused"] = r.sequences_reused;
  j["packages"] = r.packages;
  j["evaluated_layers"] = r.evaluated_layers;
  j["non_routed_s"] = r.non_routed_s;
  j["value"] = r.value;
  j["note"] = r.note;
  j["order"] = r.order == replay_order::file ? "file" : "split";
  if (r.order == replay_order::file) j["window_task"] = r.window_task;
  j["policies"] = json::array();
  for (const auto& p : r.policies) {
    json q;
    q["policy"] = to_string(p.policy);
    q["latency_s"] = p.latency_s;
    q["energy_J"] = p.energy_j;
    q["edp_J_s"] = p.edp;
    q["normalised"] = {{"latency", p.normalised_latency}, {"energy", p.normalised_energy}, {"edp", p.normalised_edp}};
    q["moe_s"] = p.moe_s;
    const auto& t = p.stages;
    q["stages_s"] = {{"gate", t.gate.si()},       {"dispatch", t.dispatch.si()}, {"queue", t.queue.si()},
                     {"memory", t.memory.si()},   {"compute", t.compute.si()},   {"gather", t.gather.si()},
                     {"combine", t.combine.si()}};
    q["dram_stream_bytes_B"] = p.dram_stream_bytes;
    q["hbm_stream_bytes_B"] = p.hbm_stream_bytes;
    q["edits"] = p.edits;
    const auto& c = p.controller_edits;
    q["controller_edits"] = {{"promotes", c.promotes},   {"demotes", c.demotes},     {"evictions", c.evictions},
                             {"total", c.total()},       {"published", c.published}, {"moves", c.moves}};
    q["e2e_s"] = p.e2e_s;
    q["violations"] = p.violations;
    j["policies"].push_back(std::move(q));
  }
  return j;
}

/// `r` as JSON text, pretty-printed with `indent` spaces.
template <class = void>
inline std::string replay_json_text(const replay_result& r, int indent = 2) { return dump_json(replay_json(r), indent); }

/// The replay as a text table: one row per policy (latency, energy, EDP, each also normalised to
/// single-copy static; DRAM and HBM streaming bytes; edits while serving, and promotes/demotes/
/// evictions), then the stage attribution of each policy's routed time; in file order, each
/// policy's mean T_E2E over the windows of each task.
template <class = void>
inline void print_replay(std::ostream& os, const replay_result& r) {
  std::ostringstream o;
  const bool file = r.order == replay_order::file;
  o << "HCRMap replay: " << r.model << ", " << (r.mode == phase::prefill ? "prefill" : "decode") << ", " << r.tokens
    << " tokens (" << r.profile_tokens << (file ? " warm-up, " : " profile, ") << r.evaluation_tokens << " served"
    << (file ? ", file order" : "") << "), " << r.windows << " windows of "
    << r.window_tokens << " tokens"
    << (r.mode == phase::decode ? " (context " + std::to_string(r.context) + (r.sequences_reused ? ", sequences reused)" : ")") : std::string())
    << ", " << r.packages << " package(s), " << r.evaluated_layers.size() << " evaluated MoE layers; HCRMap value: " << r.value
    << "\n";
  if (!r.note.empty()) o << "note: " << r.note << "\n";
  o << std::left << std::setw(20) << "policy" << std::right << std::setw(13) << "latency_ms" << std::setw(8) << "norm"
    << std::setw(12) << "energy_mJ" << std::setw(8) << "norm" << std::setw(12) << "EDP_mJs" << std::setw(8) << "norm"
    << std::setw(12) << "DRAM_MB" << std::setw(12) << "HBM_MB" << std::setw(7) << "edits" << std::setw(12) << "prom/dem/ev"
    << "\n";
  o << std::fixed;
  for (const auto& p : r.policies) {
    o << std::left << std::setw(20) << to_string(p.policy) << std::right << std::setprecision(4) << std::setw(13)
      << p.latency_s * 1e3 << std::setprecision(3) << std::setw(8) << p.normalised_latency << std::setprecision(3)
      << std::setw(12) << p.energy_j * 1e3 << std::setw(8) << p.normalised_energy << std::setw(12) << p.edp * 1e3
      << std::setw(8) << p.normalised_edp << std::setprecision(1) << std::setw(12) << p.dram_stream_bytes / 1e6
      << std::setw(12) << p.hbm_stream_bytes / 1e6 << std::setw(7) << p.edits << std::setw(12)
      << (std::to_string(p.controller_edits.promotes) + "/" + std::to_string(p.controller_edits.demotes) + "/" +
          std::to_string(p.controller_edits.evictions))
      << "\n";
  }
  o << "\nrouted-time stage attribution (ms per window, critical groups, Fig. 5)\n";
  o << std::left << std::setw(20) << "policy" << std::right;
  for (const char* h : {"gate", "dispatch", "queue", "memory", "compute", "gather", "combine"}) o << std::setw(10) << h;
  o << "\n" << std::setprecision(4);
  for (const auto& p : r.policies) {
    const auto& t = p.stages;
    o << std::left << std::setw(20) << to_string(p.policy) << std::right;
    for (const auto& d : {t.gate, t.dispatch, t.queue, t.memory, t.compute, t.gather, t.combine}) o << std::setw(10) << d.si() * 1e3;
    o << "\n";
  }
  if (file) {
    // Tasks in the order they are first served.
    std::vector<std::string> tasks;
    for (const auto& t : r.window_task) {
      if (std::find(tasks.begin(), tasks.end(), t) == tasks.end()) tasks.push_back(t);
    }
    o << "\nmean T_E2E (ms) over the windows of each task, in file order\n" << std::left << std::setw(20) << "policy"
      << std::right;
    for (const auto& t : tasks) o << std::setw(14) << (t.empty() ? std::string("-") : t);
    o << "\n";
    for (const auto& p : r.policies) {
      o << std::left << std::setw(20) << to_string(p.policy) << std::right;
      for (const auto& t : tasks) {
        double sum = 0.0;
        int n = 0;
        for (std::size_t w = 0; w < r.window_task.size() && w < p.e2e_s.size(); ++w) {
          if (r.window_task[w] == t) sum += p.e2e_s[w], ++n;
        }
        o << std::setw(14) << (n > 0 ? sum / n * 1e3 : 0.0);
      }
      o << "\n";
    }
  }
  os << o.str();
}

}  // namespace v0
}  // namespace strata
