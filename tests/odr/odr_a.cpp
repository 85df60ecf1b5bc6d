// ODR test, first translation unit: the umbrella and JSON headers must link twice without clashes.
// Its check: parameters survive a JSON round trip here, and this unit's evaluation agrees with the
// other unit's (compared in odr_b.cpp's main, whose exit status is the test's verdict).
// In core.odr_mixed this unit is built with STRATA_COMPILED=1 (the `extern template` declarations
// of the coverage check and the sweep engine among them) and odr_b.cpp header-only: both must link
// together with strata::compiled and give the same text.
#include <sstream>
#include <string>

#include <strata/strata.hpp>
#include <strata/json.hpp>

int strata_odr_a() {
  const strata::mono3d_params<> p{};
  const strata::json j = p;
  const auto back = j.get<strata::mono3d_params<>>();
  if (!(back == p)) return -1;  // a failed round trip cannot match the tier count in odr_b.cpp
  return static_cast<int>(strata::evaluate(back).tiers.size());
}

// Coverage verdicts and a two-axis sweep to CSV and JSON Lines (odr_b.cpp computes the same).
std::string strata_odr_a_text() {
  const auto m = strata::preset("Mixtral-8x7B");
  std::string t = strata::gpu_coverage(m, "b200", strata::preset_ignored_keys("Mixtral-8x7B")).text() + "\n" +
                  strata::stratum_coverage(m).text() + "\n" + strata::knobs_note("h100_sxm5") + "\n";
  const auto space = strata::cartesian({strata::list_axis("x", {1.0, 2.5}), strata::integer_axis("n", 1, 3),
                                        strata::log_axis("f", 1.0, 100.0, 2)});
  std::ostringstream csv, jsonl;
  strata::csv_writer writer(csv, space, strata::parse_shard("1/1"));
  strata::jsonl_writer lines(jsonl);
  const auto fn = [](const strata::design_point& x) { return x["x"] * x.as_int("n") + x["f"]; };
  strata::stream_sweep(space, fn, writer, {.threads = 2});
  strata::stream_sweep(space, fn, lines, {.threads = 1});
  return t + csv.str() + jsonl.str();
}
