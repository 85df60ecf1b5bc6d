#include "strata/workload/operators.hpp"

#include <doctest/doctest.h>

#include "support/field_of.hpp"

#include <cmath>    // std::isfinite
#include <cstdint>  // std::uint32_t, histogram counts
#include <string>   // std::string

#include "strata/workload/presets.hpp"

using namespace strata;
using doctest::Approx;

namespace {

// The one operator of `kind` in `layer` (−1: embedding, final norm, LM head); fails the test if
// there is not exactly one.
const op& the_op(const std::vector<op>& ops, op_kind kind, int layer) {
  const op* found = nullptr;
  int n = 0;
  for (const auto& o : ops) {
    if (o.kind == kind && o.layer == layer) {
      found = &o;
      ++n;
    }
  }
  REQUIRE_MESSAGE(n == 1, "operator " << to_string(kind) << " in layer " << layer << " found " << n << " times");
  return *found;
}

int count_kind(const std::vector<op>& ops, op_kind kind) {
  int n = 0;
  for (const auto& o : ops) n += o.kind == kind ? 1 : 0;
  return n;
}

// Checks FLOPs and bytes of one operator against hand-computed values (all exact integers in
// double, so a relative tolerance of 1e-12 only absorbs the order of floating-point products).
void check_op(const op& o, double flops, double weight_b, double act_b, double kv_b) {
  CAPTURE(op_name(o));
  CHECK(o.flops.in(units::flop) == Approx(flops).epsilon(1e-12));
  CHECK(o.weight_bytes.in(units::B) == Approx(weight_b).epsilon(1e-12));
  CHECK(o.activation_bytes.in(units::B) == Approx(act_b).epsilon(1e-12));
  CHECK(o.kv_bytes.in(units::B) == Approx(kv_b).epsilon(1e-12));
}

using strata_test::field_of;

}  // namespace

