// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// The closed-form critical path of one routed MoE layer on the 3.5D substrate (HCRMap §4.4–4.5,
/// Eq. 5–19), replacing the paper's event simulator by its own equations. Its inputs and results
/// are the types of `layer_model.hpp`; the link queues are `link_model.hpp`.
///
/// Requests (§4.4). Group g on replica r = x(g) sends a dispatch request s_g → c_r of N_g·D_act
/// bytes and a gather request c_r → a_g of the same size; each active replica streams its expert
/// weights S^wt once per layer from its bank span to c_r (memory class); a migration moves its
/// bytes from the source bank's home to the destination bank's home (migration class).
///   Eq. 5–6  L^phys_{u,κ} = Σ_h z_h·D_h·[u ∈ P_h],  L̃_u = Σ_κ α_κ·L^phys_{u,κ}
///   Eq. 7    T^route_h = Σ_{u∈P_h} (λ_u + D_h / B_u)
///   Eq. 8    T^net = max(max_u L^phys_u / B_u, max_h T^route_h)
///   Eq. 9–11 Q_{t,c,b} (foreground + migration), T^bank = [Q>0]·Lat + Q / BW, T^bank_l = max
///   Eq. 12   T^mem_l = max(T^bank_l, max_u L^phys_{u,mem} / B_u, max_h∈mem T^route_h)
///   Eq. 13   T^comp_r = Ops_r / (k_r·Π_core·η);  Ops^token = 2·3·d·f FLOPs for SwiGLU (the paper
///            counts the 3·d·f MACs; strata counts a multiply-add as 2 FLOPs throughout)
/// Group completion (Eq. 14) as a closed-form event graph. All groups start after the gate
/// T_gate (router on the source chiplets). Requests cross the links under the causal link model
/// of `link_model.hpp`: FCFS per (link, direction, class) by default, a request waiting only for
/// the traffic ahead of it (`link_arbitration::shared`: one queue per link and direction for all
/// classes). Then, per group g on replica r:
///   arrive_g  = dispatch arrival (released at T_gate)
///   start_g   = max(arrive_g, replica free): groups at a replica are served FCFS by arrival
///   fin_g     = start_g + T^comp_g
///   ready_r   = weights streamed in: max(bank service of its span, memory arrival), where each
///               bank serves its accesses FCFS (migrations, in flight from the layer's start,
///               first; then streams in release order), Eq. 10 per access
///   finish_g  = max(fin_g, ready_r),  C_g = gather arrival (released at finish_g) + T_combine
/// Eq. 15 overlaps the weight stream with COMPUTE only, max(T^comp, T^mem): by default
/// (`memory_overlap::compute_only`) a replica's stream is released when its first group starts
/// computing, so dispatch and queueing are not hidden under it. `dispatch_and_queue` releases the
/// stream at T_gate (prefetch as soon as routing is known), the overlap of earlier versions, kept
/// for comparison. Stages: C_g = gate + disp + queue + comp + exposed memory + gath + combine
/// (Eq. 15's max(T^comp, T^mem) written as compute plus exposed memory); T^MoE_l = max_g C_g.
/// Layer-level terms stay as the paper defines them: T^net (Eq. 8, every class's routes
/// including migrations, and the drain of the most loaded link) and T^mem (Eq. 12) are bounds
/// and pressure terms, not added to C_g.
/// Cores (Eq. 4): the cores of a chiplet are shared by its active replicas in proportion to their
/// work (largest remainder, at least one each); with more active replicas than cores, replicas
/// are list-scheduled on cores in order of decreasing work.
/// Energy (Eq. 17–18): compute Ops·ε; D2D Σ_u L^phys_u·ε_u over the package links (mesh and IO);
/// NoC: every request's bytes × the compute chiplets it crosses × ε_NoC; storage Σ Q·ε_b per tier,
/// migration control y_m·E^ctrl, gate Σ_g E^gate_g. Pressure (Eq. 19) over a window Δ_w.

#include <algorithm>   // std::sort, std::max, std::min, std::push_heap, std::pop_heap
#include <cmath>       // std::floor
#include <array>       // std::array
#include <cstdint>     // std::uint64_t, the gather keys
#include <cstddef>     // std::size_t
#include <limits>      // std::numeric_limits, padding hops
#include <optional>    // std::optional, the substrate of the cached routes
#include <span>        // std::span
#include <string>      // std::string
#include <utility>     // std::pair
#include <vector>      // std::vector

#include "strata/chiplet/layer_model.hpp"
#include "strata/chiplet/link_model.hpp"
#include "strata/chiplet/substrate.hpp"
#include "strata/core/error.hpp"
#include "strata/core/units.hpp"

