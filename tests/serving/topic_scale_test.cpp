#include "strata/stratum/serving/topic_usage.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "strata/serving/requests.hpp"
#include "strata/serving/serving_json.hpp"
#include "strata/workload/trace_io.hpp"
#include "support/field_of.hpp"

// Work bounded by the input's size: the topic lookup of a count table is near-linear in the table
// and the topics (issue 24; the former lookup was cubic in the topics). The ctest case has a
// TIMEOUT (tests/CMakeLists.txt) as the guard for the 2048-topic inputs; the results are checked
// against the former algorithms, written out here.

using namespace strata;
using strata_test::field_of;

namespace {

// The former `topic_usage_from_counts`: per topic, a scan of every series, the list of the known
// topics grown by a substring search.
topic_tables topic_usage_by_scan(const expert_count_table& counts, std::string_view counts_model, std::string_view selection,
                                 std::string_view checkpoint, const std::vector<std::string>& topics, int moe_layers,
                                 const std::string& at = {}) {
  topic_tables out;
  out.topics = topics;
  for (std::size_t i = 0; i < topics.size(); ++i) {
    const expert_counts* hit = nullptr;
    int n = 0;
    std::string have;
    for (const auto& s : counts.series) {
      if (s.key.model != counts_model || s.key.selection != selection) continue;
      if (have.find(s.key.topic) == std::string::npos) have += (have.empty() ? "" : ", ") + s.key.topic;
      if (s.key.topic == topics[i] && (checkpoint.empty() || s.key.checkpoint == checkpoint)) {
        hit = &s;
        ++n;
      }
    }
    const std::string f = detail::at_field(at, "topics") + "[" + std::to_string(i) + "]";
    if (n != 1) throw config_error(f, f + ": " + have);
    out.tables.push_back(usage_from_counts(*hit, moe_layers));
  }
  return out;
}

// The former topic index of `requests_from_list`: the last equal name of a scan.
int topic_by_scan(const std::vector<std::string>& topics, const std::string& name) {
  int t = -1;
  for (std::size_t k = 0; k < topics.size(); ++k) {
    if (topics[k] == name) t = static_cast<int>(k);
  }
  return t;
}

std::vector<std::string> numbered_topics(int n) {
  std::vector<std::string> t;
  for (int i = 0; i < n; ++i) t.push_back("topic" + std::to_string(i));
  return t;
}

// A count table of `topics` topics of model "M" (one saved layer of 8 experts, top-2): topic i
// routes every token to experts i mod 8 and (i + 1) mod 8; topics of `second_checkpoint` are
// saved for a second checkpoint too.
std::string many_topic_counts(const std::vector<std::string>& topics, const std::string& second_checkpoint = {}) {
  std::string text = "model,checkpoint,domain,selection,layer,expert,count,tokens\n";
  for (std::size_t i = 0; i < topics.size(); ++i) {
    for (const std::string& ck : {std::string("base"), second_checkpoint}) {
      if (ck.empty() || (ck != "base" && i % 3 != 0)) continue;
      for (std::size_t e = 0; e < 8; ++e) {
        const bool used = e == i % 8 || e == (i + 1) % 8;
        text += "M," + ck + "," + topics[i] + ",topk2,0," + std::to_string(e) + "," + (used ? "100" : "0") + ",100\n";
      }
    }
  }
  return text;
}

const expert_count_table& domain_counts() {
  static const auto c =
      load_expert_counts_csv(std::string(STRATA_TEST_DATA_DIR) + "/traces/olmoe_mixtral_expert_counts_by_domain.csv");
  return c;
}

}  // namespace

TEST_CASE("topic usage from counts gives the former lookup's tables and refusals on small tables") {
  struct lookup {
    const expert_count_table* table;
    std::string model, selection, checkpoint;
    std::vector<std::string> topics;
    int layers;
  };
  const auto small = parse_expert_counts_csv(many_topic_counts({"c", "c4", "arxiv", "book", "c4x", "b", "x"}, "tuned"));
  const std::vector<lookup> cases{
      {&domain_counts(), "Mixtral-8x7B-v0.1", "topk2", "pretrained", {"arxiv", "book", "c4", "github", "wikipedia"}, 32},
      {&domain_counts(), "Mixtral-8x7B-v0.1", "top1", "", {"wikipedia", "arxiv"}, 32},
      {&domain_counts(), "OLMoE-1B-7B-0824", "topk8", "pretrained", {"arxiv", "book", "c4", "github", "tulu", "wikipedia"}, 16},
      {&domain_counts(), "OLMoE-1B-7B-0824", "topk8", "", {"arxiv"}, 16},  // several checkpoints
      {&domain_counts(), "OLMoE-1B-7B-0824", "topk8", "SFT", {"arxiv", "poetry"}, 16},
      {&small, "M", "topk2", "base", {"c4x", "c", "b", "c4", "book", "arxiv"}, 4},
      {&small, "M", "topk2", "", {"c4", "book"}, 4},  // "book" (index 3) has two checkpoints
      {&small, "M", "topk2", "tuned", {"c", "book"}, 2},
      {&small, "M", "topk2", "tuned", {"c4"}, 2},  // no tuned series
      {&small, "N", "topk2", "base", {"c"}, 2},
  };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    CAPTURE(i);
    const auto& c = cases[i];
    const std::string want = field_of([&] {
      (void)topic_usage_by_scan(*c.table, c.model, c.selection, c.checkpoint, c.topics, c.layers, "requests");
    });
    const std::string got = field_of([&] {
      (void)topic_usage_from_counts(*c.table, c.model, c.selection, c.checkpoint, c.topics, c.layers, "requests");
    });
    CHECK(got == want);
    if (want == "<no config_error>") {
      const auto a = topic_usage_from_counts(*c.table, c.model, c.selection, c.checkpoint, c.topics, c.layers);
      const auto b = topic_usage_by_scan(*c.table, c.model, c.selection, c.checkpoint, c.topics, c.layers);
      CHECK(a.topics == b.topics);
      CHECK(a.tables == b.tables);
    }
  }
  // The message lists the known topics once each, in table order (the former substring search
  // dropped "x", found in "arxiv").
  try {
    (void)topic_usage_from_counts(small, "M", "topk2", "base", {"poetry"}, 1);
    FAIL("no config_error");
  } catch (const config_error& e) {
    CHECK(std::string(e.what()).find("has counts for arxiv, b, book, c, c4, c4x, x") != std::string::npos);
  }
}

