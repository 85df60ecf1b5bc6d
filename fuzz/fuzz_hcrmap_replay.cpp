// SPDX-License-Identifier: MIT
// Fuzz target: the HCRMap trace replay (strata/hcrmap/trace_replay.hpp, `strata-eval hcrmap
// --trace`) on a fuzzed small trace. The input is a routing trace (seq,pos,L1..LN), read with
// parse_trace_csv; the first byte picks the phase, which policies run, and (bit 2) the task-switch
// path: the text is cut at its first blank line into two traces, read each, concatenated
// (`concatenate_traces`, workload/task_drift.hpp), their switch overlap taken and the whole served
// in file order (`--order file`). The model is
// DeepSeek-V2-Lite cut to the trace's shape (its MoE layers, experts and top-k: at most 4 layers
// of at most 64 experts, so one input stays far inside the 10 s timeout), so that most inputs
// reach the replay rather than the shape check. Every number of the replay must be finite, every
// policy must keep Eq. 1–4 and 21–24 (no violation), and the normalised figures of single-copy
// static must be 1.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_support.hpp"
#include "strata/hcrmap/trace_replay.hpp"
#include "strata/hcrmap/trace_replay_json.hpp"
#include "strata/workload/presets.hpp"
#include "strata/workload/task_drift.hpp"
#include "strata/workload/trace_io.hpp"

STRATA_FUZZ_TARGET(fuzz_hcrmap_replay) {
  if (size == 0) return 0;
  static const strata::substrate sub;
  const bool prefill = (data[0] & 1) != 0;
  const bool all = (data[0] & 2) != 0;
  const bool switches = (data[0] & 4) != 0;
  return strata_fuzz::run([&] {
    const auto text = strata_fuzz::as_text(data + 1, size - 1);
    const auto cut = switches ? text.find("\n\n") : std::string::npos;
    const auto t = [&] {
      if (cut == std::string::npos) return strata::parse_trace_csv(text, {}, "trace.csv");
      const auto a = strata::parse_trace_csv(text.substr(0, cut + 1), {}, "a.csv");
      const auto b = strata::parse_trace_csv(text.substr(cut + 2), {}, "b.csv");
      const auto both = strata::concatenate_traces({a, b}, {"a", "b"});
      const double o = strata::topic_switch_overlap(both);
      if (!(o >= 0.0 && o <= 1.0)) strata_fuzz::finding("a switch overlap outside [0, 1]", o);
      return both;
    }();
    if (t.layers() > 4 || t.experts_per_layer() > 64) return;  // a bigger shape is the trace reader's target
    strata::model m = strata::preset("DeepSeek-V2-Lite");
    m.first_dense_layers = 0;
    m.layers = t.layers();
    m.experts = t.experts_per_layer();
    m.top_k = t.k();
    strata::replay_params rp;
    if (switches) rp.order = strata::replay_order::file;
    rp.max_windows = 2;
    rp.experiment.max_layers = 2;
    const auto policies = all ? strata::compared_policies()
                              : std::vector<strata::policy_kind>{strata::policy_kind::hcrmap};
    const auto r = strata::replay_trace(sub, m, t, prefill ? strata::phase::prefill : strata::phase::decode, policies, rp);
    strata_fuzz::require_finite_json(strata::replay_json(r), "replay");
    if (r.policies.empty() || r.policies.front().policy != strata::policy_kind::single_copy_static) {
      strata_fuzz::finding("single-copy static is not first");
    }
    if (r.policies.front().normalised_latency != 1.0) strata_fuzz::finding("static normalised latency", r.policies.front().normalised_latency);
    for (const auto& p : r.policies) {
      if (p.violations != 0) strata_fuzz::finding("a residency violation", double(p.violations));
      if (!(p.latency_s > 0.0)) strata_fuzz::finding("a non-positive window latency", p.latency_s);
    }
  });
}
