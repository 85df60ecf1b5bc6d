// HCRMap control speed: the fast token mapper over one DeepSeek-V3 decode window (58 MoE layers,
// 512 tokens, top-8, on single-copy static replicas plus copies of each layer's hottest experts),
// one slow-controller decision on an observed layer with the greedy scorer and with the DQN
// checkpoint of the repository, and the replay of an 8 000-token trace through the six compared
// policies (`strata-eval hcrmap`), and the replay of the three-task ESFT trace in file order and
// one controller decision within it.
#include <benchmark/benchmark.h>

#include "strata/chiplet/token_groups.hpp"
#include "strata/chiplet/window.hpp"
#include <fstream>
#include <memory>
#include <sstream>

#include "strata/hcrmap/controller.hpp"
#include "strata/hcrmap/dqn_json.hpp"
#include "strata/hcrmap/dqn_scorer.hpp"
#include "strata/hcrmap/task_switch.hpp"
#include "strata/hcrmap/trace_replay.hpp"
#include "strata/workload/trace_io.hpp"
#include "strata/workload/presets.hpp"
#include "strata/workload/trace_gen.hpp"

namespace {
struct dsv3 {
  strata::substrate s;
  strata::model m = strata::preset("DeepSeek-V3");
  strata::moe_layer_shape shape = strata::moe_shape(m);
  std::vector<std::vector<strata::token_group>> groups;
  dsv3() {
    auto g = strata::trace_gen_for(m);
    g.sequences = 512;
    g.min_length = 2;
    g.max_length = 4;
    const auto t = strata::generate_trace(g);
    groups = strata::decode_token_groups(t, s.chiplets(), {.batch = 512});
    for (auto& l : groups) l = strata::split_blocks(l, 16);
  }
};
const dsv3& data() {
  static const dsv3 d;
  return d;
}
// A residency holding `layers` MoE layers (the directory one package of the pipeline holds is
// two layers; the mapper's cost does not depend on where the layers live).
strata::residency directory(int layers) {
  const auto& d = data();
  auto r = strata::single_copy_static(d.s, layers, d.m.experts, strata::units::MB(1.0), {.budget_factor = 1.3});
  for (int l = 0; l < layers; ++l) {
    for (int e = 0; e < 64; ++e) {
      const int c = (l * d.m.experts + e + 8) % d.s.chiplets();
      const auto banks = d.s.banks_of(strata::tier_kind::dram, d.s.homes_for(strata::tier_kind::dram, c, c).front());
      if (r.can_add(l, e, c, banks.front(), static_cast<int>(banks.size()))) r.place(l, e, c, banks.front(), static_cast<int>(banks.size()));
    }
  }
  return r;
}
}  // namespace

// Algorithm 2 over every MoE layer of one decode window (≈ 1 800 groups per layer).
static void bm_fast_token_map_dsv3_decode(benchmark::State& st) {
  const auto& d = data();
  const int L = static_cast<int>(d.groups.size());
  const auto res = directory(L);
  std::vector<std::vector<strata::token_group>> local = d.groups;
  for (int l = 0; l < L; ++l) {
    for (auto& g : local[static_cast<std::size_t>(l)]) g.layer = l;
  }
  strata::fast_token_mapper mapper(d.s, d.shape, res);
  for (auto _ : st) {
    std::size_t n = 0;
    for (const auto& g : local) n += mapper.map(g).size();
    benchmark::DoNotOptimize(n);
  }
}
BENCHMARK(bm_fast_token_map_dsv3_decode)->Unit(benchmark::kMillisecond);

// A controller that has observed two layers of the decode window on `directory(2)` (the
// residency it points into is a member: not copied or moved).
struct observed_controller {
  strata::residency res = directory(2);
  std::vector<std::vector<strata::token_group>> groups;
  strata::residency_controller ctl;
  observed_controller() : groups{data().groups[0], data().groups[1]}, ctl(data().s, data().shape, res) {
    const auto& d = data();
    for (auto& x : groups[1]) x.layer = 1;
    std::vector<strata::directory_layer_eval> evals;
    for (const auto& g : groups) {
      strata::fast_token_mapper m(d.s, d.shape, res);
      evals.push_back(strata::evaluate_directory_layer(d.s, d.shape, res, g, m.map(g)));
    }
    ctl.observe({0, 1}, groups, evals, 1e-3);
  }
};

// One controller decision (candidates, mask, features, greedy score) on two observed layers.
static void bm_controller_decision(benchmark::State& st) {
  observed_controller o;
  for (auto _ : st) {
    const auto acts = o.ctl.legal_actions();
    double best = 0.0;
    for (const auto& a : acts) best = std::max(best, strata::greedy_score(a.features));
    benchmark::DoNotOptimize(best);
  }
}
BENCHMARK(bm_controller_decision)->Unit(benchmark::kMicrosecond);