// Mixtral-8x7B (d = 4096, 32 heads of 128, 8 KV heads, 8 experts of 14336, top-2, vocab 32000,
// 32 layers, BF16 weights/KV/activations = 2 B each). Decode, B = 1, S = 2048, so T = 1 token.
TEST_CASE("Mixtral-8x7B decode at B = 1, S = 2048 matches an op-by-op hand count") {
  const model m = preset("Mixtral-8x7B");
  const step_shape s{.mode = phase::decode, .batch = 1, .context = 2048};
  const auto ops = step_operators(m, s);
  // 1 embedding + 32 × (attn_norm, qkv, attention, out, ffn_norm, router, routed experts) + 2.
  CHECK(ops.size() == 1 + 32 * 7 + 2);

  SUBCASE("embedding gathers one row of 4096") {
    // weights 1·4096 values · 2 B = 8192 B; activations out 1·4096 · 2 B = 8192 B; no FLOPs.
    check_op(the_op(ops, op_kind::embedding, -1), 0, 8192, 8192, 0);
  }
  SUBCASE("RMSNorms do 4 FLOPs per element") {
    // FLOPs 4·d·T = 16384; scale 4096 · 2 B = 8192 B; in + out 2·4096 · 2 B = 16384 B.
    check_op(the_op(ops, op_kind::attn_norm, 5), 16384, 8192, 16384, 0);
    check_op(the_op(ops, op_kind::ffn_norm, 5), 16384, 8192, 16384, 0);
    check_op(the_op(ops, op_kind::final_norm, -1), 16384, 8192, 16384, 0);
  }
  SUBCASE("QKV projection is the attention block less the output projection") {
    // Attention block: q 4096·4096 + k, v 2·4096·(8·128) + o 4096·4096 = 41 943 040 weights;
    // QKV = 41 943 040 − 16 777 216 = 25 165 824 weights → 50 331 648 B, 2·P·T = 50 331 648 FLOPs;
    // activations: in 4096 + out (q 4096 + k,v 2048) = 10 240 values → 20 480 B.
    check_op(the_op(ops, op_kind::qkv_proj, 0), 50331648, 50331648, 20480, 0);
  }
  SUBCASE("attention reads the 2048 cached tokens and appends one") {
    // QKᵀ and AV: 2·B·h·S·(dh + dh) = 2·32·2048·256 = 33 554 432; softmax 5·B·h·S = 327 680;
    // total 33 882 112 FLOPs. KV per token-layer 2·8·128 · 2 B = 4096 B; read S, write 1:
    // 2049 · 4096 = 8 392 704 B. Activations q in + context out = (4096 + 4096) · 2 B = 16 384 B.
    check_op(the_op(ops, op_kind::attention, 31), 33882112, 0, 16384, 8392704);
  }
  SUBCASE("output projection") {
    // 32·128·4096 = 16 777 216 weights → 33 554 432 B and 33 554 432 FLOPs; (4096 + 4096)·2 B.
    check_op(the_op(ops, op_kind::out_proj, 0), 33554432, 33554432, 16384, 0);
  }
  SUBCASE("router scores 8 experts") {
    // 4096·8 = 32 768 weights → 65 536 B, 65 536 FLOPs; (4096 in + 8 out) · 2 B = 8208 B.
    check_op(the_op(ops, op_kind::router, 0), 65536, 65536, 8208, 0);
  }
  SUBCASE("routed experts: one token touches exactly its 2 experts") {
    // Expected distinct experts E·(1 − (1 − k/E)^T) = 8·(1 − 0.75) = 2. One expert is
    // 3·4096·14336 = 176 160 768 weights; 2 experts → 704 643 072 B. FLOPs T·k·(2·P + 4·f) =
    // 2·(352 321 536 + 57 344) = 704 757 760 (SiLU·mul 4 per element). Activations T·k·2·d · 2 B.
    const op& e = the_op(ops, op_kind::routed_experts, 0);
    check_op(e, 704757760, 704643072, 32768, 0);
    CHECK(e.instances == Approx(2.0));
    CHECK(e.tokens == Approx(2.0));
    CHECK(e.reads == data_class::expert);
  }
  SUBCASE("LM head scores the vocabulary for the token") {
    // 32000·4096 = 131 072 000 weights → 262 144 000 B and FLOPs; (4096 + 32000) · 2 B = 72 192 B.
    check_op(the_op(ops, op_kind::lm_head, -1), 262144000, 262144000, 72192, 0);
  }
  SUBCASE("step totals") {
    // Per layer: weights 8192 + 50 331 648 + 33 554 432 + 8192 + 65 536 + 704 643 072
    // = 788 611 072 B; FLOPs 16384 + 50 331 648 + 33 882 112 + 33 554 432 + 16384 + 65 536
    // + 704 757 760 = 822 624 256.
    // Weights read = embedding row 8192 + 32 · 788 611 072 + final norm 8192 + LM head 262 144 000
    // = 25 497 714 688 B — the 12 879 925 248 active parameters less the 32000-row table plus one
    // row, times 2 B.
    // FLOPs = 32 · 822 624 256 + 16 384 + 262 144 000 = 26 586 136 576.
    // KV = 32 · 8 392 704 = 268 566 528 B. Activations = 8192 + 32 · (16384 + 20480 + 16384 +
    // 16384 + 16384 + 8208 + 32768) + 16384 + 72192 = 4 160 512 B.
    const auto t = totals(ops);
    CHECK(t.weight_bytes.in(units::B) == Approx(25497714688.0).epsilon(1e-12));
    CHECK(t.weight_bytes.in(units::B) == Approx((12879925248.0 - 32000.0 * 4096 + 4096) * 2).epsilon(1e-12));
    CHECK(t.flops.in(units::flop) == Approx(26586136576.0).epsilon(1e-12));
    CHECK(t.kv_bytes.in(units::B) == Approx(268566528.0).epsilon(1e-12));
    CHECK(t.activation_bytes.in(units::B) == Approx(4160512.0).epsilon(1e-12));
  }
}

