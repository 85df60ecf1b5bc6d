// An outside project's own check row: the capacity of the default Mono3D die (a library model)
// against a datasheet-like reference with a tolerance, appended to the library's `stratum device`
// family and printed with the library's printer. It includes that family's header only
// (`report/stratum_device_rows.hpp`), so it compiles none of the other families (and, linked with
// strata::compiled, none of the row code). The argument picks the reference:
//   pass   32 GiB ±1 %: the row passes, exit 0
//   fail   40 GiB ±1 %: the row fails, exit 1
//   known  40 GiB ±1 % with a known disagreement: the row fails and is listed, exit 0
#include <iostream>
#include <string>
#include <vector>

#include <strata/device/mono3d.hpp>
#include <strata/report/paper_io.hpp>
#include <strata/report/stratum_device_rows.hpp>

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "pass";
  if (mode != "pass" && mode != "fail" && mode != "known") {
    std::cerr << "usage: app [pass|fail|known]\n";
    return 2;
  }
  // The library's rows of one family (as `strata-paper-report --only stratum-device`).
  std::vector<strata::paper_row> rows = strata::stratum_device_rows();

  const auto die = strata::evaluate(strata::mono3d_params<>{});
  auto row = strata::relative_row("mine.device.capacity_GiB", die.capacity.in(strata::units::GiB), "GiB",
                                  mode == "pass" ? 32.0 : 40.0, 0.01, "vendor datasheet (example)");
  if (mode == "known") row.known_disagreement = "the datasheet counts spare banks the model leaves out";
  rows.push_back(row);

  strata::write_report_markdown(std::cout, rows);
  return strata::report_passes(rows) ? 0 : 1;
}