// The same decision scored by the masked Double DQN of the repository's checkpoint (the
// candidates, mask, features, Q of every legal candidate and the argmax).
static void bm_controller_decision_dqn(benchmark::State& st) {
  std::ifstream in(std::string(STRATA_BENCH_DATA_DIR) + "/hcrmap/dqn_checkpoint.json");
  std::ostringstream text;
  text << in.rdbuf();
  const strata::dqn_scorer q(strata::parse_dqn_checkpoint(text.str(), "dqn_checkpoint.json"));
  observed_controller o;
  std::size_t candidates = 0;
  for (auto _ : st) {
    const auto acts = o.ctl.legal_actions();
    std::size_t best = 0;
    double best_v = q(acts[0].features);
    for (std::size_t i = 1; i < acts.size(); ++i) {
      const double v = q(acts[i].features);
      if (v > best_v) best_v = v, best = i;
    }
    candidates = acts.size();
    benchmark::DoNotOptimize(best);
  }
  st.counters["candidates"] = static_cast<double>(candidates);
}
BENCHMARK(bm_controller_decision_dqn)->Unit(benchmark::kMicrosecond);

// The HCRMap session of bm_replay_task_switch/0 (DeepSeek-V2-Lite, ESFT intent → law →
// translation in file order, decode B = 32, every MoE layer, the greedy rule): its layout
// planned on the warm-up window, then `served` windows served and controlled as the replay does
// (`serve_windows`), and the next window served. The session points into itself: built in place.
struct task_switch_session {
  strata::substrate s;
  strata::model m = strata::preset("DeepSeek-V2-Lite");
  strata::experiment_params xp;
  strata::detail::experiment_setup setup;
  std::unique_ptr<strata::detail::policy_session> session;
  strata::detail::window_evaluation next;
  std::vector<std::vector<strata::token_group>> next_window;  // the window `next` evaluates
  explicit task_switch_session(int served) {
    std::vector<strata::routing_trace> parts;
    const std::vector<std::string> tasks{"intent", "law", "translation"};
    for (const auto& task : tasks) {
      parts.push_back(strata::load_trace_csv(std::string(STRATA_BENCH_DATA_DIR) + "/traces/dsv2lite_esft_trace_" + task + ".csv",
                                             {.experts = m.experts, .label = task}));
    }
    const auto t = strata::concatenate_traces(parts, tasks);
    xp.batch = 32;
    const auto mode = strata::phase::decode;
    const auto all = strata::windows_in_file_order(t, mode, s.chiplets(), strata::tokens_per_window(mode, xp),
                                                   xp.profile_windows + served + 1, xp.fast_map.block_tokens);
    const auto P = static_cast<std::ptrdiff_t>(xp.profile_windows);
    const std::vector<std::vector<std::vector<strata::token_group>>> warmup(all.windows.begin(), all.windows.begin() + P);
    xp.windows = served + 1;
    setup = strata::detail::make_experiment_setup(s, m, mode, xp);
    const auto static_res = strata::stage_residencies(s, m, setup.plan, xp.scale_out);
    const std::vector<std::vector<strata::token_group>> none(static_cast<std::size_t>(m.moe_layers()));
    const auto nr = strata::evaluate_pipeline(s, m, setup.plan, static_res, none, setup.spec, xp.scale_out, xp.critical_path);
    const double non_routed = (nr.non_routed + nr.inter_package).si();
    const auto& es = setup.stages.front();
    const auto prof = strata::detail::stage_profile(es, m.experts, s.chiplets(), warmup);
    session = std::make_unique<strata::detail::policy_session>(s, m, setup.shape, es, strata::policy_kind::hcrmap, xp, prof,
                                                               m.moe_layers());
    session->plan(warmup);
    for (int w = 0; w <= served; ++w) {
      auto ev = session->evaluate(all.windows[static_cast<std::size_t>(P + w)], nullptr, setup.scale, served + 1);
      if (w == served) {
        next = std::move(ev);
        next_window = all.windows[static_cast<std::size_t>(P + w)];
        break;
      }
      (void)session->control(ev, non_routed + ev.moe_s * setup.scale);
    }
  }
};

