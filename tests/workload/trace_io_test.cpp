#include "strata/workload/trace_io.hpp"

#include <doctest/doctest.h>

#include <sstream>  // std::istringstream
#include <string>   // std::string
#include "support/common.hpp"
#include "support/opening_rule.hpp"

using namespace strata;
using doctest::Approx;

namespace {
using strata_test::traces_dir;

// The error `f` throws; fails the test if it throws none.
template <class F>
config_error error_of(F&& f) {
  try {
    f();
  } catch (const config_error& e) {
    return e;
  }
  FAIL("expected a config_error");
  return config_error("", "");
}

bool message_has(const config_error& e, const std::string& s) {
  return std::string(e.what()).find(s) != std::string::npos;
}

// Reads `text` as a trace named "mem.csv" with 8 experts and k = 2.
routing_trace read_mem(const std::string& text, trace_csv_options opt = {.experts = 8, .k = 2}) {
  std::istringstream in(text);
  return read_trace_csv(in, opt, "mem.csv");
}

const std::string header = "seq,pos,L1,L2\n";
}  // namespace

TEST_CASE("the real DeepSeek-V2-Lite intent trace loads with its published shape") {
  const auto t = load_trace_csv(traces_dir() + "dsv2lite_esft_trace_intent.csv", {.experts = 64, .label = "intent"});
  CHECK(t.tokens() == 8222);
  CHECK(t.layers() == 26);
  CHECK(t.experts_per_layer() == 64);
  CHECK(t.k() == 6);  // inferred from the first row
  CHECK(t.topic_names() == std::vector<std::string>{"intent"});
  // First row: 0,0,57 60 26 56 8 11,3 62 60 50 38 63,...
  CHECK(t.info(0) == token_info{.seq = 0, .pos = 0, .topic = 0});
  const auto e = t.experts(0, 0);
  CHECK(std::vector<std::uint16_t>(e.begin(), e.end()) == std::vector<std::uint16_t>{57, 60, 26, 56, 8, 11});
  CHECK(t.experts(0, 1)[0] == 3);
  // 127 sequences of 47-88 tokens.
  int seqs = 1;
  for (std::size_t i = 1; i < t.tokens(); ++i) seqs += t.info(i).seq != t.info(i - 1).seq ? 1 : 0;
  CHECK(seqs == 127);
  CHECK(t.info(t.tokens() - 1).seq == 126);
}

TEST_CASE("the real trace's per-layer histograms equal the published intent counts exactly") {
  const auto t = load_trace_csv(traces_dir() + "dsv2lite_esft_trace_intent.csv", {.experts = 64, .k = 6});
  const auto table = load_expert_counts_csv(traces_dir() + "dsv2lite_esft_expert_counts_by_task.csv");
  const auto& intent = table.at("ESFT-vanilla-lite(DeepSeek-V2-Lite)", "intent", "topk6");
  CHECK(intent.k == 6);
  CHECK(intent.experts == 64);
  REQUIRE(intent.layers.size() == 26);
  const auto hist = t.histograms();
  for (int l = 1; l <= 26; ++l) {
    CAPTURE(l);
    const auto& row = intent.layer(l);
    CHECK(row.tokens == 8222);
    CHECK(hist[static_cast<std::size_t>(l - 1)] == row.counts);
  }
}

TEST_CASE("the ESFT count table holds four tasks with hit rates and gate sums") {
  const auto table = load_expert_counts_csv(traces_dir() + "dsv2lite_esft_expert_counts_by_task.csv");
  CHECK(table.series.size() == 4);
  const auto& law = table.at("ESFT-vanilla-lite(DeepSeek-V2-Lite)", "law", "topk6");
  CHECK(law.layer(1).tokens == 8327);
  // intent, layer 1, expert 0: 496 of 8222 tokens; gate weight sum 35.1613.
  const auto& intent = table.at("ESFT-vanilla-lite(DeepSeek-V2-Lite)", "intent", "topk6");
  CHECK(intent.hit_rate(1, 0) == Approx(496.0 / 8222.0));
  CHECK(intent.layer(1).gate_weight_sum[0] == Approx(35.1613));
  double sum = 0.0;
  for (int e = 0; e < 64; ++e) sum += intent.hit_rate(7, e);
  CHECK(sum == Approx(6.0));  // Σ hit rates = k
  CHECK_THROWS_AS((void)intent.layer(0), config_error);      // layer 0 is dense
  CHECK_THROWS_AS((void)intent.hit_rate(1, 64), config_error);
  CHECK_THROWS_AS((void)table.at("ESFT-vanilla-lite(DeepSeek-V2-Lite)", "poetry", "topk6"), config_error);
}

