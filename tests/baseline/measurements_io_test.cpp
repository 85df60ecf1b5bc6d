#include "strata/baseline/measurements_io.hpp"

#include <doctest/doctest.h>

#include "support/field_of.hpp"
#include "support/opening_rule.hpp"
#include "support/scratch_dir.hpp"

#include <cstdint>    // std::int64_t
#include <fstream>    // std::ifstream
#include <iterator>   // std::istreambuf_iterator
#include <set>        // std::set
#include <string>     // std::string

#include "strata/baseline/gpu_measurements_data.hpp"

using namespace strata;
using strata_test::field_of;

namespace {

const std::string data_file = std::string(STRATA_TEST_DATA_DIR) + "/measurements/gpu_measurements.csv";

const std::string header =
    "id,model,gpu,devices,batch,input_len,output_len,metric,value,unit,set,engine,precision,source,location,unknowns\n";
const std::string good_row =
    "r1,Mixtral-8x7B,h100_sxm5,8,1,1000,50,e2e_latency,0.459,s,fit,vLLM,BF16,example.org,table 1,none\n";

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

// The row text with column `col` (0-based) replaced by `value`.
std::string with_column(std::string row, int col, const std::string& value) {
  std::size_t b = 0;
  for (int i = 0; i < col; ++i) b = row.find(',', b) + 1;
  std::size_t e = row.find(',', b);
  if (e == std::string::npos) e = row.size() - 1;  // before the newline
  return row.replace(b, e - b, value);
}

}  // namespace

TEST_CASE("a measurement row reads every column with its unit and set") {
  const auto rows = parse_measurements_csv("# comment\n" + header + "\n" + good_row, "m.csv");
  REQUIRE(rows.size() == 1);
  const measurement& m = rows[0];
  CHECK(m.id == "r1");
  CHECK(m.model == "Mixtral-8x7B");
  CHECK(m.gpu == "h100_sxm5");
  CHECK(m.devices == 8);
  CHECK(m.batch == 1);
  CHECK(m.input_len == 1000);
  CHECK(m.output_len == 50);
  CHECK(m.metric == measured_metric::e2e_latency);
  CHECK(m.value == 0.459);
  CHECK(m.set == measurement_set::fit);
  CHECK(m.weight_bits() == 16);
  CHECK(m.line == 4);  // comment, header, blank line, row
  CHECK(unit_of(measured_metric::output_tokens_per_s) == std::string("tokens/s"));
  CHECK(higher_is_better(measured_metric::output_tokens_per_s));
  CHECK_FALSE(higher_is_better(measured_metric::tpot));
}

TEST_CASE("model names are canonicalised to the preset's name") {
  const auto rows = parse_measurements_csv(header + with_column(good_row, 1, "mixtral_8x7b"));
  CHECK(rows.at(0).model == "Mixtral-8x7B");
}

