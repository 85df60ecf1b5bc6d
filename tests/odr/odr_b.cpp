// ODR test, second translation unit: includes the same headers, uses the same inline functions
// and templates, and calls into the first.
#include <sstream>
#include <string>

#include <strata/strata.hpp>
#include <strata/json.hpp>

int strata_odr_a();
std::string strata_odr_a_text();

int main() {
  const auto r = strata::evaluate(strata::mono3d_params<>{});
  // The same coverage verdicts and sweep as odr_a.cpp's, computed here (header-only in both tests).
  const auto m = strata::preset("Mixtral-8x7B");
  std::string t = strata::gpu_coverage(m, "b200", strata::preset_ignored_keys("Mixtral-8x7B")).text() + "\n" +
                  strata::stratum_coverage(m).text() + "\n" + strata::knobs_note("h100_sxm5") + "\n";
  const auto space = strata::cartesian({strata::list_axis("x", {1.0, 2.5}), strata::integer_axis("n", 1, 3),
                                        strata::log_axis("f", 1.0, 100.0, 2)});
  std::ostringstream csv, jsonl;
  strata::csv_writer writer(csv, space, strata::parse_shard("1/1"));
  strata::jsonl_writer lines(jsonl);
  const auto fn = [](const strata::design_point& x) { return x["x"] * x.as_int("n") + x["f"]; };
  strata::stream_sweep(space, fn, writer, {.threads = 1});
  strata::stream_sweep(space, fn, lines, {.threads = 2});
  t += csv.str() + jsonl.str();
  // 12 points: a header and 12 rows of CSV, 12 lines of JSON; B200 has no published serving run.
  const bool text_ok = t == strata_odr_a_text() && t.find("index,x,n,f,value\n") != std::string::npos &&
                       t.find("serving knobs not checked on B200") != std::string::npos &&
                       t.find("\n11,2.5,3,100,107.5\n") != std::string::npos;
  return strata_odr_a() == static_cast<int>(r.tiers.size()) && text_ok && strata::version > 0 ? 0 : 1;
}