TEST_CASE("the OLMoE and Mixtral count table reads every model, domain and selection") {
  const auto table = load_expert_counts_csv(traces_dir() + "olmoe_mixtral_expert_counts_by_domain.csv");
  // OLMoE pretrained: 5 domains × {top1, topk8} + tulu topk8; SFT, DPO: tulu; Mixtral: 5 × {top1, topk2}.
  CHECK(table.series.size() == 23);
  const auto& arxiv = table.at("OLMoE-1B-7B-0824", "arxiv", "topk8");
  CHECK(arxiv.key.checkpoint == "pretrained");
  CHECK(arxiv.k == 8);
  CHECK(arxiv.experts == 64);
  REQUIRE(arxiv.layers.size() == 3);
  CHECK(arxiv.layers[0].layer == 0);
  CHECK(arxiv.layers[2].layer == 15);
  CHECK(arxiv.hit_rate(0, 0) == Approx(204013.0 / 208896.0));
  const auto& mixtral = table.at("Mixtral-8x7B-v0.1", "arxiv", "topk2");
  CHECK(mixtral.k == 2);
  CHECK(mixtral.experts == 8);
  CHECK(mixtral.hit_rate(0, 0) == Approx(55713.0 / 208896.0));
  CHECK(table.at("Mixtral-8x7B-v0.1", "arxiv", "top1").k == 1);
  CHECK(table.at("OLMoE-1B-7B-0824", "tulu", "topk8", "SFT").layer(7).tokens == 205243);
  // Three checkpoints saw tulu: without a checkpoint the key is ambiguous.
  const auto e = error_of([&] { (void)table.at("OLMoE-1B-7B-0824", "tulu", "topk8"); });
  CHECK(message_has(e, "several checkpoints"));
}

TEST_CASE("the cross-layer top-1 transitions read as per-pair matrices") {
  const auto table = load_top1_transitions_csv(traces_dir() + "olmoe_mixtral_crosslayer_top1.csv");
  // 2 models × 5 domains × 2 layer pairs.
  CHECK(table.series.size() == 20);
  for (const auto& s : table.series) {
    CAPTURE(s.model);
    CHECK(s.tokens == 208896);
  }
  const auto& t = table.at("OLMoE-1B-7B-0824", "arxiv", 0, 7);
  CHECK(t.experts == 64);
  CHECK(t.count(0, 0) == 394);
  CHECK(t.count(0, 1) == 1);
  CHECK(t.count(0, 2) == 5991);
  double p = 0.0;
  for (int to = 0; to < 64; ++to) p += t.probability(0, to);
  CHECK(p == Approx(1.0));
  CHECK(table.at("Mixtral-8x7B-v0.1", "c4", 7, 15).experts == 8);
  CHECK_THROWS_AS((void)table.at("OLMoE-1B-7B-0824", "arxiv", 0, 15), config_error);
}

TEST_CASE("a well-formed in-memory trace reads with absent fields, CRLF and blank lines") {
  const auto t = read_mem("seq,pos,L1,L2\r\n0,0,1 2,3 4\r\n\r\n,,5 6 , 7  0\r\n", {.experts = 8, .label = "x"});
  REQUIRE(t.tokens() == 2);
  CHECK(t.k() == 2);
  CHECK(t.info(1) == token_info{.seq = -1, .pos = -1, .topic = 0});
  CHECK(t.experts(1, 1)[0] == 7);
  CHECK(t.experts(1, 1)[1] == 0);
  SUBCASE("experts inferred from the largest id") {
    const auto u = read_mem(header + "0,0,1 2,3 4\n", {});
    CHECK(u.experts_per_layer() == 5);
  }
}