// Qwen2.5-32B (dense; d = 5120, 40 heads of 128, 8 KV heads, QKV bias, SwiGLU FFN 27648, vocab
// 152064, 64 layers, BF16). Prefill, B = 1, S = 2048, so T = 2048 tokens.
TEST_CASE("Qwen2.5-32B prefill at B = 1, S = 2048 matches an op-by-op hand count") {
  const model m = preset("Qwen2.5-32B");
  const step_shape s{.mode = phase::prefill, .batch = 1, .context = 2048};
  const auto ops = step_operators(m, s);
  CHECK(ops.size() == 1 + 64 * 6 + 2);
  CHECK(count_kind(ops, op_kind::dense_ffn) == 64);
  CHECK(count_kind(ops, op_kind::router) == 0);

  SUBCASE("embedding gathers 2048 rows") {
    // 2048·5120 values · 2 B = 20 971 520 B read and written.
    check_op(the_op(ops, op_kind::embedding, -1), 0, 20971520, 20971520, 0);
  }
  SUBCASE("QKV projection with bias") {
    // q 5120·5120 + k, v 2·5120·1024 + biases (5120 + 2·1024) = 36 707 328 weights (the block's
    // 62 921 728 less o's 26 214 400); bias adds counted as multiply-adds like the weights:
    // 2·36 707 328·2048 = 150 353 215 488 FLOPs; weights 73 414 656 B; activations
    // 2048·(5120 + 5120 + 2048)·2 B = 50 331 648 B.
    check_op(the_op(ops, op_kind::qkv_proj, 7), 150353215488.0, 73414656, 50331648, 0);
  }
  SUBCASE("causal attention over S(S+1)/2 query-key pairs") {
    // pairs = 2048·2049/2 = 2 098 176; scores h·pairs = 83 927 040;
    // FLOPs 2·h·pairs·(128 + 128) + 5·scores = 517 · 83 927 040 = 43 390 279 680.
    // KV written once: 2048 · 2·8·128 · 2 B = 8 388 608 B.
    // Activations 2048·(q 5120 + kv 2048 + out 5120)·2 B = 50 331 648 B.
    check_op(the_op(ops, op_kind::attention, 63), 43390279680.0, 0, 50331648, 8388608);
  }
  SUBCASE("output projection") {
    // 5120·5120 = 26 214 400 weights; 2·P·T = 107 374 182 400 FLOPs; 2048·(5120 + 5120)·2 B.
    check_op(the_op(ops, op_kind::out_proj, 0), 107374182400.0, 52428800, 41943040, 0);
  }
  SUBCASE("dense SwiGLU FFN") {
    // 3·5120·27648 = 424 673 280 weights → 849 346 560 B; FLOPs 2·P·T + 4·f·T =
    // 2048·(849 346 560 + 110 592) = 1 739 688 247 296; activations 2·T·d·2 B = 41 943 040 B.
    check_op(the_op(ops, op_kind::dense_ffn, 0), 1739688247296.0, 849346560, 41943040, 0);
  }
  SUBCASE("LM head scores only the last token") {
    // 152064·5120 = 778 567 680 weights → 1 557 135 360 B and 2·P·1 FLOPs; (5120 + 152064)·2 B.
    check_op(the_op(ops, op_kind::lm_head, -1), 1557135360, 1557135360, 314368, 0);
    check_op(the_op(ops, op_kind::final_norm, -1), 20480, 10240, 20480, 0);
  }
  SUBCASE("step totals") {
    // FLOPs: 64 · (2·41 943 040 + 150 353 215 488 + 43 390 279 680 + 107 374 182 400
    //        + 1 739 688 247 296) + 20 480 + 1 557 135 360 = 130 618 505 056 256.
    // Weights: every weight once except the embedding table, of which 2048 rows:
    //   (32 763 876 352 − 152064·5120 + 2048·5120) · 2 B = 63 991 588 864 B.
    // KV: 64 · 8 388 608 = 536 870 912 B. Activations: 20 971 520 + 64 · (4 · 41 943 040
    //   + 2 · 50 331 648) + 20 480 + 314 368 = 17 201 175 552 B.
    const auto t = totals(ops);
    CHECK(t.flops.in(units::flop) == Approx(130618505056256.0).epsilon(1e-12));
    CHECK(t.weight_bytes.in(units::B) == Approx(63991588864.0).epsilon(1e-12));
    CHECK(t.weight_bytes.in(units::B) ==
          Approx((32763876352.0 - 152064.0 * 5120 + 2048.0 * 5120) * 2).epsilon(1e-12));
    CHECK(t.kv_bytes.in(units::B) == Approx(536870912.0).epsilon(1e-12));
    CHECK(t.activation_bytes.in(units::B) == Approx(17201175552.0).epsilon(1e-12));
  }
}

