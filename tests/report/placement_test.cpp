// Tests of the placement rows of the paper report (Stratum §5.2, §6.2.1, Table 4).
#include "strata/report/placement.hpp"

#include <doctest/doctest.h>

#include <cmath>  // std::isfinite
#include <set>    // std::set
#include <string> // std::string

#include "strata/workload/trace_io.hpp"

using namespace strata;

namespace {

const paper_row& row_of(const std::vector<paper_row>& rows, const std::string& id) {
  for (const auto& r : rows) {
    if (r.id == id) return r;
  }
  FAIL("no row " << id);
  return rows.front();
}

void check_rows(const std::vector<paper_row>& rows) {
  std::set<std::string> ids;
  for (const auto& r : rows) {
    CAPTURE(r.id);
    CAPTURE(r.value);
    CHECK(ids.insert(r.id).second);  // each id once
    CHECK(std::isfinite(r.value));
    CHECK(r.id.rfind("stratum.", 0) == 0);
    CHECK(!r.source.empty());
    if (r.check == row_check::predict) {
      CHECK(r.kind == row_kind::prediction);
      CHECK_FALSE(r.paper.has_value());
    } else {
      REQUIRE(r.ok().has_value());
      CHECK(*r.ok());
    }
  }
}

}  // namespace

TEST_CASE("The placement rows are computed, each once, and the judged ones pass") {
  const auto rows = stratum_placement_rows();
  check_rows(rows);
  for (const char* m : {"olmoe", "mixtral", "llama4_scout"}) {
    const std::string pre = std::string("stratum.placement.") + m + ".";
    CAPTURE(pre);
    CHECK(row_of(rows, pre + "hit_rate").kind == row_kind::input);
    CHECK(row_of(rows, pre + "expert_rows_fraction").value <= 1.0);
    CHECK(row_of(rows, pre + "fast_tier_traffic_share").value >= row_of(rows, pre + "hit_rate").value - 1e-12);
    CHECK(row_of(rows, pre + "swap_rows_per_bank").value > 0.0);
    CHECK(row_of(rows, pre + "swap_time_us").value > 0.0);
    CHECK(row_of(rows, pre + "swap_energy_mJ").value > 0.0);
    MESSAGE(pre << " swap " << row_of(rows, pre + "swap_rows_per_bank").value << " rows/bank, "
                << row_of(rows, pre + "swap_time_us").value << " us, " << row_of(rows, pre + "swap_energy_mJ").value
                << " mJ; tier-0 share " << row_of(rows, pre + "fast_tier_traffic_share").value << "; expert rows "
                << row_of(rows, pre + "expert_rows_fraction").value);
  }
  // 8 tiers of 4096 rows (uniform mapping), programmed within the logic die's fields.
  CHECK(row_of(rows, "stratum.tiering.rows_per_tier").value == 4096.0);
  CHECK(row_of(rows, "stratum.tiering.rows_max_over_min").value == 1.0);
  CHECK(row_of(rows, "stratum.tiering.slowest_trcd_code").value > row_of(rows, "stratum.tiering.fastest_trcd_code").value);
}

TEST_CASE("The count-table rows order own >= topic mix >= uniform layout hit rate on average") {
  const auto counts = load_expert_counts_csv(std::string(STRATA_TEST_DATA_DIR) +
                                             "/traces/olmoe_mixtral_expert_counts_by_domain.csv");
  const auto rows = stratum_placement_count_rows(counts);
  check_rows(rows);
  CHECK(rows.size() == 8);
  for (const char* m : {"olmoe", "mixtral"}) {
    const std::string pre = std::string("stratum.placement.counts.") + m + ".";
    const double own = row_of(rows, pre + "own_domain_hit_rate").value;
    const double mix = row_of(rows, pre + "topic_mix_hit_rate").value;
    const double other = row_of(rows, pre + "other_domain_hit_rate").value;
    const double uni = row_of(rows, pre + "uniform_layout_hit_rate").value;
    CAPTURE(pre);
    CHECK(own >= mix);
    CHECK(mix >= uni);
    CHECK(own > other);
    MESSAGE(pre << " own " << own << ", mix " << mix << ", other " << other << ", uniform " << uni);
  }
}