TEST_CASE("request lists and topic mixes: topic indices and repeats as the former scans found them") {
  const std::vector<std::string> topics{"arxiv", "book", "c4", "github", "wikipedia"};
  std::vector<request_spec> list;
  for (int i = 0; i < 40; ++i) list.push_back({0.5 * (40 - i), 8, 4, topics[static_cast<std::size_t>(i * 7) % topics.size()]});
  const auto reqs = requests_from_list(list, topics);
  REQUIRE(reqs.size() == list.size());
  for (std::size_t i = 0; i < list.size(); ++i) {
    CAPTURE(i);
    CHECK(reqs[list.size() - 1 - i].topic == topic_by_scan(topics, list[i].topic));  // sorted by arrival
  }
  // A repeated name: the first index that repeats an earlier one is named, as the scan did.
  request_gen_params g;
  g.topics = {"a", "b", "c", "b", "a"};
  CHECK(field_of([&] { validate(g, "requests"); }) == "requests.topics[3]");
  g.topics = {"z", "y", "x", "y", "z", "x"};
  CHECK(field_of([&] { validate(g, "requests"); }) == "requests.topics[3]");
  g.topics = {"a", std::string(), "a"};
  CHECK(field_of([&] { validate(g, "requests"); }) == "requests.topics[1]");
  g.topics = numbered_topics(4096);
  CHECK(field_of([&] { validate(g, "requests"); }) == "<no config_error>");
  g.topics.back() = "topic17";
  CHECK(field_of([&] { validate(g, "requests"); }) == "requests.topics[4095]");
}

TEST_CASE("a 2048-topic count table: read, every topic looked up, requests labelled, in near-linear time") {
  constexpr int n = 2048;
  const auto names = numbered_topics(n);
  const auto table = parse_expert_counts_csv(many_topic_counts(names, "tuned"));
  REQUIRE(table.series.size() == static_cast<std::size_t>(n + (n + 2) / 3));
  std::vector<std::string> asked(names.rbegin(), names.rend());
  const auto t = topic_usage_from_counts(table, "M", "topk2", "base", asked, 32, "requests");
  REQUIRE(t.tables.size() == static_cast<std::size_t>(n));
  bool right = true;
  for (int k = 0; k < n; ++k) {
    const int i = n - 1 - k;  // asked[k] is topic i
    const auto& f = t.tables[static_cast<std::size_t>(k)];
    right = right && f.size() == 32 && f[31][static_cast<std::size_t>(i % 8)] == 1.0 &&
            f[0][static_cast<std::size_t>((i + 1) % 8)] == 1.0 && f[5][static_cast<std::size_t>((i + 2) % 8)] == 0.0;
  }
  CHECK(right);
  // Requests naming 2048 topics.
  std::vector<request_spec> list;
  for (int r = 0; r < 50000; ++r) list.push_back({0.001 * r, 16, 8, names[static_cast<std::size_t>(r * 37 % n)]});
  const auto reqs = requests_from_list(list, names);
  bool labelled = true;
  for (int r = 0; r < 50000; ++r) labelled = labelled && reqs[static_cast<std::size_t>(r)].topic == r * 37 % n;
  CHECK(labelled);
  // A serving run of 2048 topics on Mixtral asks for 2048 x 2049 x 256 topic-layout cells: refused
  // when read, naming the topics and the limit, before any table is built.
  json j = json::parse(R"({"model": "Mixtral-8x7B", "requests": {"count": 10}})");
  j["requests"]["topics"] = names;
  try {
    (void)read_serving_scenario(j.dump());
    FAIL("no config_error");
  } catch (const config_error& e) {
    CHECK(e.field() == "requests.topics");
    CHECK(std::string(e.what()).find("1074266112 topic-layout cells") != std::string::npos);
    CHECK(std::string(e.what()).find("strata::serving_limits().topic_cells") != std::string::npos);
  }
}