TEST_CASE("bad lines name the file and line, the column and the value") {
  auto bad = [](const std::string& row) { return header + good_row + row; };
  SUBCASE("unknown model") {
    const std::string t = bad(with_column(good_row, 1, "GPT-5"));
    CHECK(field_of([&] { (void)parse_measurements_csv(t, "m.csv"); }) == "m.csv:3");
    CHECK_THROWS_WITH_AS((void)parse_measurements_csv(t, "m.csv"),
                         doctest::Contains("model \"GPT-5\" is not a preset"), config_error);
  }
  SUBCASE("unknown GPU") {
    CHECK_THROWS_WITH_AS((void)parse_measurements_csv(bad(with_column(good_row, 2, "b300")), "m.csv"),
                         doctest::Contains("m.csv:3: gpu \"b300\" is not a GPU preset"), config_error);
  }
  SUBCASE("devices out of range") {
    CHECK_THROWS_WITH_AS((void)parse_measurements_csv(bad(with_column(good_row, 3, "65")), "m.csv"),
                         doctest::Contains("devices must be an integer in [1, 64], got \"65\""), config_error);
  }
  SUBCASE("batch not a number") {
    CHECK_THROWS_WITH_AS((void)parse_measurements_csv(bad(with_column(good_row, 4, "x")), "m.csv"),
                         doctest::Contains("batch must be an integer in [1, 4096], got \"x\""), config_error);
  }
  SUBCASE("output length beyond the bound") {
    CHECK_THROWS_WITH_AS((void)parse_measurements_csv(bad(with_column(good_row, 6, "65537")), "m.csv"),
                         doctest::Contains("output_len must be an integer in [1, 65536]"), config_error);
  }
  SUBCASE("unknown metric") {
    CHECK_THROWS_WITH_AS((void)parse_measurements_csv(bad(with_column(good_row, 7, "latency")), "m.csv"),
                         doctest::Contains("metric must be e2e_latency, output_tokens_per_s, tpot or ttft"),
                         config_error);
  }
  SUBCASE("value zero, negative, infinite, outside the physical range of a time") {
    for (const char* v : {"0", "-1", "inf", "1e400", "nan", "5e-324", "1e308", "9.9e-7", "100001", "-0"}) {
      CAPTURE(v);
      CHECK_THROWS_WITH_AS((void)parse_measurements_csv(bad(with_column(good_row, 8, v)), "m.csv"),
                           doctest::Contains("value of e2e_latency must be a number in [1e-06, 100000] s"), config_error);
    }
    // The bounds themselves are measurements.
    for (const char* v : {"1e-6", "1e5"}) {
      CAPTURE(v);
      CHECK(parse_measurements_csv(header + with_column(good_row, 8, v), "m.csv").front().value == doctest::Approx(std::stod(v)));
    }
  }
  SUBCASE("throughput outside its physical range") {
    std::string row = with_column(with_column(good_row, 7, "output_tokens_per_s"), 9, "tokens/s");
    for (const char* v : {"5e-324", "1e308", "0.0009", "1000001"}) {
      CAPTURE(v);
      CHECK_THROWS_WITH_AS((void)parse_measurements_csv(bad(with_column(row, 8, v)), "m.csv"),
                           doctest::Contains("value of output_tokens_per_s must be a number in [0.001, 1e+06] tokens/s"),
                           config_error);
    }
    CHECK(parse_measurements_csv(header + with_column(row, 8, "25.5"), "m.csv").front().value == 25.5);
  }
  SUBCASE("unit not the metric's") {
    CHECK_THROWS_WITH_AS((void)parse_measurements_csv(bad(with_column(good_row, 9, "ms")), "m.csv"),
                         doctest::Contains("unit of e2e_latency must be s, got \"ms\""), config_error);
  }
  SUBCASE("set neither fit nor check") {
    CHECK_THROWS_WITH_AS((void)parse_measurements_csv(bad(with_column(good_row, 10, "train")), "m.csv"),
                         doctest::Contains("set must be fit or check"), config_error);
  }
  SUBCASE("precision unknown") {
    CHECK_THROWS_WITH_AS((void)parse_measurements_csv(bad(with_column(good_row, 12, "INT4")), "m.csv"),
                         doctest::Contains("precision must be BF16, FP16 or FP8"), config_error);
  }
  SUBCASE("empty source") {
    CHECK_THROWS_WITH_AS((void)parse_measurements_csv(bad(with_column(good_row, 13, "")), "m.csv"),
                         doctest::Contains("m.csv:3: source is empty"), config_error);
  }
  SUBCASE("repeated id") {
    CHECK_THROWS_WITH_AS((void)parse_measurements_csv(bad(good_row), "m.csv"),
                         doctest::Contains("id \"r1\" repeats line 2"), config_error);
  }
  SUBCASE("column count") {
    CHECK_THROWS_WITH_AS((void)parse_measurements_csv(bad("a,b,c\n"), "m.csv"),
                         doctest::Contains("m.csv:3: expected 16 columns, got 3"), config_error);
  }
  SUBCASE("quotes") {
    CHECK_THROWS_WITH_AS((void)parse_measurements_csv(bad("\"a\",b\n"), "m.csv"),
                         doctest::Contains("quoted CSV fields are not supported"), config_error);
  }
}

