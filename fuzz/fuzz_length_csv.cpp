// SPDX-License-Identifier: MIT
// Fuzz target: a length CSV (serving/length_csv.hpp), then requests drawn from it
// (requests.hpp, `apply_length_csv`): every length within [1, serving_limits().tokens], paired
// rows drawn together. The reader bounds the rows (2^20) and each count; 64 requests are drawn.
#include <cstddef>
#include <cstdint>

#include "fuzz_support.hpp"
#include "strata/serving/length_csv.hpp"

STRATA_FUZZ_TARGET(fuzz_length_csv) {
  return strata_fuzz::run([&] {
    const auto t = strata::parse_length_csv(strata_fuzz::as_text(data, size), "lengths.csv");
    if (t.prompt.empty() && t.output.empty()) strata_fuzz::finding("no rows without an error");
    if (t.has_prompt && t.has_output && t.prompt.size() != t.output.size()) strata_fuzz::finding("unpaired rows");
    strata::request_gen_params g;
    g.count = 64;
    strata::apply_length_csv(g, t);
    const int hi = strata::serving_limits().tokens;
    for (const auto& r : strata::generate_requests(g)) {
      if (r.prompt < 1 || r.prompt > hi || r.output < 1 || r.output > hi) strata_fuzz::finding("length out of range", r.prompt);
    }
  });
}