// One decision of the slow controller in the task-switch replay (decode, B = 32; 26 observed
// layers of 64 experts): the controller observes a served window (the 40th, in the intent task,
// after its controller has moved replicas) and weighs every candidate (mask, features, greedy
// argmax), as the first decision after each window does. Observing the same window again moves
// the smoothed demand towards it, so the first iterations differ slightly from the rest.
static void bm_controller_decision_task_switch(benchmark::State& st) {
  static task_switch_session ts(40);
  auto& ctl = ts.session->controller();
  const auto& es = ts.setup.stages.front();
  std::size_t candidates = 0;
  for (auto _ : st) {
    ctl.observe(es.local, ts.next.groups, ts.next.evals, std::max(ts.next.moe_s, 1e-12));
    const auto acts = ctl.legal_actions();
    double best = strata::greedy_score(acts[0].features);
    for (const auto& a : acts) best = std::max(best, strata::greedy_score(a.features));
    candidates = acts.size();
    benchmark::DoNotOptimize(best);
  }
  st.counters["candidates"] = static_cast<double>(candidates);
}
BENCHMARK(bm_controller_decision_task_switch)->Unit(benchmark::kMillisecond);

// One served window of the task-switch replay's HCRMap session (decode, B = 32, 26 evaluated
// layers of 64 experts): every layer routed by the fast mapper and its critical path evaluated,
// as `serve_windows` evaluates each window after the first — into the evaluation kept from the
// window before (`policy_session::evaluate_into`). The session is not changed by evaluating.
static void bm_serve_window_task_switch(benchmark::State& st) {
  static task_switch_session ts(40);
  strata::detail::window_evaluation ev;
  for (auto _ : st) {
    ts.session->evaluate_into(ev, ts.next_window, nullptr, ts.setup.scale, 41);
    benchmark::DoNotOptimize(ev.moe_s);
  }
  st.counters["layers"] = static_cast<double>(ev.evals.size());
}
BENCHMARK(bm_serve_window_task_switch)->Unit(benchmark::kMicrosecond);

// strata-eval hcrmap on an 8 000-token trace (DeepSeek-V3, the largest Table 2 model; synthetic,
// 670 sequences of 8-16 tokens, 8 051 tokens): the six compared policies, decode and prefill.
// Decode windows of 512 from a split's 335 sequences reuse them (`trace_reuse`, stated).
static void bm_replay_8000_tokens(benchmark::State& st) {
  const auto m = strata::preset("DeepSeek-V3");
  auto g = strata::trace_gen_for(m);
  g.sequences = 670;
  g.min_length = 8;
  g.max_length = 16;
  g.seed = 3;
  const auto t = strata::generate_trace(g);
  const strata::substrate s;
  const auto mode = st.range(0) == 0 ? strata::phase::decode : strata::phase::prefill;
  strata::replay_params rp;
  rp.experiment.trace_reuse = true;
  for (auto _ : st) {
    const auto r = strata::replay_trace(s, m, t, mode, {}, rp);
    benchmark::DoNotOptimize(r.policies.back().latency_s);
  }
  st.counters["tokens"] = static_cast<double>(t.tokens());
}
BENCHMARK(bm_replay_8000_tokens)->Arg(0)->Arg(1)->Unit(benchmark::kSecond)->Iterations(1)->Repetitions(3);

// strata-eval hcrmap --order file on the three-task trace (DeepSeek-V2-Lite's ESFT intent → law →
// translation, 24 800 real tokens, tests/data/traces): the six compared policies with the greedy
// rule, every MoE layer; prefill (1 warm-up and 11 served windows of 2048) and decode (continuous
// batching of B = 32 sequences: 1 warm-up and 686 served steps).
static void bm_replay_task_switch(benchmark::State& st) {
  const auto m = strata::preset("DeepSeek-V2-Lite");
  std::vector<strata::routing_trace> parts;
  const std::vector<std::string> tasks{"intent", "law", "translation"};
  for (const auto& task : tasks) {
    parts.push_back(strata::load_trace_csv(std::string(STRATA_BENCH_DATA_DIR) + "/traces/dsv2lite_esft_trace_" + task + ".csv",
                                           {.experts = m.experts, .label = task}));
  }
  const auto t = strata::concatenate_traces(parts, tasks);
  const strata::substrate s;
  const auto mode = st.range(0) == 0 ? strata::phase::decode : strata::phase::prefill;
  strata::replay_params rp;
  rp.order = strata::replay_order::file;
  rp.max_windows = 1024;
  rp.experiment.batch = 32;
  int windows = 0;
  for (auto _ : st) {
    const auto r = strata::replay_trace(s, m, t, mode, {}, rp);
    windows = r.windows;
    benchmark::DoNotOptimize(r.policies.back().latency_s);
  }
  st.counters["tokens"] = static_cast<double>(t.tokens());
  st.counters["windows"] = windows;
}
BENCHMARK(bm_replay_task_switch)->Arg(0)->Arg(1)->Unit(benchmark::kSecond)->Iterations(1)->Repetitions(1);