TEST_CASE("expected distinct experts: one token touches k, many tokens touch all E, and more never touch fewer") {
  CHECK(expected_distinct_experts(8, 2, 1.0) == Approx(2.0));
  CHECK(expected_distinct_experts(8, 2, 0.0) == Approx(0.0));
  // Two tokens: 8·(1 − 0.75²) = 3.5.
  CHECK(expected_distinct_experts(8, 2, 2.0) == Approx(3.5));
  CHECK(expected_distinct_experts(8, 2, 1e4) == Approx(8.0));
  CHECK(expected_distinct_experts(256, 8, 1e5) == Approx(256.0));
  // k = E: every token touches every expert.
  CHECK(expected_distinct_experts(16, 16, 1.0) == Approx(16.0));
  double prev = 0.0;
  for (int t = 1; t <= 4096; t *= 2) {
    const double e = expected_distinct_experts(64, 8, t);
    CAPTURE(t);
    // Strictly increasing until it saturates at E in double precision (0.875^1024 < 1e-59).
    if (t <= 256) {
      CHECK(e > prev);
    } else {
      CHECK(e >= prev);
    }
    CHECK(e <= 64.0);
    prev = e;
  }
  CHECK(field_of([] { (void)expected_distinct_experts(8, 9, 1.0); }) == "top_k");
  CHECK(field_of([] { (void)expected_distinct_experts(0, 1, 1.0); }) == "experts");
}

TEST_CASE("uniform routing in decode reads the expected distinct experts of the batch") {
  const model m = preset("Mixtral-8x7B");
  const auto ops = step_operators(m, {.mode = phase::decode, .batch = 4, .context = 128});
  const op& e = the_op(ops, op_kind::routed_experts, 3);
  const double distinct = 8.0 * (1.0 - 0.75 * 0.75 * 0.75 * 0.75);  // 6.1015625
  CHECK(e.instances == Approx(distinct));
  CHECK(e.weight_bytes.in(units::B) == Approx(distinct * 3.0 * 4096 * 14336 * 2));
  CHECK(e.tokens == Approx(8.0));  // 4 tokens × top-2
}

TEST_CASE("a routing histogram gives one operator per touched expert with its exact token count") {
  const model m = preset("Mixtral-8x7B");
  const step_shape s{.mode = phase::decode, .batch = 4, .context = 128};
  // 4 tokens × top-2 = 8 routings per layer: experts 0 (3 tokens), 5 (4) and 7 (1) in every layer.
  expert_histogram hist(32, std::vector<std::uint32_t>(8, 0));
  for (auto& layer : hist) {
    layer[0] = 3;
    layer[5] = 4;
    layer[7] = 1;
  }
  const auto ops = step_operators(m, s, hist);
  CHECK(count_kind(ops, op_kind::routed_experts) == 0);
  CHECK(count_kind(ops, op_kind::expert) == 32 * 3);
  const double per_expert = 3.0 * 4096 * 14336;
  double tokens = 0.0;
  for (const auto& o : ops) {
    if (o.kind != op_kind::expert || o.layer != 9) continue;
    CAPTURE(op_name(o));
    const double n = o.expert == 0 ? 3.0 : o.expert == 5 ? 4.0 : o.expert == 7 ? 1.0 : -1.0;
    CHECK(n > 0.0);
    CHECK(o.tokens == Approx(n));
    CHECK(o.instances == Approx(1.0));
    CHECK(o.weight_bytes.in(units::B) == Approx(per_expert * 2));
    CHECK(o.flops.in(units::flop) == Approx(n * (2.0 * per_expert + 4.0 * 14336)));
    CHECK(o.activation_bytes.in(units::B) == Approx(n * 2.0 * 4096 * 2));
    tokens += o.tokens;
  }
  CHECK(tokens == Approx(8.0));
  CHECK(op_name(the_op(ops, op_kind::router, 9)) == "L9.router");

  SUBCASE("a histogram with the wrong number of layers or experts is a config_error naming it") {
    expert_histogram short_hist(31, std::vector<std::uint32_t>(8, 1));
    CHECK(field_of([&] { (void)step_operators(m, s, short_hist); }) == "histogram.layers");
    expert_histogram narrow(32, std::vector<std::uint32_t>(7, 1));
    CHECK(field_of([&] { (void)step_operators(m, s, narrow); }) == "histogram[0].experts");
  }
}

