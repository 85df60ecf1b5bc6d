// Speed of the routing-trace reader, statistics and generator (Google Benchmark).
#include <benchmark/benchmark.h>

#include <sstream>  // std::istringstream
#include <string>   // std::string

#include "strata/workload/trace_gen.hpp"
#include "strata/workload/trace_io.hpp"

namespace {

// The real DeepSeek-V2-Lite intent trace (8,222 tokens × 26 layers × top-6), read once from the
// source tree's test data, found from this file's path (CMake compiles sources by absolute path).
const std::string& intent_csv() {
  static const std::string text = [] {
    std::string dir = __FILE__;
    dir = dir.substr(0, dir.find_last_of("/\\") + 1);
    return strata::detail::csv::read_file(dir + "../tests/data/traces/dsv2lite_esft_trace_intent.csv", "trace",
                                        strata::detail::csv::csv_file::trace);
  }();
  return text;
}

// Parsing from an in-memory string; items = token-layer records (8,222 × 26 per iteration).
void bm_trace_parse(benchmark::State& state) {
  const std::string& text = intent_csv();
  std::size_t records = 0;
  for (auto _ : state) {
    auto t = strata::parse_trace_csv(text, {.experts = 64, .k = 6}, "intent.csv");
    records += t.tokens() * static_cast<std::size_t>(t.layers());
    benchmark::DoNotOptimize(t);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(records));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(text.size()));
}
BENCHMARK(bm_trace_parse)->Unit(benchmark::kMillisecond);

// The stream API, including the copy of the stream into the parse buffer.
void bm_trace_read_stream(benchmark::State& state) {
  const std::string& text = intent_csv();
  std::size_t records = 0;
  for (auto _ : state) {
    std::istringstream in(text);
    auto t = strata::read_trace_csv(in, {.experts = 64, .k = 6}, "intent.csv");
    records += t.tokens() * static_cast<std::size_t>(t.layers());
    benchmark::DoNotOptimize(t);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(records));
}
BENCHMARK(bm_trace_read_stream)->Unit(benchmark::kMillisecond);

// Statistics (histograms, entropy, coverage, overlap) of the real trace; items = token-layer records.
void bm_trace_statistics(benchmark::State& state) {
  const auto t = strata::parse_trace_csv(intent_csv(), {.experts = 64, .k = 6});
  for (auto _ : state) benchmark::DoNotOptimize(strata::statistics(t));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(t.tokens()) *
                          t.layers());
}
BENCHMARK(bm_trace_statistics)->Unit(benchmark::kMillisecond);

// Generating a synthetic trace of the real trace's size (default parameters); items =
// token-layer records.
void bm_trace_generate(benchmark::State& state) {
  const strata::trace_gen_params p;
  std::size_t records = 0;
  for (auto _ : state) {
    auto t = strata::generate_trace(p);
    records += t.tokens() * static_cast<std::size_t>(t.layers());
    benchmark::DoNotOptimize(t);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(records));
}
BENCHMARK(bm_trace_generate)->Unit(benchmark::kMillisecond);

// Fitting the generator to the real trace.
void bm_trace_fit(benchmark::State& state) {
  const auto t = strata::parse_trace_csv(intent_csv(), {.experts = 64, .k = 6});
  for (auto _ : state) benchmark::DoNotOptimize(strata::fit_trace_gen(t));
}
BENCHMARK(bm_trace_fit)->Unit(benchmark::kMillisecond);

// A trace of 150 000 one-token sequences with descending ids (seq,pos,L1), read and split into
// sequences: the former sequences_of, quadratic in the sequences here, took 24 s (issue 24).
const std::string& descending_csv() {
  static const std::string text = [] {
    std::string t = "seq,pos,L1\n";
    for (int i = 0; i < 150000; ++i) t += std::to_string(150000 - 1 - i) + ",0," + std::to_string(i % 8) + "\n";
    return t;
  }();
  return text;
}

void bm_trace_150k_sequences_read(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(strata::parse_trace_csv(descending_csv()));
  state.SetItemsProcessed(state.iterations() * 150000);
}
BENCHMARK(bm_trace_150k_sequences_read)->Unit(benchmark::kMillisecond);

void bm_trace_150k_sequences_of(benchmark::State& state) {
  const auto t = strata::parse_trace_csv(descending_csv());
  for (auto _ : state) benchmark::DoNotOptimize(strata::detail::sequences_of(t));
  state.SetItemsProcessed(state.iterations() * 150000);
}
BENCHMARK(bm_trace_150k_sequences_of)->Unit(benchmark::kMillisecond);

}  // namespace