TEST_CASE("a malformed trace line is a config_error naming the file and line") {
  SUBCASE("expert id out of range") {
    const auto e = error_of([] { read_mem(header + "0,0,1 2,3 4\n0,1,1 9,3 4\n"); });
    CHECK(e.field() == "mem.csv:3");
    CHECK(message_has(e, "mem.csv:3"));
    CHECK(message_has(e, "L1 (column 3)"));
    CHECK(message_has(e, "expert id 9 out of [0, 8)"));
  }
  SUBCASE("too many ids in a cell") {
    const auto e = error_of([] { read_mem(header + "0,0,1 2,3 4 5\n"); });
    CHECK(e.field() == "mem.csv:2");
    CHECK(message_has(e, "L2 (column 4)"));
    CHECK(message_has(e, "expected 2 expert ids"));
  }
  SUBCASE("too few ids in a cell") {
    const auto e = error_of([] { read_mem(header + "0,0,1 2,3 4\n0,1,1,3 4\n"); });
    CHECK(e.field() == "mem.csv:3");
    CHECK(message_has(e, "expected 2 expert ids, got 1"));
  }
  SUBCASE("k inferred from the first row binds the later rows") {
    const auto e = error_of([] { read_mem(header + "0,0,1 2 3,3 4 5\n0,1,1 2,3 4 5\n", {.experts = 8}); });
    CHECK(e.field() == "mem.csv:3");
    CHECK(message_has(e, "expected 3 expert ids, got 2"));
  }
  SUBCASE("missing layer column") {
    const auto e = error_of([] { read_mem(header + "0,0,1 2\n"); });
    CHECK(e.field() == "mem.csv:2");
    CHECK(message_has(e, "missing layer column L2"));
  }
  SUBCASE("missing pos and layers") {
    const auto e = error_of([] { read_mem(header + "0\n"); });
    CHECK(e.field() == "mem.csv:2");
    CHECK(message_has(e, "missing column"));
  }
  SUBCASE("too many columns") {
    const auto e = error_of([] { read_mem(header + "0,0,1 2,3 4,5 6\n"); });
    CHECK(message_has(e, "too many columns"));
  }
  SUBCASE("junk instead of an id") {
    const auto e = error_of([] { read_mem(header + "0,0,1 2,3 4\n0,1,1 x7,3 4\n"); });
    CHECK(e.field() == "mem.csv:3");
    CHECK(message_has(e, "expected an expert id, got \"x7\""));
  }
  SUBCASE("junk glued to an id") {
    const auto e = error_of([] { read_mem(header + "0,0,1 2;,3 4\n"); });
    CHECK(message_has(e, "expected an expert id"));
  }
  SUBCASE("negative id") {
    const auto e = error_of([] { read_mem(header + "0,0,-1 2,3 4\n"); });
    CHECK(message_has(e, "expected an expert id"));
  }
  SUBCASE("junk position") {
    const auto e = error_of([] { read_mem(header + "0,zz,1 2,3 4\n"); });
    CHECK(e.field() == "mem.csv:2");
    CHECK(message_has(e, "pos (column 2)"));
  }
  SUBCASE("duplicate expert in a cell") {
    const auto e = error_of([] { read_mem(header + "0,0,1 2,4 4\n"); });
    CHECK(message_has(e, "L2 (column 4): expert id 4 repeated"));
  }
  SUBCASE("a token's (seq, pos) twice, lines apart") {
    const auto e = error_of([] { read_mem(header + "3,0,1 2,3 4\n3,1,1 2,3 4\n\n4,1,1 2,3 4\n3,1,5 6,3 4\n"); });
    CHECK(e.field() == "mem.csv:6");
    CHECK(message_has(e, "token (seq 3, pos 1) repeats line 3"));
    // The same position in other sequences, and tokens without seq or pos, are fine.
    CHECK(read_mem(header + "3,1,1 2,3 4\n4,1,1 2,3 4\n,1,1 2,3 4\n,1,1 2,3 4\n3,,1 2,3 4\n3,,1 2,3 4\n").tokens() == 6);
  }
  SUBCASE("bad header") {
    const auto e = error_of([] { read_mem("seq,pos,L1,L3\n0,0,1 2,3 4\n"); });
    CHECK(e.field() == "mem.csv:1");
    CHECK(message_has(e, "must be L2"));
  }
  SUBCASE("empty input") {
    const auto e = error_of([] { read_mem(""); });
    CHECK(message_has(e, "empty input"));
  }
}

TEST_CASE("a missing trace file is a config_error naming the path and its role") {
  const auto e = error_of([] { (void)load_trace_csv(traces_dir() + "no_such_file.csv"); });
  CHECK(std::string(e.field()) == "trace");
  CHECK(message_has(e, "[strata.file] trace " + detail::quoted_path(traces_dir() + "no_such_file.csv") + " cannot be opened"));
}