TEST_CASE("a file must have the header, at least one row and stay within its bounds") {
  CHECK_THROWS_WITH_AS((void)parse_measurements_csv("", "m.csv"), doctest::Contains("m.csv:0: no header line"),
                       config_error);
  CHECK_THROWS_WITH_AS((void)parse_measurements_csv(header, "m.csv"), doctest::Contains("no measurement rows"),
                       config_error);
  CHECK_THROWS_WITH_AS((void)parse_measurements_csv("id,model\n" + good_row, "m.csv"),
                       doctest::Contains("m.csv:1: header must be id,model,gpu"), config_error);
  measurements_csv_limits lim;
  lim.max_rows = 1;
  CHECK_THROWS_WITH_AS((void)parse_measurements_csv(header + good_row + with_column(good_row, 0, "r2"), "m.csv", lim),
                       doctest::Contains("m.csv:3: more than 1 rows"), config_error);
  lim = {};
  lim.max_line = 40;
  CHECK_THROWS_WITH_AS((void)parse_measurements_csv(header + good_row, "m.csv", lim),
                       doctest::Contains("m.csv:1: line of 111 bytes exceeds the limit 40"), config_error);
  CHECK(field_of([] { (void)read_measurements_csv("/nonexistent/m.csv"); }) == "measurements");
}

TEST_CASE("read_measurements_csv opens its file under the opening rule (core/files.hpp)") {
  strata_test::check_opening_rule([](const std::string& p) { (void)read_measurements_csv(p); }, "measurements",
                                  "measurements", &input_limits::measurement_file_bytes, "measurement_file_bytes",
                                  header + good_row);
  CHECK(limits().measurement_file_bytes == std::int64_t{4} << 20);  // the former fixed 4 MiB
  // A bad line still names the file and the line.
  const strata_test::scratch_dir d("measurements");
  const std::string bad = d.write("bad.csv", header + with_column(good_row, 3, "0"));
  CHECK(field_of([&] { (void)read_measurements_csv(bad); }) == bad + ":2");
}

TEST_CASE("an id of invalid UTF-8 (bytes FF FE) is read as it is") {
  const auto rows = parse_measurements_csv(header + with_column(good_row, 0, "r\xFF\xFE"), "m.csv");
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].id == "r\xFF\xFE");
}

TEST_CASE("the shipped measurement set: 34 cited rows, 4 preset models, fit and check alternating") {
  const auto rows = read_measurements_csv(data_file);
  CHECK(rows.size() == 34);
  std::set<std::string> models, gpus, ids;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    CAPTURE(rows[i].id);
    models.insert(rows[i].model);
    gpus.insert(rows[i].gpu);
    ids.insert(rows[i].id);
    // The rule fixed before any error was computed: rows in file order alternate fit, check, ...
    CHECK(rows[i].set == (i % 2 == 0 ? measurement_set::fit : measurement_set::check));
    CHECK_FALSE(rows[i].source.empty());
    CHECK_FALSE(rows[i].location.empty());
  }
  CHECK(ids.size() == rows.size());
  CHECK(models == std::set<std::string>{"DBRX", "Mixtral-8x22B", "Mixtral-8x7B", "Qwen2.5-32B"});
  CHECK(gpus == std::set<std::string>{"a100_sxm4_80gb", "h100_sxm5"});
}

TEST_CASE("the compiled-in measurement set is the data file byte for byte") {
  // scripts/embed_measurements.sh regenerates the header after an edit of the file.
  CHECK(std::string(published_gpu_measurements_csv()) == slurp(data_file));
  CHECK(published_gpu_measurements().size() == read_measurements_csv(data_file).size());
}
