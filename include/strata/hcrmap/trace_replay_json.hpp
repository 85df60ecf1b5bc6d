// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// The trace replay (`trace_replay.hpp`) as JSON, for `strata-eval hcrmap --json`: plain SI
/// numbers, keys naming their unit. The only trace-replay header that includes nlohmann/json,
/// through strata/core/json.hpp.
///
/// \code{.json}
/// { "model": "DeepSeek-V2-Lite", "mode": "decode", "tokens": 1859, "profile_tokens": 940,
///   "evaluation_tokens": 919, "windows": 16, "packages": 2, "evaluated_layers": [2, 7, ...],
///   "non_routed_s": 0.011, "value": "greedy", "note": "...",
///   "policies": [ { "policy": "static", "latency_s": ..., "energy_j": ..., "edp_js": ...,
///                   "normalised": { "latency": 1, "energy": 1, "edp": 1 },
///                   "moe_s": ..., "stages_s": { "gate": ..., "dispatch": ..., "queue": ...,
///                   "memory": ..., "compute": ..., "gather": ..., "combine": ... },
///                   "dram_stream_bytes": ..., "hbm_stream_bytes": ..., "edits": 0,
///                   "violations": 0 }, ... ] }
/// \endcode

#include <string>  // std::string

#include "strata/core/json.hpp"
#include "strata/hcrmap/trace_replay.hpp"

namespace strata {
inline namespace v0 {

/// `r` as the JSON of the file comment.
inline json replay_json(const replay_result& r) {
  json j;
  j["model"] = r.model;
  j["mode"] = r.mode == phase::prefill ? "prefill" : "decode";
  j["tokens"] = r.tokens;
  j["profile_tokens"] = r.profile_tokens;
  j["evaluation_tokens"] = r.evaluation_tokens;
  j["windows"] = r.windows;
  j["packages"] = r.packages;
  j["evaluated_layers"] = r.evaluated_layers;
  j["non_routed_s"] = r.non_routed_s;
  j["value"] = r.value;
  j["note"] = r.note;
  j["policies"] = json::array();
  for (const auto& p : r.policies) {
    json q;
    q["policy"] = to_string(p.policy);
    q["latency_s"] = p.latency_s;
    q["energy_j"] = p.energy_j;
    q["edp_js"] = p.edp;
    q["normalised"] = {{"latency", p.normalised_latency}, {"energy", p.normalised_energy}, {"edp", p.normalised_edp}};
    q["moe_s"] = p.moe_s;
    const auto& t = p.stages;
    q["stages_s"] = {{"gate", t.gate.si()},       {"dispatch", t.dispatch.si()}, {"queue", t.queue.si()},
                     {"memory", t.memory.si()},   {"compute", t.compute.si()},   {"gather", t.gather.si()},
                     {"combine", t.combine.si()}};
    q["dram_stream_bytes"] = p.dram_stream_bytes;
    q["hbm_stream_bytes"] = p.hbm_stream_bytes;
    q["edits"] = p.edits;
    q["violations"] = p.violations;
    j["policies"].push_back(std::move(q));
  }
  return j;
}

/// `r` as JSON text, pretty-printed with `indent` spaces.
inline std::string replay_json_text(const replay_result& r, int indent = 2) { return replay_json(r).dump(indent); }

}  // namespace v0
}  // namespace strata