TEST_CASE("MLA decode reads (kv_lora_rank + rope) values per token and layer: 1152 B for DeepSeek-V3") {
  const model m = preset("DeepSeek-V3");
  // (512 + 64) values · 2 B (BF16 KV cache) = 1152 B per token per layer.
  CHECK(kv_bytes_per_token_layer(m).in(units::B) == Approx(1152.0));
  const step_shape s{.mode = phase::decode, .batch = 2, .context = 4096};
  const auto ops = step_operators(m, s);
  // Attention of one layer reads B·(S + 1) latents: 2 · 4097 · 1152 B.
  const op& a = the_op(ops, op_kind::attention, 10);
  CHECK(a.kv_bytes.in(units::B) == Approx(2.0 * 4097 * 1152));
  // Absorbed form: 2·B·h·S·((512 + 64) + 512) + 5·B·h·S FLOPs.
  CHECK(a.flops.in(units::flop) == Approx(2.0 * 2 * 128 * 4096 * (576 + 512) + 5.0 * 2 * 128 * 4096));
  // Layers 0–2 are dense, 3–60 MoE (first_k_dense_replace = 3) with one shared expert.
  CHECK(count_kind(ops, op_kind::dense_ffn) == 3);
  CHECK(count_kind(ops, op_kind::routed_experts) == 58);
  CHECK(count_kind(ops, op_kind::shared_experts) == 58);
  CHECK(totals(ops).kv_bytes.in(units::B) == Approx(61.0 * 2 * 4097 * 1152));
}

TEST_CASE("bad step shapes raise config_error naming the field") {
  const model m = preset("OLMoE-1B-7B-0924");
  CHECK(field_of([&] { (void)step_operators(m, {.mode = phase::decode, .batch = 0, .context = 16}); }) == "batch");
  CHECK(field_of([&] { (void)step_operators(m, {.mode = phase::prefill, .batch = 1, .context = 0}); }) == "context");
  CHECK(field_of([&] {
          (void)step_operators(m, {.mode = phase::decode, .batch = 1, .context = 16, .activation_bits = 0});
        }) == "activation_bits");
  CHECK_THROWS_WITH_AS((void)step_operators(m, {.mode = phase::decode, .batch = -3, .context = 16}),
                       "[strata.operators] batch must be >= 1, got -3", config_error);
  model bad = m;
  bad.top_k = 65;
  CHECK(field_of([&] { (void)step_operators(bad, {}); }) == "top_k");
}

TEST_CASE("operators are listed in execution order with names that say where they are") {
  const model m = preset("DeepSeek-V2-Lite");
  const auto ops = step_operators(m, {.mode = phase::decode, .batch = 8, .context = 1024});
  CHECK(ops.front().kind == op_kind::embedding);
  CHECK(ops.back().kind == op_kind::lm_head);
  CHECK(ops[ops.size() - 2].kind == op_kind::final_norm);
  int last_layer = -1;
  for (std::size_t i = 1; i + 2 < ops.size(); ++i) {
    CHECK(ops[i].layer >= last_layer);
    last_layer = ops[i].layer;
  }
  CHECK(last_layer == m.layers - 1);
  CHECK(op_name(ops.front()) == "embedding");
  CHECK(op_name(the_op(ops, op_kind::dense_ffn, 0)) == "L0.dense_ffn");
  CHECK(op_name(the_op(ops, op_kind::shared_experts, 26)) == "L26.shared_experts");
}