TEST_CASE("malformed count tables are config_errors naming the file and line") {
  const std::string h = "model,checkpoint,domain,selection,layer,expert,count,tokens\n";
  auto read = [](const std::string& text) {
    std::istringstream in(text);
    return read_expert_counts_csv(in, "counts.csv");
  };
  SUBCASE("a valid two-expert table reads") {
    const auto t = read(h + "m,c,d,topk1,0,0,3,4\nm,c,d,topk1,0,1,1,4\n");
    CHECK(t.series.at(0).hit_rate(0, 1) == Approx(0.25));
  }
  SUBCASE("counts not summing to k × tokens") {
    const auto e = error_of([&] { read(h + "m,c,d,topk2,0,0,3,4\nm,c,d,topk2,0,1,1,4\n"); });
    CHECK(e.field() == "counts.csv:2");
    CHECK(message_has(e, "expected k * tokens = 2 * 4"));
  }
  SUBCASE("count above tokens") {
    const auto e = error_of([&] { read(h + "m,c,d,top1,0,0,5,4\n"); });
    CHECK(e.field() == "counts.csv:2");
  }
  SUBCASE("expert repeated") {
    const auto e = error_of([&] { read(h + "m,c,d,top1,0,0,3,4\nm,c,d,top1,0,0,1,4\n"); });
    CHECK(e.field() == "counts.csv:3");
    CHECK(message_has(e, "repeated"));
  }
  SUBCASE("expert missing from a layer") {
    const auto e = error_of([&] { read(h + "m,c,d,top1,0,0,3,4\nm,c,d,top1,0,2,1,4\n"); });
    CHECK(message_has(e, "lacks expert 1"));
  }
  SUBCASE("tokens differ within a layer") {
    const auto e = error_of([&] { read(h + "m,c,d,top1,0,0,3,4\nm,c,d,top1,0,1,1,5\n"); });
    CHECK(e.field() == "counts.csv:3");
  }
  SUBCASE("non-number") {
    const auto e = error_of([&] { read(h + "m,c,d,top1,0,0,three,4\n"); });
    CHECK(e.field() == "counts.csv:2");
    CHECK(message_has(e, "count (column 7): expected an integer"));
  }
  SUBCASE("wrong column count") {
    const auto e = error_of([&] { read(h + "m,c,d,top1,0,0,3\n"); });
    CHECK(message_has(e, "expected 8 columns, got 7"));
  }
  SUBCASE("header without a count column") {
    const auto e = error_of([&] { read("model,domain,layer,expert,tokens\n"); });
    CHECK(e.field() == "counts.csv:1");
    CHECK(message_has(e, "count|tokens_routed"));
  }
  SUBCASE("without a selection column k is inferred and must hold for every layer") {
    const std::string esft = "model,task,moe_layer,expert,tokens_routed,gate_weight_sum,tokens_in_layer\n";
    const auto t = read(esft + "m,t,1,0,4,1.5,4\nm,t,1,1,4,2.5,4\n");
    CHECK(t.series.at(0).key.selection == "topk2");
    const auto e = error_of([&] { read(esft + "m,t,1,0,4,1,4\nm,t,1,1,4,1,4\nm,t,2,0,4,1,4\nm,t,2,1,3,1,4\n"); });
    CHECK(e.field() == "counts.csv:4");
  }
}

// ---------------------------------------------------------------------------------------------
// Hardening: allocations follow the input's content and are bounded by strata::limits().

TEST_CASE("a wide header over many blank lines reserves by the input's size, not lines x layers x k") {
  // 1024 layer columns and 600 000 lines ask, line-count-wise, for 600 000 · 1024 · 64 ids (78 GB).
  std::string text = "seq,pos";
  for (int l = 1; l <= 1024; ++l) text += ",L" + std::to_string(l);
  text += '\n';
  text += std::string(600000, '\n');
  const routing_trace t = parse_trace_csv(text, {.experts = 64, .k = 64}, "wide.csv");
  CHECK(t.tokens() == 0);
  CHECK(t.layers() == 1024);
  // Inferred k: the reservation after the first data row is capped the same way.
  std::string row = "0,0";
  for (int l = 1; l <= 1024; ++l) row += ",1 2 3";
  const routing_trace u = parse_trace_csv(text + row + "\n", {}, "wide.csv");
  CHECK(u.tokens() == 1);
  CHECK(u.k() == 3);
}

TEST_CASE("trace limits: layer columns and expert ids are bounded with errors naming the limit") {
  std::string text = "seq,pos";
  for (int l = 1; l <= 1025; ++l) text += ",L" + std::to_string(l);
  const auto e = error_of([&] { (void)parse_trace_csv(text + "\n", {}, "t.csv"); });
  CHECK(std::string(e.field()) == "t.csv:1");
  CHECK(message_has(e, "1025 layer columns exceed the limit 1024 (strata::limits().layers)"));
  const input_limits saved = limits();
  limits().trace_ids = 3;
  const auto f = error_of([] { (void)parse_trace_csv("seq,pos,L1,L2\n0,0,1,2\n0,1,1,2\n", {}, "t.csv"); });
  CHECK(std::string(f.field()) == "t.csv:3");
  CHECK(message_has(f, "more than 3 expert ids (the limit strata::limits().trace_ids)"));
  limits() = saved;
}