namespace strata {
inline namespace v0 {

/// Cores a replica holds under Eq. 4's split as the critical path makes it: on a chiplet with
/// `active` active replicas (this one included) and `cores` cores, each replica holds one core
/// and the cores left are shared in proportion to work — 1 + ⌊(cores − active)·w_r/w_c⌋ for a
/// replica doing `w_r` of the chiplet's `w_c` (largest remainders aside); with `active` ≥ `cores`
/// every replica holds one core and they take turns (list scheduling). Used by the estimates that
/// must agree with the evaluation: the fast token mapper and the controller's one-step benefit.
template <class = void>
inline int replica_core_share(int cores, int active, double w_r, double w_c) {
  if (active >= cores || w_c <= 0.0) return 1;
  return 1 + static_cast<int>(std::floor(double(cores - active) * std::min(1.0, w_r / w_c)));
}

namespace detail {
/// A (source node, destination compute chiplet) pair's route, valid while the workspace's
/// substrate is the one of generation `routed`: the links' range in the pair path buffer, the
/// route padded to whole blocks (`padded_hop`), the compute chiplets it crosses (NoC energy),
/// and its Eq. 7 term for a weight stream of `stream_bytes` (taken on its first stream), with
/// the stream's transfer time over each padded hop (the workspace's `pair_xfer`, by hop).
struct pair_route {
  std::uint64_t routed = 0;
  std::size_t begin = 0, end = 0;
  std::size_t hop_begin = 0, hop_end = 0;
  double bandwidth = 0.0;  // of every link of the route, 0 when they differ
  int crossed = 0;
  double stream_bytes = -1.0, stream_term = 0.0;
};
/// A pair's use in the evaluation whose number is `stamp`: the largest request sent over it
/// (its Eq. 7 route term bounds every smaller request's) and the tokens each class (dispatch,
/// gather) sends over it. Apart from the route, so the pass over the groups touches 32 bytes
/// per pair.
struct pair_use {
  std::uint64_t stamp = 0;
  double max_bytes = 0.0;
  std::array<double, 2> tokens{};
};
/// What serving a request over a pair reads, for the pairs of the evaluation: its padded hops
/// `hops[0, n)` and the bandwidth of every link of the route (0 when they differ).
struct pair_serve {
  const padded_hop* hops = nullptr;
  std::size_t n = 0;
  double bandwidth = 0.0;
};
/// What serving a token group's requests reads and writes, by group index (the dispatches are
/// served in index order, the gathers in release order): bytes each way, gather arrival, and
/// the pairs of its dispatch and gather routes (-1 for a group without tokens).
struct group_state {
  double bytes = 0.0, gather_arrive = 0.0;
  int dispatch = -1, gather = -1;
};
/// A token group's times at its replica, by slot: replica r's groups hold the slots
/// [first_of[r], first_of[r + 1]) in index order, so ordering a replica's queue and serving its
/// stream read and write a few adjacent records. Its dispatch arrival, compute time, start and
/// end of compute, finish, its index, and its rank among the groups with tokens in index order.
struct queued_group {
  double arrive = 0.0, comp = 0.0, start = 0.0, fin = 0.0, finish = 0.0;
  std::size_t group = 0, rank = 0;
};
/// A request of one layer: its release time (set once known), bytes and links
/// `paths[path_begin, path_end)` of the layer's path buffer.
struct layer_request {
  double release = 0.0;
  double bytes = 0.0;
  std::size_t path_begin = 0;
  std::size_t path_end = 0;
};
}  // namespace detail

/// Buffers `evaluate_layer` reuses from one layer to the next: once they have grown to the
/// largest layer, evaluating another allocates nothing. A workspace serves one evaluation at a
/// time (one per thread); it carries no state from one layer to the next that changes a result.
/// It keeps the routes of the chiplet pairs it has met while the substrate's parameters stay
/// the same (a substrate is a function of its parameters), and drops them when they change.
struct layer_workspace {
  std::vector<int> paths;  // links of the memory and migration requests' routes
  // Per (source node, destination compute chiplet) pair, a route (see `detail::pair_route`).
  std::vector<detail::pair_route> pairs;
  std::vector<detail::pair_use> pair_uses;
  std::vector<detail::pair_serve> pair_serves;
  std::vector<int> pairs_used;
  std::uint64_t stamp = 0;
  std::optional<substrate_params> routed_on;  // the substrate the pair routes belong to
  std::uint64_t routed = 0;                   // its generation
  std::vector<int> pair_paths;                // links of the pair routes
  std::vector<padded_hop> pair_hops;          // the pair routes in whole blocks
  std::vector<double> pair_xfer;              // per hop of pair_hops, a weight stream's D/B
  std::array<std::vector<detail::layer_request>, 4> reqs;
  std::vector<int> req_of_replica;  // an SRAM stream's request
  std::vector<int> stream_pair;     // the (home, chiplet) pair of another stream's route
  std::vector<detail::group_state> gs;     // per group
  std::vector<detail::queued_group> queue;  // per slot
  std::vector<double> replica_start, core_free, src_tokens, agg_tokens, bank_free, first_start, replica_comp,
      chiplet_service;
  std::vector<std::vector<int>> on;
  std::vector<std::pair<double, int>> rem;
  std::vector<std::size_t> first_of, fill, bucket;
  std::vector<std::pair<double, std::size_t>> streams, gathers, timed, timed_tmp;
  std::vector<double> comp_rate, stripe_service;  // Eq. 13's Π_core·k_r; a bank's service of a stripe
  std::vector<int> stripe_span;                   // the span `stripe_service` was taken for (0: none)
  std::vector<std::size_t> key_count;
  std::vector<route_hop> hops;  // paths[i] as the link server reads it
  link_server net;
};

namespace detail {
/// Puts `v`, (time, index) pairs listed in increasing index order, in (time, index) order, given
/// the least time `lo` and the greatest `hi`. A bucket sort: as many buckets as pairs, linear
/// in the time between the least and the greatest (t − lo and the scaling are monotone, so the
/// buckets are in time order), filled in list order, then one insertion sort over the whole
/// that moves a pair only past strictly later times. Both passes are stable, so equal times
/// keep their index order and only the times are compared; the time is O(n) for spread times.
/// Past a budget of moves (times crowded into a few buckets), or without linear buckets (an
/// infinite time, a range too small to scale), `std::sort` on (time, index) finishes: the same
/// order. `tmp`, `count` and `bucket` are scratch.
template <class = void>
inline void sort_by_time(std::vector<std::pair<double, std::size_t>>& v, std::vector<std::pair<double, std::size_t>>& tmp,
                         std::vector<std::size_t>& count, std::vector<std::size_t>& bucket, double lo, double hi) {
  const std::size_t n = v.size();
  if (n < 2) return;
  const auto earlier = [](const auto& a, const auto& b) { return a.first < b.first || (a.first == b.first && a.second < b.second); };
  const double range = hi - lo;
  const double scale = range > 0.0 ? static_cast<double>(n - 1) / range : 0.0;
  if (!(range < 1e300) || !(scale < 1e300)) {  // no linear buckets
    std::sort(v.begin(), v.end(), earlier);
    return;
  }
  count.assign(n + 1, 0);
  bucket.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t b = std::min(n - 1, static_cast<std::size_t>((v[i].first - lo) * scale));
    bucket[i] = b;
    ++count[b + 1];
  }
  for (std::size_t d = 1; d <= n; ++d) count[d] += count[d - 1];
  tmp.resize(n);
  for (std::size_t i = 0; i < n; ++i) tmp[count[bucket[i]]++] = v[i];
  v.swap(tmp);
  std::size_t budget = 8 * n;
  for (std::size_t i = 1; i < n; ++i) {
    if (!(v[i].first < v[i - 1].first)) continue;
    const auto e = v[i];
    std::size_t j = i;
    for (; j > 0 && e.first < v[j - 1].first; --j) v[j] = v[j - 1];
    v[j] = e;
    if (i - j > budget) {
      std::sort(v.begin(), v.end(), earlier);
      return;
    }
    budget -= i - j;
  }
}
/// `sort_by_time` with the least and greatest times taken from `v`.
template <class = void>
inline void sort_by_time(std::vector<std::pair<double, std::size_t>>& v, std::vector<std::pair<double, std::size_t>>& tmp,
                         std::vector<std::size_t>& count, std::vector<std::size_t>& bucket) {
  if (v.size() < 2) return;
  double lo = v.front().first, hi = lo;
  for (const auto& e : v) {
    lo = std::min(lo, e.first);
    hi = std::max(hi, e.first);
  }
  sort_by_time(v, tmp, count, bucket, lo, hi);
}
}  // namespace detail

/// Checks a placement against the substrate and the expert: bank ids, visibility (B_{t,c}) and
/// that the span exists within one tier and home. Throws `config_error` naming the replica.
template <class = void>
inline void validate(const replica& r, const substrate& s, std::size_t index = 0) {
  // Field names are built only on failure: this runs for every active replica of every layer.
  const auto fail = [&](const char* suffix, long long value, const char* expected) {
    detail::require(false, "strata.critical_path", "replicas[" + std::to_string(index) + "]" + suffix, value, expected);
  };
  if (r.chiplet < 0 || r.chiplet >= s.chiplets()) fail(".chiplet", r.chiplet, "a compute chiplet id");
  if (r.span < 1) fail(".span", r.span, ">= 1");
  const int nb = static_cast<int>(s.banks().size());
  if (r.bank < 0 || r.bank + r.span > nb) fail(".bank", r.bank, "a bank id");
  const auto& b0 = s.banks()[static_cast<std::size_t>(r.bank)];
  for (int i = 1; i < r.span; ++i) {
    const auto& bi = s.banks()[static_cast<std::size_t>(r.bank) + static_cast<std::size_t>(i)];
    if (bi.tier != b0.tier || bi.home != b0.home) fail(".span", r.span, "within one tier and home");
  }
  if (!s.visible(r.bank, r.chiplet)) fail(".bank", r.bank, "visible from its chiplet (SRAM of the chiplet's own group)");
}

/// Evaluates one MoE layer: `groups` of this layer, `assignment[g]` = index into `replicas` (must
/// be a replica of the group's expert: Eq. 21), `migrations` in flight during the layer.
/// `bank_share`, when not empty, is per bank the share (0, 1] of its bandwidth the layer's weight
/// streams get, the rest serving streams outside this evaluation (PIM units sharing the bank,
/// `hcrmap/pim.hpp`). Writes the result into `out` (its vectors keep their capacity) with the
/// buffers of `ws`: the same numbers as `evaluate_layer`, without its allocations.
template <class = void>
inline void evaluate_layer_into(layer_result& out, layer_workspace& ws, const substrate& s, const moe_layer_shape& shape,
                                const std::vector<token_group>& groups, const std::vector<replica>& replicas,
                                const std::vector<int>& assignment, const critical_path_params& cp = {},
                                const std::vector<migration>& migrations = {},
                                const std::vector<double>& bank_share = {}) {
  constexpr const char* id = "strata.critical_path";
  detail::require(assignment.size() == groups.size(), id, "assignment", assignment.size(),
                  "one replica per group");
  validate(cp);
  validate(shape);
  const auto& links = s.links();
  const auto& banks = s.banks();
  const std::size_t nl = links.size(), nb = banks.size(), nr = replicas.size(), ng = groups.size();
  if (!bank_share.empty()) {
    detail::require(bank_share.size() == nb, id, "bank_share", bank_share.size(), "one share per bank");
    for (double x : bank_share) detail::require(x > 0.0 && x <= 1.0, id, "bank_share", x, "in (0, 1]");
  }
  const int nc = s.chiplets();
  {  // every field to its default, the vectors keeping their capacity
    layer_result fresh;
    fresh.completion = std::move(out.completion);
    fresh.link_bytes = std::move(out.link_bytes);
    fresh.bank_bytes = std::move(out.bank_bytes);
    fresh.replica_tokens = std::move(out.replica_tokens);
    fresh.replica_cores = std::move(out.replica_cores);
    fresh.group_stages = std::move(out.group_stages);
    fresh.dispatch_wait = std::move(out.dispatch_wait);
    fresh.gather_wait = std::move(out.gather_wait);
    fresh.memory_ready = std::move(out.memory_ready);
    out = std::move(fresh);
  }
  out.link_bytes.assign(nl * 4, 0.0);
  out.bank_bytes.assign(nb * 2, 0.0);
  out.replica_tokens.assign(nr, 0.0);
  out.replica_cores.assign(nr, 0);
  // Per group: every element is written below (zero for a group without tokens).
  out.completion.resize(ng);
  out.group_stages.resize(ng);
  out.dispatch_wait.resize(ng);
  out.gather_wait.resize(ng);
  out.memory_ready.assign(nr, duration<>{});

  // Requests of every class (§4.4) with their routes in one buffer; Eq. 5: loads per class.
  const double tok_b = shape.token_bytes.si();
  const double wt = shape.weight_bytes.si();
  auto& paths = ws.paths;
  paths.clear();
  auto& reqs = ws.reqs;
  for (auto& q : reqs) q.clear();
  auto& gs = ws.gs;
  auto& req_of_replica = ws.req_of_replica;
  gs.resize(ng);
  req_of_replica.assign(nr, -1);
  ws.stream_pair.assign(nr, -1);
  double noc_bytes = 0.0;  // bytes × compute chiplets crossed, for the on-chiplet network energy
  // Eq. 8's route term over every request of every class (migrations included), Eq. 12's over
  // the memory class: T^route_h of Eq. 7.
  double max_route = 0.0, max_mem_route = 0.0;
  // Eq. 7 for `bytes` over the links path[begin, end).
  const auto route_time = [&](const std::vector<int>& path, std::size_t begin, std::size_t end, double bytes) {
    duration<> route{};
    for (std::size_t i = begin; i < end; ++i) {
      const auto u = static_cast<std::size_t>(path[i]);
      route += link_time(links[u].lambda, links[u].bandwidth, data_size<>::from_si(bytes));
    }
    return route.si();
  };
  // Records a request of `bytes` over the links paths[begin, end), `crossed` compute chiplets;
  // its release time is set when known (below). Returns its index within its class.
  const auto record = [&](request_class k, double bytes, std::size_t begin, std::size_t end, int crossed) {
    for (std::size_t i = begin; i < end; ++i) out.link_bytes[static_cast<std::size_t>(paths[i]) * 4 + static_cast<std::size_t>(k)] += bytes;
    noc_bytes += bytes * crossed;
    reqs[static_cast<std::size_t>(k)].push_back(detail::layer_request{0.0, bytes, begin, end});
    return static_cast<int>(reqs[static_cast<std::size_t>(k)].size()) - 1;
  };
  // Compute chiplets a route crosses: both ends of a routed path that are compute chiplets, one
  // for an empty path.
  const auto crossed = [&](const std::vector<int>& path, std::size_t begin, std::size_t end) {
    int n = begin == end ? 1 : 0;
    for (std::size_t i = begin; i < end; ++i) n += links[static_cast<std::size_t>(path[i])].to < nc ? 1 : 0;
    if (begin != end && links[static_cast<std::size_t>(path[begin])].from < nc) ++n;
    return n;
  };
  // A request whose links were appended to `paths` from `begin` (memory and migration classes).
  auto push = [&](request_class k, double bytes, std::size_t begin) {
    const std::size_t end = paths.size();
    const double route = route_time(paths, begin, end, bytes);
    max_route = std::max(max_route, route);
    if (k == request_class::memory) max_mem_route = std::max(max_mem_route, route);
    return record(k, bytes, begin, end, crossed(paths, begin, end));
  };
  // A dispatch or gather between compute chiplets a and b: the pair's route is generated once
  // per substrate, and its Eq. 7 term is taken once per layer, for the pair's largest request,
  // below (the term grows with the bytes, in floating point too, so the maximum is the same).
  // A weight stream from an HBM or DRAM home node to its chiplet: the same, its term kept.
  const auto npair = static_cast<std::size_t>(s.nodes()) * static_cast<std::size_t>(nc);
  auto& pairs = ws.pairs;
  auto& pair_paths = ws.pair_paths;
  auto& pair_hops = ws.pair_hops;
  if (!ws.routed_on || !(*ws.routed_on == s.params())) {
    ws.routed_on = s.params();
    ++ws.routed;
    pair_paths.clear();
    pair_hops.clear();
  }
  if (pairs.size() != npair) {
    pairs.assign(npair, detail::pair_route{});
    ws.pair_uses.assign(npair, detail::pair_use{});
    ws.pair_serves.resize(npair);
  }
  auto& pair_uses = ws.pair_uses;
  const std::uint64_t stamp = ++ws.stamp;
  ws.pairs_used.clear();
  // A request of `bytes` carrying `tokens` of class k (0 dispatch, 1 gather) over pair p, met in
  // the pass over the groups; the pairs met are routed after it.
  const auto use_pair = [&](std::size_t p, std::size_t k, double bytes, double tokens) {
    auto& pu = pair_uses[p];
    if (pu.stamp != stamp) [[unlikely]] {
      pu.stamp = stamp;
      pu.max_bytes = bytes;
      pu.tokens = {0.0, 0.0};
      ws.pairs_used.push_back(static_cast<int>(p));
    } else {
      pu.max_bytes = std::max(pu.max_bytes, bytes);
    }
    pu.tokens[k] += tokens;
  };
  // Routing correctness (Eq. 21), N_r, and the tokens each chiplet routes and combines; each
  // group's routes. The checks of a group come first, in group order, then those of the
  // active replicas (`validate`), in replica order: a replica's chiplet is needed here, so an
  // active replica off the mesh sends the checks back to that order to report the first error.
  auto& src_tokens = ws.src_tokens;
  auto& agg_tokens = ws.agg_tokens;
  src_tokens.assign(static_cast<std::size_t>(nc), 0.0);
  agg_tokens.assign(static_cast<std::size_t>(nc), 0.0);
  // Messages are built only on failure: this loop runs for every group of every layer.
  const auto check_group = [&](std::size_t g) {
    const auto& grp = groups[g];
    const int r = assignment[g];
    if (r < 0 || static_cast<std::size_t>(r) >= nr) {
      detail::require(false, id, "assignment[" + std::to_string(g) + "]", r, "a replica index");
    }
    if (replicas[static_cast<std::size_t>(r)].expert != grp.expert || replicas[static_cast<std::size_t>(r)].layer != grp.layer) {
      detail::require(false, id, "assignment[" + std::to_string(g) + "]", r, "a replica of the group's expert and layer");
    }
    if (grp.tokens < 0) detail::require(false, id, "groups[" + std::to_string(g) + "].tokens", grp.tokens, ">= 0");
    if (grp.source < 0 || grp.source >= nc || grp.aggregate < 0 || grp.aggregate >= nc) {
      detail::require(false, id, "groups[" + std::to_string(g) + "].source", grp.source, "a compute chiplet id");
    }
  };
  const auto check_all = [&] {  // throws the first error in the order above
    std::vector<double> tokens(nr, 0.0);
    for (std::size_t g = 0; g < ng; ++g) {
      check_group(g);
      tokens[static_cast<std::size_t>(assignment[g])] += groups[g].tokens;
    }
    for (std::size_t r = 0; r < nr; ++r) {
      if (tokens[r] > 0.0) validate(replicas[r], s, r);
    }
  };
  double routed_tokens = 0.0;  // Σ N_g over the groups with tokens (a sum of integers: exact)
  auto& first_of = ws.first_of;  // first_of[r + 1]: groups with tokens on replica r (below: bucket starts)
  first_of.assign(nr + 1, 0);
  for (std::size_t g = 0; g < ng; ++g) {
    const auto& grp = groups[g];
    const int r = assignment[g];
    if (r < 0 || static_cast<std::size_t>(r) >= nr) check_group(g);
    const auto& rp = replicas[static_cast<std::size_t>(r)];
    if (rp.expert != grp.expert || rp.layer != grp.layer || grp.tokens < 0 || grp.source < 0 || grp.source >= nc ||
        grp.aggregate < 0 || grp.aggregate >= nc) {
      check_group(g);
    }
    out.replica_tokens[static_cast<std::size_t>(r)] += grp.tokens;
    src_tokens[static_cast<std::size_t>(grp.source)] += grp.tokens;
    agg_tokens[static_cast<std::size_t>(grp.aggregate)] += grp.tokens;
    auto& st = gs[g];
    if (grp.tokens == 0) {
      st.dispatch = st.gather = -1;
      continue;
    }
    const int c = rp.chiplet;
    if (c < 0 || c >= nc) check_all();
    ++first_of[static_cast<std::size_t>(r) + 1];
    const double bytes = grp.tokens * tok_b;
    st.bytes = bytes;
    const std::size_t pd = static_cast<std::size_t>(grp.source) * static_cast<std::size_t>(nc) + static_cast<std::size_t>(c);
    const std::size_t pg = static_cast<std::size_t>(c) * static_cast<std::size_t>(nc) + static_cast<std::size_t>(grp.aggregate);
    st.dispatch = static_cast<int>(pd);
    st.gather = static_cast<int>(pg);
    use_pair(pd, 0, bytes, grp.tokens);
    use_pair(pg, 1, bytes, grp.tokens);
    routed_tokens += grp.tokens;
  }
  for (std::size_t r = 0; r < nr; ++r) {
    if (out.replica_tokens[r] > 0.0) validate(replicas[r], s, r);
  }
  // The pairs met: each routed on its first use on this substrate, padded with hops that change
  // nothing; then what serving over it reads.
  const auto route_pair = [&](int q) -> detail::pair_route& {
    auto& pr = pairs[static_cast<std::size_t>(q)];
    if (pr.routed != ws.routed) {
      pr.routed = ws.routed;
      pr.begin = pair_paths.size();
      s.append_route(q / nc, q % nc, pair_paths);
      pr.end = pair_paths.size();
      pr.crossed = crossed(pair_paths, pr.begin, pr.end);
      pr.hop_begin = pair_hops.size();
      pr.bandwidth = pr.begin < pr.end ? links[static_cast<std::size_t>(pair_paths[pr.begin])].bandwidth.si() : 0.0;
      for (std::size_t i = pr.begin; i < pr.end; ++i) {
        const auto u = static_cast<std::size_t>(pair_paths[i]);
        pair_hops.push_back({u, u, links[u].bandwidth.si(), links[u].lambda.si(), 1.0});
        if (links[u].bandwidth.si() != pr.bandwidth) pr.bandwidth = 0.0;
      }
      while ((pair_hops.size() - pr.hop_begin) % route_block != 0) {
        pair_hops.push_back({link_server::idle_link(links), link_server::sink_link(links), std::numeric_limits<double>::infinity(), 0.0, 0.0});
      }
      pr.hop_end = pair_hops.size();
      pr.stream_bytes = -1.0;
    }
    return pr;
  };
  int max_crossed = 1;
  for (const int q : ws.pairs_used) max_crossed = std::max(max_crossed, route_pair(q).crossed);
  // Eq. 5 for the dispatches and gathers. Taken per pair, Σ_pairs (Σ_g N_g)·D_act on each link
  // of the pair's route, when every term is an integer number of bytes and every partial sum
  // stays below 2^53: each sum is then exact, in any order, and equals the per-request sum
  // (request by request, in group order, dispatch before gather), which is taken otherwise.
  // The NoC energy's bytes × chiplets crossed likewise.
  const bool exact_loads =
      tok_b == std::floor(tok_b) && routed_tokens * tok_b * 2.0 * static_cast<double>(max_crossed) <= 0x1p52;
  const auto add_load = [&](request_class k, double bytes, const detail::pair_route& pr) {
    for (std::size_t i = pr.begin; i < pr.end; ++i) {
      out.link_bytes[static_cast<std::size_t>(pair_paths[i]) * 4 + static_cast<std::size_t>(k)] += bytes;
    }
    noc_bytes += bytes * pr.crossed;
  };
  if (exact_loads) {
    for (const int p : ws.pairs_used) {
      const auto& pr = pairs[static_cast<std::size_t>(p)];
      const auto& pu = pair_uses[static_cast<std::size_t>(p)];
      if (pu.tokens[0] > 0.0) add_load(request_class::dispatch, pu.tokens[0] * tok_b, pr);
      if (pu.tokens[1] > 0.0) add_load(request_class::gather, pu.tokens[1] * tok_b, pr);
    }
  } else {
    for (std::size_t g = 0; g < ng; ++g) {
      if (gs[g].dispatch < 0) continue;
      add_load(request_class::dispatch, gs[g].bytes, pairs[static_cast<std::size_t>(gs[g].dispatch)]);
      add_load(request_class::gather, gs[g].bytes, pairs[static_cast<std::size_t>(gs[g].gather)]);
    }
  }
  for (const int p : ws.pairs_used) {
    const auto& pr = pairs[static_cast<std::size_t>(p)];
    max_route = std::max(max_route, route_time(pair_paths, pr.begin, pr.end, pair_uses[static_cast<std::size_t>(p)].max_bytes));
  }
  for (std::size_t r = 0; r < nr; ++r) {
    if (out.replica_tokens[r] <= 0.0) continue;
    const auto& rp = replicas[r];
    const auto& bank = banks[static_cast<std::size_t>(rp.bank)];
    if (bank.tier == tier_kind::sram) {  // no links
      const std::size_t begin = paths.size();
      s.append_memory_path(rp.bank, rp.chiplet, paths);
      req_of_replica[r] = push(request_class::memory, wt, begin);
    } else {  // `push` over the pair's route, its term kept
      const int q = bank.home * nc + rp.chiplet;
      auto& pr = route_pair(q);
      if (pr.stream_bytes != wt) {
        pr.stream_bytes = wt;
        pr.stream_term = route_time(pair_paths, pr.begin, pr.end, wt);
        ws.pair_xfer.resize(pair_hops.size());
        for (std::size_t i = pr.hop_begin; i < pr.hop_end; ++i) ws.pair_xfer[i] = wt / pair_hops[i].bandwidth;
      }
      max_route = std::max(max_route, pr.stream_term);
      max_mem_route = std::max(max_mem_route, pr.stream_term);
      add_load(request_class::memory, wt, pr);
      ws.stream_pair[r] = q;
    }
    for (int i = 0; i < rp.span; ++i) out.bank_bytes[static_cast<std::size_t>(rp.bank + i) * 2] += wt / rp.span;
  }
  // Every pair routed, pair_hops complete: its addresses stay.
  for (const int q : ws.pairs_used) {
    const auto& pr = pairs[static_cast<std::size_t>(q)];
    ws.pair_serves[static_cast<std::size_t>(q)] = {pair_hops.data() + pr.hop_begin, pr.hop_end - pr.hop_begin, pr.bandwidth};
  }
  for (std::size_t m = 0; m < migrations.size(); ++m) {
    const auto& mg = migrations[m];
    if (!mg.executed) continue;
    // Field names are built only on failure.
    if (mg.source_bank < 0 || static_cast<std::size_t>(mg.source_bank) >= nb) {
      detail::require(false, id, "migrations[" + std::to_string(m) + "].source_bank", mg.source_bank, "a bank id");
    }
    if (mg.destination_bank < 0 || static_cast<std::size_t>(mg.destination_bank) >= nb) {
      detail::require(false, id, "migrations[" + std::to_string(m) + "].destination_bank", mg.destination_bank, "a bank id");
    }
    if (!(mg.bytes.si() >= 0.0 && mg.bytes.si() <= 1e15)) {
      detail::require_in(mg.bytes.si(), 0.0, 1e15, id, "migrations[" + std::to_string(m) + "].bytes");
    }
    // Bank to bank: from the node the source bank's data enters the network at to the
    // destination's (an SRAM group enters the mesh at its first chiplet).
    const std::size_t begin = paths.size();
    s.append_route(s.bank_node(mg.source_bank), s.bank_node(mg.destination_bank), paths);
    push(request_class::migration, mg.bytes.si(), begin);
    out.bank_bytes[static_cast<std::size_t>(mg.source_bank) * 2 + 1] += mg.bytes.si();
    out.bank_bytes[static_cast<std::size_t>(mg.destination_bank) * 2 + 1] += mg.bytes.si();
  }

  // Eq. 8: link drain times; with the route term above, T^net. Eq. 12's memory drain.
  double max_drain = 0.0, max_mem_drain = 0.0;
  for (std::size_t u = 0; u < nl; ++u) {
    max_drain = std::max(max_drain, out.link_load(static_cast<int>(u)) / links[u].bandwidth.si());
    max_mem_drain = std::max(max_mem_drain, out.link_bytes[u * 4 + 2] / links[u].bandwidth.si());
  }
  out.t_net = duration<>::from_si(std::max(max_drain, max_route));
  // Eq. 10–11: the layer-level bound T^bank over each bank's whole traffic (a pressure term; a
  // replica waits only for the accesses ahead of it, below).
  double t_bank = 0.0;
  for (std::size_t b = 0; b < nb; ++b) {
    const double q = out.bank_load(static_cast<int>(b));
    t_bank = std::max(t_bank, bank_service_time(data_size<>::from_si(q), banks[b].latency, banks[b].bandwidth).si());
  }
  out.t_bank = duration<>::from_si(t_bank);
  out.t_mem = duration<>::from_si(std::max({t_bank, max_mem_drain, max_mem_route}));

  // Cores per replica (Eq. 4) and list scheduling when a chiplet has more replicas than cores.
  const double pi = s.core_throughput().si() * cp.tile_utilization * cp.compute_scale;
  const double ops_tok = shape.flops_per_token.si();
  const int cores = s.params().cores_per_chiplet;
  auto& replica_start = ws.replica_start;  // extra delay from core sharing (list scheduling)
  replica_start.assign(nr, 0.0);
  {
    auto& on = ws.on;
    on.resize(static_cast<std::size_t>(nc));
    for (auto& list : on) list.clear();
    for (std::size_t r = 0; r < nr; ++r) {
      if (out.replica_tokens[r] > 0.0) on[static_cast<std::size_t>(replicas[r].chiplet)].push_back(static_cast<int>(r));
    }
    for (auto& list : on) {
      if (list.empty()) continue;
      if (static_cast<int>(list.size()) == cores) {
        // As many replicas as cores: list scheduling puts each, whatever the order, on a core
        // still idle (start +0), one core each.
        for (int r : list) out.replica_cores[static_cast<std::size_t>(r)] = 1;
        continue;
      }
      // By decreasing work, ties by replica: a list is filled in replica order, so a stable
      // insertion on the work alone gives that order for a few replicas.
      const auto tokens_of = [&](int r) { return out.replica_tokens[static_cast<std::size_t>(r)]; };
      if (list.size() > 32) {
        std::sort(list.begin(), list.end(), [&](int a, int b) {
          return tokens_of(a) > tokens_of(b) || (tokens_of(a) == tokens_of(b) && a < b);
        });
      } else {
        for (std::size_t i = 1; i < list.size(); ++i) {
          const int e = list[i];
          const double w = tokens_of(e);
          std::size_t j = i;
          for (; j > 0 && w > tokens_of(list[j - 1]); --j) list[j] = list[j - 1];
          list[j] = e;
        }
      }
      const int n = static_cast<int>(list.size());
      if (n >= cores) {
        auto& core_free = ws.core_free;
        core_free.assign(static_cast<std::size_t>(cores), 0.0);
        // Each replica on the first least loaded core. While every core taken so far carries
        // work (> 0), that is the next idle one; else a search.
        bool busy_so_far = true;
        for (int i = 0; i < n; ++i) {
          const auto r = static_cast<std::size_t>(list[static_cast<std::size_t>(i)]);
          std::size_t k = static_cast<std::size_t>(i);
          if (i >= cores || !busy_so_far) {
            k = 0;
            double least = core_free[0];
            for (std::size_t j = 1; j < core_free.size(); ++j) {
              if (core_free[j] < least) {
                least = core_free[j];
                k = j;
              }
            }
          }
          out.replica_cores[r] = 1;
          replica_start[r] = core_free[k];
          core_free[k] += out.replica_tokens[r] * ops_tok / pi;
          busy_so_far = busy_so_far && core_free[k] > 0.0;
        }
      } else {
        double total = 0.0;
        for (int r : list) total += out.replica_tokens[static_cast<std::size_t>(r)];
        int left = cores - n;
        auto& rem = ws.rem;
        rem.clear();
        for (int r : list) {
          const double share = left * out.replica_tokens[static_cast<std::size_t>(r)] / total;
          const int extra = static_cast<int>(share);
          out.replica_cores[static_cast<std::size_t>(r)] = 1 + extra;
          rem.emplace_back(share - extra, r);
        }
        for (int r : list) left -= out.replica_cores[static_cast<std::size_t>(r)] - 1;
        std::sort(rem.begin(), rem.end(), [](const auto& a, const auto& b) { return a.first > b.first || (a.first == b.first && a.second < b.second); });
        for (std::size_t i = 0; i < rem.size() && left > 0; ++i, --left) out.replica_cores[static_cast<std::size_t>(rem[i].second)] += 1;
      }
    }
  }

  // Gate and combine: router and weighted sum on the chiplets that hold the tokens.
  double t_gate = 0.0, t_combine = 0.0, gate_flops = 0.0;
  // A token appears in top_k groups; the router and the weighted sum run once per token.
  const double per_routing = 1.0 / shape.top_k;
  for (int c = 0; c < nc; ++c) {
    const double src = src_tokens[static_cast<std::size_t>(c)] * per_routing;
    const double agg = agg_tokens[static_cast<std::size_t>(c)] * per_routing;
    t_gate = std::max(t_gate, src * shape.gate_flops_per_token.si() / (cores * pi));
    t_combine = std::max(t_combine, agg * shape.combine_flops_per_token.si() / (cores * pi));
    gate_flops += src * shape.gate_flops_per_token.si();
  }

  // Group completion (Eq. 14) as an event loop over the causal link model, in release order:
  // migrations (released at 0, in flight during the layer), dispatches (at T_gate), then weight
  // streams and gathers as their release times become known.
  auto& net = ws.net;
  net.reset(links, cp.arbitration);
  auto& hops = ws.hops;
  hops.resize(paths.size());
  for (std::size_t i = 0; i < paths.size(); ++i) {
    const auto u = static_cast<std::size_t>(paths[i]);
    hops[i] = route_hop{u, links[u].bandwidth.si(), links[u].lambda.si()};
  }
  auto serve = [&](request_class k, std::size_t i) {
    auto& r = reqs[static_cast<std::size_t>(k)][i];
    return net.serve(k, r.release, r.bytes, hops.data() + r.path_begin, r.path_end - r.path_begin);
  };
  // The dispatch or gather of group g, released at `release`, over the route of pair p.
  const auto serve_group = [&](request_class k, const detail::group_state& st, double release, int p) {
    const auto& ps = ws.pair_serves[static_cast<std::size_t>(p)];
    return net.serve_blocks(k, release, st.bytes, ps.hops, ps.n, ps.bandwidth);
  };
  // Release order: (time, index), earliest first.
  using event = std::pair<double, std::size_t>;
  const auto earlier = [](const event& a, const event& b) { return a.first < b.first || (a.first == b.first && a.second < b.second); };
  for (std::size_t i = 0; i < reqs[3].size(); ++i) (void)serve(request_class::migration, i);
  // Banks serve their accesses FCFS too: migrations (in flight from the start of the layer, in
  // index order) occupy their source and destination banks ahead of the weight streams.
  auto& bank_free = ws.bank_free;
  bank_free.assign(nb, 0.0);
  for (const auto& mg : migrations) {
    if (!mg.executed) continue;
    for (const int b : {mg.source_bank, mg.destination_bank}) {
      const auto i = static_cast<std::size_t>(b);
      bank_free[i] += bank_service_time(mg.bytes, banks[i].latency, banks[i].bandwidth).si();
    }
  }
  // Dispatches, released at T_gate, in index order; each group's compute time (Eq. 13).
  // Groups given slots by replica as they arrive (counting sort, so replica r's slots
  // [first_of[r], first_of[r + 1]) are in index order), each replica's (arrival, slot) keys then
  // put in arrival order by a stable sort on the arrival alone, which keeps equal arrivals in
  // slot order, that is index order.
  for (std::size_t r = 0; r < nr; ++r) first_of[r + 1] += first_of[r];
  auto& queue = ws.queue;
  queue.resize(first_of[nr]);
  auto& timed = ws.timed;
  timed.resize(first_of[nr]);
  auto& fill = ws.fill;
  fill.assign(first_of.begin(), first_of.end() - 1);
  // Eq. 13's denominator Π_core·k_r per replica, as `replica_compute_time` forms it.
  auto& comp_rate = ws.comp_rate;
  comp_rate.resize(nr);
  for (std::size_t r = 0; r < nr; ++r) comp_rate[r] = pi * (double(std::max(out.replica_cores[r], 1)) * 1.0);
  std::size_t ranked = 0;
  for (std::size_t g = 0; g < ng; ++g) {
    auto& st = gs[g];
    if (st.dispatch < 0) {  // no tokens: every time of the group is zero
      out.completion[g] = duration<>{};
      out.group_stages[g] = stage_times{};
      out.dispatch_wait[g] = duration<>{};
      out.gather_wait[g] = duration<>{};
      continue;
    }
    const auto tr = serve_group(request_class::dispatch, st, t_gate, st.dispatch);
    out.dispatch_wait[g] = duration<>::from_si(tr.wait());
    const auto r = static_cast<std::size_t>(assignment[g]);
    const std::size_t slot = fill[r]++;
    timed[slot] = {tr.arrive, slot};
    auto& q = queue[slot];
    q.rank = ranked++;
    q.arrive = tr.arrive;
    q.comp = groups[g].tokens * ops_tok / comp_rate[r];
    q.group = g;
  }
  // Replica service, FCFS by dispatch arrival. Compute overlaps the weight stream; a group
  // cannot finish before its replica's stream has.
  auto& first_start = ws.first_start;
  auto& replica_comp = ws.replica_comp;
  first_start.assign(nr, 0.0);
  replica_comp.assign(nr, 0.0);
  for (std::size_t r = 0; r < nr; ++r) {
    const auto first = timed.begin() + static_cast<std::ptrdiff_t>(first_of[r]);
    const auto last = timed.begin() + static_cast<std::ptrdiff_t>(first_of[r + 1]);
    if (first == last) continue;
    if (last - first > 32) {
      std::sort(first, last, earlier);
    } else {
      for (auto i = first + 1; i < last; ++i) {  // stable insertion on the time: a few groups each
        if (!(i->first < (i - 1)->first)) continue;
        const auto e = *i;
        auto j = i;
        for (; j > first && e.first < (j - 1)->first; --j) *j = *(j - 1);
        *j = e;
      }
    }
    double busy = t_gate + replica_start[r], total = 0.0;
    first_start[r] = std::max(first->first, busy);
    for (auto i = first; i < last; ++i) {
      auto& q = queue[i->second];
      q.start = std::max(i->first, busy);
      q.fin = q.start + q.comp;
      busy = q.fin;
      total += q.comp;
    }
    replica_comp[r] = total;
  }
  // Weight streams (Eq. 15) and gathers, served in release order (release, class, index).
  // Event: (release, key) with key = replica for a stream, nr + group for a gather, so streams
  // precede gathers at equal release and each class keeps its index order.
  const auto later = [&](const event& a, const event& b) { return earlier(b, a); };
  auto& streams = ws.streams;
  streams.clear();
  for (std::size_t r = 0; r < nr; ++r) {
    if (out.replica_tokens[r] <= 0.0) continue;
    const double release = cp.overlap == memory_overlap::compute_only ? first_start[r] : t_gate;
    if (req_of_replica[r] >= 0) reqs[2][static_cast<std::size_t>(req_of_replica[r])].release = release;
    streams.emplace_back(release, r);
  }
  detail::sort_by_time(streams, ws.timed_tmp, ws.key_count, ws.bucket);
  double t_moe = 0.0, t_comp_max = 0.0;
  auto& gathers = ws.gathers;  // released, not yet served (shared arbitration)
  gathers.clear();
  // Per-class arbitration: every gather as its group finishes, (release, group) listed in index
  // order (the bucket sort moves fewer of them than listed by replica), and the least and
  // greatest release, to be put in order after the streams.
  double first_release = std::numeric_limits<double>::infinity(), last_release = -first_release;
  // Replica r's weights: ready after its bank span's service and its route; its groups finish
  // and release their gathers.
  auto& stripe_service = ws.stripe_service;
  auto& stripe_span = ws.stripe_span;
  stripe_service.resize(nb);
  stripe_span.assign(nb, 0);
  auto serve_stream = [&](double release, std::size_t r) {
    const int q = ws.stream_pair[r];
    const auto tr = [&] {
      if (q < 0) return serve(request_class::memory, static_cast<std::size_t>(req_of_replica[r]));
      const auto& pr = pairs[static_cast<std::size_t>(q)];
      return net.serve_blocks(request_class::memory, release, pair_hops.data() + pr.hop_begin, ws.pair_xfer.data() + pr.hop_begin,
                              pr.hop_end - pr.hop_begin);
    }();
    const auto& rp = replicas[r];
    // Each bank of the span serves its stripe FCFS (Eq. 10 per access: latency + bytes / BW).
    // A bank's service of a stripe depends only on the span: taken once per (bank, span).
    double banks_done = release;
    const auto stripe = data_size<>::from_si(wt / rp.span);
    for (int j = 0; j < rp.span; ++j) {
      const auto b = static_cast<std::size_t>(rp.bank) + static_cast<std::size_t>(j);
      if (stripe_span[b] != rp.span) {
        const auto bw = bank_share.empty() ? banks[b].bandwidth : strata::bandwidth<>::from_si(banks[b].bandwidth.si() * bank_share[b]);
        stripe_service[b] = bank_service_time(stripe, banks[b].latency, bw).si();
        stripe_span[b] = rp.span;
      }
      const double begin = std::max(release, bank_free[b]);
      bank_free[b] = begin + stripe_service[b];
      banks_done = std::max(banks_done, bank_free[b]);
    }
    const double ready = std::max(banks_done, tr.arrive);
    out.memory_ready[r] = duration<>::from_si(ready);
    // In slot order: the gathers' heap pops its distinct (release, key) events in the same
    // order whatever order they were pushed in.
    for (std::size_t i = first_of[r]; i < first_of[r + 1]; ++i) {
      auto& q = queue[i];
      q.finish = std::max(q.fin, ready);
      if (cp.arbitration == link_arbitration::shared) {
        gathers.emplace_back(q.finish, nr + q.group);
        std::push_heap(gathers.begin(), gathers.end(), later);
      } else {
        timed[q.rank] = {q.finish, q.group};
        first_release = std::min(first_release, q.finish);
        last_release = std::max(last_release, q.finish);
      }
    }
  };
  // Gather of group g; C_g = arrival + T_combine is taken below.
  auto serve_gather = [&](double release, std::size_t g) {
    auto& st = gs[g];
    const auto tr = serve_group(request_class::gather, st, release, st.gather);
    out.gather_wait[g] = duration<>::from_si(tr.wait());
    st.gather_arrive = tr.arrive;
  };
  if (cp.arbitration == link_arbitration::per_class) {
    // Streams and gathers never share a queue: serve each class in its own release order, the
    // gathers by (release, group).
    for (const auto& [release, r] : streams) serve_stream(release, r);
    detail::sort_by_time(timed, ws.timed_tmp, ws.key_count, ws.bucket, first_release, last_release);
    for (const auto& [release, g] : timed) serve_gather(release, g);
  } else {
    // One queue per link: interleave, a gather released before the next stream goes first.
    for (const auto& [release, r] : streams) {
      while (!gathers.empty() && earlier(gathers.front(), event{release, r})) {
        std::pop_heap(gathers.begin(), gathers.end(), later);
        const auto [release, key] = gathers.back();
        gathers.pop_back();
        serve_gather(release, key - nr);
      }
      serve_stream(release, r);
    }
    while (!gathers.empty()) {
      std::pop_heap(gathers.begin(), gathers.end(), later);
      const auto [release, key] = gathers.back();
      gathers.pop_back();
      serve_gather(release, key - nr);
    }
  }
  // C_g = gather arrival + T_combine, its stages (the groups without tokens were zeroed with
  // the dispatches), and the critical group (the latest, the first in index order among
  // equals), in slot order.
  std::size_t critical = ng;
  for (const auto& q : queue) {
    const std::size_t g = q.group;
    const double arrived = gs[g].gather_arrive;
    const double c_g = arrived + t_combine;
    out.completion[g] = duration<>::from_si(c_g);
    out.group_stages[g] = stage_times{duration<>::from_si(t_gate), duration<>::from_si(q.arrive - t_gate),
                                      duration<>::from_si(q.start - q.arrive), duration<>::from_si(q.finish - q.fin),
                                      duration<>::from_si(q.comp), duration<>::from_si(arrived - q.finish),
                                      duration<>::from_si(t_combine)};
    if (critical == ng || c_g > t_moe || (c_g == t_moe && g < critical)) {
      t_moe = c_g;
      critical = g;
    }
  }
  if (critical < ng) {
    out.critical_group = static_cast<int>(critical);
    out.critical = out.group_stages[critical];
  }
  for (std::size_t r = 0; r < nr; ++r) t_comp_max = std::max(t_comp_max, replica_comp[r]);
  out.t_moe = duration<>::from_si(t_moe);
  out.t_comp = duration<>::from_si(t_comp_max);

  // Energy (Eq. 17–18).
  double total_tokens = 0.0;
  for (std::size_t r = 0; r < nr; ++r) total_tokens += out.replica_tokens[r];
  out.energy.compute = units::J(total_tokens * ops_tok * cp.energy_per_flop.si());
  for (std::size_t u = 0; u < nl; ++u) out.energy.d2d += units::J(out.link_load(static_cast<int>(u)) * links[u].energy.si());
  out.energy.noc = units::J(noc_bytes * cp.noc_energy.si());
  for (std::size_t b = 0; b < nb; ++b) {
    const double e = out.bank_load(static_cast<int>(b)) * banks[b].energy.si();
    auto& slot = banks[b].tier == tier_kind::sram ? out.energy.sram : banks[b].tier == tier_kind::hbm ? out.energy.hbm : out.energy.dram;
    slot += units::J(e);
  }
  for (const auto& m : migrations) {
    if (m.executed) out.energy.migration += cp.migration_control_energy;
  }
  out.energy.gate = units::J(gate_flops * cp.energy_per_flop.si());

  // Pressure counters (Eq. 19).
  const double w = cp.window.si();
  auto& chiplet_service = ws.chiplet_service;
  chiplet_service.assign(static_cast<std::size_t>(nc), 0.0);
  for (std::size_t r = 0; r < nr; ++r) {
    if (out.replica_tokens[r] <= 0.0) continue;
    chiplet_service[static_cast<std::size_t>(replicas[r].chiplet)] += replica_comp[r];
  }
  for (double t : chiplet_service) out.pressure.load = std::max(out.pressure.load, t / w);
  for (std::size_t u = 0; u < nl; ++u) {
    const double weighted = out.link_bytes[u * 4] + out.link_bytes[u * 4 + 1] + out.link_bytes[u * 4 + 2] +
                            cp.alpha_mig * out.link_bytes[u * 4 + 3];
    out.pressure.link = std::max(out.pressure.link, weighted / (links[u].bandwidth.si() * w));
    out.pressure.mig = std::max(out.pressure.mig, out.link_bytes[u * 4 + 3] / (links[u].bandwidth.si() * w));
  }
  for (std::size_t b = 0; b < nb; ++b) {
    const double weighted = out.bank_bytes[b * 2] + cp.alpha_mig * out.bank_bytes[b * 2 + 1];
    out.pressure.bank = std::max(out.pressure.bank, weighted / (banks[b].bandwidth.si() * w));
  }
}

/// Evaluates one MoE layer (`evaluate_layer_into` with the calling thread's workspace, kept
/// for its next layer: a workspace carries nothing from one layer to the next that changes a
/// result, and each thread has its own).
template <class = void>
inline layer_result evaluate_layer(const substrate& s, const moe_layer_shape& shape,
                                   const std::vector<token_group>& groups,
                                   const std::vector<replica>& replicas,
                                   const std::vector<int>& assignment,
                                   const critical_path_params& cp = {},
                                   const std::vector<migration>& migrations = {},
                                   const std::vector<double>& bank_share = {}) {
  thread_local layer_workspace ws;
  layer_result out;
  evaluate_layer_into(out, ws, s, shape, groups, replicas, assignment, cp, migrations, bank_share);
  return out;
}

/// Checks a layer's assignment and core allocation against Eq. 3 (x_{g,r} ≤ ξ_r ≤ Σ_g x_{g,r}:
/// a replica is active iff a group with tokens uses it), Eq. 4 (ξ_r ≤ k_r ≤ N_core·ξ_r and
/// Σ_{r on c} k_r ≤ N_core) and Eq. 21 (each group on one replica of its expert). Returns the
/// violations, empty when all hold.
template <class = void>
inline std::vector<std::string> constraint_violations(const substrate& s, const std::vector<token_group>& groups,
                                                      const std::vector<replica>& replicas,
                                                      const std::vector<int>& assignment, const layer_result& r) {
  std::vector<std::string> v;
  const int cores = s.params().cores_per_chiplet;
  std::vector<int> uses(replicas.size(), 0);
  if (assignment.size() != groups.size()) v.emplace_back("Eq. 21: assignment size differs from the group count");
  for (std::size_t g = 0; g < groups.size() && g < assignment.size(); ++g) {
    const int a = assignment[g];
    if (a < 0 || static_cast<std::size_t>(a) >= replicas.size() || replicas[static_cast<std::size_t>(a)].expert != groups[g].expert) {
      v.push_back("Eq. 21: group " + std::to_string(g) + " is not on a replica of its expert");
      continue;
    }
    if (groups[g].tokens > 0) ++uses[static_cast<std::size_t>(a)];
  }
  // Per chiplet, the cores its replicas hold and its active replicas (one pass over the replicas).
  std::vector<int> per_chiplet(static_cast<std::size_t>(s.chiplets()), 0), active_on(per_chiplet.size(), 0);
  for (std::size_t i = 0; i < replicas.size(); ++i) {
    const bool active = r.replica_tokens[i] > 0.0;
    if (active != (uses[i] > 0)) v.push_back("Eq. 3: replica " + std::to_string(i) + " active flag disagrees with its groups");
    const int k = r.replica_cores[i];
    if (active && (k < 1 || k > cores)) v.push_back("Eq. 4: active replica " + std::to_string(i) + " has " + std::to_string(k) + " cores");
    if (!active && k != 0) v.push_back("Eq. 4: inactive replica " + std::to_string(i) + " holds cores");
    per_chiplet[static_cast<std::size_t>(replicas[i].chiplet)] += k;
    active_on[static_cast<std::size_t>(replicas[i].chiplet)] += active ? 1 : 0;
  }
  for (std::size_t c = 0; c < per_chiplet.size(); ++c) {
    // With more active replicas than cores, replicas take turns on cores (list scheduling): the
    // cores held at any time never exceed N_core, which is what Eq. 4 bounds.
    const int active_here = active_on[c];
    if (active_here <= cores && per_chiplet[c] > cores) {
      v.push_back("Eq. 4: chiplet " + std::to_string(c) + " allocates " + std::to_string(per_chiplet[c]) + " cores");
    }
  }
  return v;
}

/// Eq. 40: a migration over `path` is allowed only if, on every link, foreground plus migration
/// utilisation over the window stays at or below `threshold` (η_u).
template <class = void>
inline bool migration_allowed(const substrate& s, const layer_result& fg, std::span<const int> path,
                              data_size<> bytes, duration<> window, double threshold) {
  detail::require_positive(window.si(), "strata.critical_path", "window", "s");
  detail::require_in(threshold, 0.0, 1.0, "strata.critical_path", "threshold");
  for (int u : path) {
    const auto i = static_cast<std::size_t>(u) * 4;
    const double b = s.links()[static_cast<std::size_t>(u)].bandwidth.si() * window.si();
    const double u_fg = (fg.link_bytes[i] + fg.link_bytes[i + 1] + fg.link_bytes[i + 2]) / b;
    const double u_mig = (fg.link_bytes[i + 3] + bytes.si()) / b;
    if (u_fg + u_mig > threshold) return false;
  }
  return true;
}

}  // namespace v0
}  // namespace strata