TEST_CASE("extreme sizes stay finite: DeepSeek-V3 at batch 1024 and 128k context, and at the int limits") {
  // Issue 8: byte counts, FLOPs and token counts must not overflow for the largest preset at
  // batch 1024 and 128k context (decode and prefill), nor at batch = context = 2^31 - 1.
  const model m = presets::deepseek_v3();
  struct shape_case {
    phase mode;
    int batch, context;
  };
  for (const auto& c : {shape_case{phase::decode, 1024, 131072}, shape_case{phase::prefill, 1024, 131072},
                        shape_case{phase::decode, 2147483647, 2147483647},
                        shape_case{phase::prefill, 2147483647, 2147483647}}) {
    CAPTURE(c.batch);
    CAPTURE(c.context);
    const step_shape s{.mode = c.mode, .batch = c.batch, .context = c.context};
    const auto ops = step_operators(m, s);
    REQUIRE(!ops.empty());
    double flops = 0.0, bytes = 0.0;
    for (const auto& o : ops) {
      CHECK(std::isfinite(o.flops.si()));
      CHECK(o.flops.si() >= 0.0);
      CHECK(std::isfinite(o.bytes().si()));
      CHECK(o.bytes().si() >= 0.0);
      flops += o.flops.si();
      bytes += o.bytes().si();
    }
    CHECK(std::isfinite(flops));
    CHECK(std::isfinite(bytes));
    // At least 2 FLOPs per active weight per token: 37 B active parameters (DeepSeek-V3 report).
    const double tokens = c.mode == phase::decode ? double(c.batch) : double(c.batch) * c.context;
    CHECK(flops > 2.0 * 3.0e10 * tokens);
  }
}

TEST_CASE("a sliding layer's attention reads and scores at most its window; a full layer the whole context") {
  const model m = preset("gpt-oss-20b");  // layer 0 slides over 128 tokens, layer 1 is full
  const step_shape s{.mode = phase::decode, .batch = 2, .context = 131072};
  const auto ops = step_operators(m, s);
  const op* slide = nullptr;
  const op* full = nullptr;
  for (const op& o : ops) {
    if (o.kind == op_kind::attention && o.layer == 0) slide = &o;
    if (o.kind == op_kind::attention && o.layer == 1) full = &o;
  }
  REQUIRE(slide != nullptr);
  REQUIRE(full != nullptr);
  const double kv_token = kv_bytes_per_token_layer(m).in(units::B);
  // Decode reads the attended cached tokens and appends one: B · (Sw + 1) entries.
  CHECK(slide->kv_bytes.in(units::B) == 2.0 * (128.0 + 1.0) * kv_token);
  CHECK(full->kv_bytes.in(units::B) == 2.0 * (131072.0 + 1.0) * kv_token);
  // QKᵀ and AV over Sw keys of dh = 64, softmax 5 per score plus one sink term per head.
  const double h = 64.0, dh = 64.0;
  CHECK(slide->flops.si() == doctest::Approx(2.0 * 2 * h * 128 * (dh + dh) + 5.0 * (2 * h * 128 + 2 * h)));
  CHECK(full->flops.si() == doctest::Approx(2.0 * 2 * h * 131072 * (dh + dh) + 5.0 * (2 * h * 131072 + 2 * h)));
  SUBCASE("prefill: Σ_i min(i, W) query-key pairs") {
    const step_shape p{.mode = phase::prefill, .batch = 1, .context = 1000};
    for (const op& o : step_operators(m, p)) {
      if (o.kind != op_kind::attention || o.layer > 1) continue;
      const double pairs = o.layer == 0 ? 128.0 * 129.0 / 2.0 + (1000.0 - 128.0) * 128.0 : 1000.0 * 1001.0 / 2.0;
      CHECK(o.flops.si() == doctest::Approx(2.0 * h * pairs * (dh + dh) + 5.0 * (h * pairs + h * 1000.0)));
    }
  }
}

TEST_CASE("MXFP4 experts move 4.25 bits per weight and compute at 4 bits; attention stays BF16") {
  const model m = preset("gpt-oss-20b");
  const step_shape s{.mode = phase::decode, .batch = 1, .context = 1024};
  for (const op& o : step_operators(m, s)) {
    if (o.kind == op_kind::routed_experts) {
      CHECK(o.bits == 4);
      const double per_expert = 3.0 * 2880.0 * 2880.0;
      CHECK(o.weight_bytes.in(units::B) == doctest::Approx(per_expert * o.instances * 4.25 / 8.0));
    }
    if (o.kind == op_kind::qkv_proj || o.kind == op_kind::lm_head) CHECK(o.bits == 16);
  }
}