TEST_CASE("a one-row transition table with expert id 65535 is an error, not a 64 GiB matrix") {
  const std::string hdr = "model,domain,layer_from,layer_to,expert_from,expert_to,count\n";
  const auto e = error_of([&] { (void)parse_top1_transitions_csv(hdr + "m,d,0,1,65535,0,5\n", "top1.csv"); });
  CHECK(std::string(e.field()) == "top1.csv:2");
  CHECK(message_has(e, "m has expert ids up to 65535: its 65536 x 65536 matrices exceed 4194304 cells "
                    "(the limit strata::limits().table_cells)"));
  // Within the limit the matrix is sized by the largest id seen, and repeats are still found.
  const auto t = parse_top1_transitions_csv(hdr + "m,d,0,1,3,0,5\nm,d,0,1,0,3,1\n", "top1.csv");
  REQUIRE(t.series.size() == 1);
  CHECK(t.series[0].experts == 4);
  CHECK(t.series[0].counts.size() == 16);
  CHECK(t.series[0].tokens == 6);
  const auto r = error_of([&] { (void)parse_top1_transitions_csv(hdr + "m,d,0,1,3,0,5\nm,d,0,1,1,1,1\nm,d,0,1,3,0,2\n", "top1.csv"); });
  CHECK(std::string(r.field()) == "top1.csv:4");
  CHECK(message_has(r, "pair 3 -> 0 repeated (first on line 2)"));
  // Counts whose total overflows 64 bits.
  const auto o = error_of([&] {
    (void)parse_top1_transitions_csv(hdr + "m,d,0,1,0,0,9223372036854775807\nm,d,0,1,0,1,1\n", "top1.csv");
  });
  CHECK(message_has(o, "overflows a 64-bit integer"));
}

TEST_CASE("expert count tables: cells are bounded in total, sums cannot overflow") {
  const std::string hdr = "model,domain,layer,expert,count,tokens\n";
  std::string rows;
  for (int layer = 0; layer < 300; ++layer) rows += "m,d," + std::to_string(layer) + ",65535,1,1\n";
  const auto e = error_of([&] { (void)parse_expert_counts_csv(hdr + rows, "counts.csv"); });
  CHECK(message_has(e, "makes the table exceed 4194304 cells (the limit strata::limits().table_cells)"));
  const auto s = error_of([&] {
    (void)parse_expert_counts_csv(hdr + "m,d,0,0,9223372036854775807,9223372036854775807\n"
                                        "m,d,0,1,9223372036854775807,9223372036854775807\n",
                                  "counts.csv");
  });
  CHECK(message_has(s, "counts overflow a 64-bit sum"));
  const auto k = error_of([&] {
    (void)parse_expert_counts_csv("model,domain,selection,layer,expert,count,tokens\n"
                                  "m,d,topk8,0,0,9223372036854775807,9223372036854775807\n",
                                  "counts.csv");
  });
  CHECK(message_has(k, "expected k * tokens"));
}

TEST_CASE("the load_* readers open a file only under the opening rule (core/files.hpp)") {
  SUBCASE("a trace") {
    strata_test::check_opening_rule([](const std::string& p) { (void)load_trace_csv(p, {.experts = 8, .k = 2}); },
                                    "trace", "trace", &input_limits::trace_file_bytes, "trace_file_bytes",
                                    header + "0,0,1 2,3 4\n");
  }
  SUBCASE("a count table") {
    strata_test::check_opening_rule([](const std::string& p) { (void)load_expert_counts_csv(p); }, "count table",
                                    "count table", &input_limits::table_file_bytes, "table_file_bytes",
                                    "model,domain,layer,expert,count,tokens\nm,d,0,0,3,3\n");
  }
  SUBCASE("a transition table") {
    strata_test::check_opening_rule([](const std::string& p) { (void)load_top1_transitions_csv(p); },
                                    "transition table", "transition table", &input_limits::table_file_bytes,
                                    "table_file_bytes",
                                    "model,domain,layer_from,layer_to,expert_from,expert_to,count\nm,d,0,1,3,0,5\n");
  }
}
