#include "strata/workload/model.hpp"

#include <doctest/doctest.h>

#include "support/field_of.hpp"

#include <cstdint>  // std::int64_t
#include <string>   // std::string

#include "strata/core/json.hpp"         // JSON round trip of the model
#include "strata/workload/presets.hpp"  // published models for the layer patterns and sizes

using namespace strata;

namespace {

using strata_test::field_of;

// A dense model small enough to count by hand: 2 layers, d = 8, 2 query heads and 1 KV head of 4,
// vocabulary 10, SwiGLU FFN of 16.
model tiny_dense() {
  return {.name = "tiny", .family = "test", .layers = 2, .hidden = 8, .heads = 2, .kv_heads = 1,
          .head_dim = 4, .vocab = 10, .dense_ffn = 16};
}

// A MoE model: 3 layers (layer 0 dense), d = 8, 2 heads and 2 KV heads of 4, 4 experts of 6,
// top-2, one gated shared expert of 4.
model tiny_moe() {
  return {.name = "tiny-moe", .family = "test", .layers = 3, .hidden = 8, .heads = 2, .kv_heads = 2,
          .head_dim = 4, .vocab = 10, .dense_ffn = 16, .first_dense_layers = 1, .experts = 4,
          .top_k = 2, .expert_ffn = 6, .shared_experts = 1, .shared_expert_ffn = 4,
          .shared_expert_gate = true};
}

// One dense layer with MLA: d = 8, 2 heads, kv_lora 4, q_lora 3, rope 2, nope 3, v 5.
model tiny_mla() {
  return {.name = "tiny-mla", .family = "test", .layers = 1, .hidden = 8, .heads = 2, .kv_heads = 2,
          .head_dim = 0,
          .mla = {.kv_lora_rank = 4, .q_lora_rank = 3, .qk_rope_head_dim = 2, .qk_nope_head_dim = 3,
                  .v_head_dim = 5},
          .vocab = 10, .dense_ffn = 16};
}

}  // namespace

TEST_CASE("a small dense model has the parameter count derived by hand") {
  // Embedding 10·8 + LM head 10·8 = 160, final norm 8. Per layer: q 8·8 = 64, k 8·4 = 32,
  // v 32, o 8·8 = 64 (attention 192), two norms 16, SwiGLU 3·8·16 = 384: 592. Total 160 + 8 + 2·592.
  const model m = tiny_dense();
  const param_counts c = count_params(m);
  CHECK(c.total == 1352);
  CHECK(c.active == 1352);
  CHECK(c.embedding == 160);
  CHECK(c.attention == 2 * 192);
  CHECK(c.per_expert == 0);
  SUBCASE("tied embeddings count the matrix once") {
    model t = m;
    t.tie_embeddings = true;
    CHECK(count_params(t).total == 1352 - 80);
  }
  SUBCASE("a GeLU FFN has two matrices instead of three") {
    model g = m;
    g.ffn = ffn_kind::gelu;
    CHECK(count_params(g).total == 1352 - 2 * 3 * 8 * 16 + 2 * 2 * 8 * 16);
  }
  SUBCASE("QKV biases add h·dh + 2·kv·dh per layer") {
    model b = m;
    b.qkv_bias = true;
    CHECK(count_params(b).total == 1352 + 2 * (8 + 4 + 4));
  }
  SUBCASE("OLMoE's QK norm has (h + kv)·dh weights, Llama-4's weightless L2 norm none") {
    model o = m;
    o.qk_norm = true;
    o.family = "olmoe";
    CHECK(count_params(o).total == 1352 + 2 * (2 + 1) * 4);
    o.family = "llama4";
    CHECK(count_params(o).total == 1352);
  }
}

TEST_CASE("a small MoE model counts routed, shared, gate and router weights by hand") {
  // Attention: q, k, v, o each 8·8 = 64: 256. Dense layer 0: 256 + 16 + 3·8·16 = 656.
  // MoE layer: 256 + 16 + router 4·8 = 32 + shared 3·8·4 = 96 + gate 8 + experts 4·(3·8·6 = 144)
  // = 984 in total, of which a token touches 256 + 16 + 32 + 96 + 8 + 2·144 = 696.
  const param_counts c = count_params(tiny_moe());
  CHECK(c.per_expert == 144);
  CHECK(c.attention == 3 * 256);
  CHECK(c.total == 160 + 8 + 656 + 2 * 984);
  CHECK(c.active == 160 + 8 + 656 + 2 * 696);
}

TEST_CASE("a small MLA layer counts the compressed query and key-value projections by hand") {
  // q: 8·3 + 3 (norm) + 3·2·(3 + 2) = 57; kv: 8·(4 + 2) + 4 (norm) + 4·2·(3 + 5) = 116;
  // o: 2·5·8 = 80. Layer: 253 + 16 + 384 = 653; total 160 + 8 + 653.
  model m = tiny_mla();
  CHECK(m.is_mla());
  CHECK(count_params(m).attention == 253);
  CHECK(count_params(m).total == 821);
  SUBCASE("without query compression the query is one d × h·(nope + rope) matrix") {
    m.mla.q_lora_rank = 0;
    CHECK(count_params(m).attention == 8 * 2 * 5 + 116 + 80);
  }
}

TEST_CASE("MoE layers follow each family's layer pattern") {
  SUBCASE("DeepSeek-V3: first_k_dense_replace = 3 keeps layers 0-2 dense") {
    const model m = presets::deepseek_v3();
    CHECK_FALSE(m.is_moe_layer(0));
    CHECK_FALSE(m.is_moe_layer(2));
    CHECK(m.is_moe_layer(3));
    CHECK(m.is_moe_layer(60));
    CHECK(m.moe_layers() == 58);
  }
  SUBCASE("DeepSeek moe_layer_freq = 2 (offset 0): every even layer after the dense prefix") {
    model m = presets::deepseek_moe_16b();
    m.moe_layer_step = 2;
    CHECK_FALSE(m.is_moe_layer(0));  // dense prefix
    CHECK_FALSE(m.is_moe_layer(1));
    CHECK(m.is_moe_layer(2));
    CHECK(m.moe_layers() == 13);  // 2, 4, ..., 26 of layers 0..27
  }
  SUBCASE("Qwen2-MoE decoder_sparse_step = 2: layer i is MoE iff (i + 1) % 2 == 0") {
    model m = presets::qwen1_5_moe_a2_7b();
    m.moe_layer_step = 2;
    CHECK_FALSE(m.is_moe_layer(0));
    CHECK(m.is_moe_layer(1));
    CHECK_FALSE(m.is_moe_layer(2));
    CHECK(m.is_moe_layer(23));
    CHECK(m.moe_layers() == 12);
  }
  SUBCASE("Llama-4 interleave_moe_layer_step = 2: moe_layers = range(1, 48, 2)") {
    model m = presets::llama4_scout_17b_16e();
    CHECK(m.moe_layers() == 48);  // Scout: step 1, every layer
    m.moe_layer_step = 2;
    CHECK_FALSE(m.is_moe_layer(0));
    CHECK(m.is_moe_layer(1));
    CHECK(m.is_moe_layer(47));
    CHECK(m.moe_layers() == 24);
    // A dense layer swaps 16 experts + shared expert + router for one FFN of intermediate_size_mlp.
    const std::int64_t d = 5120;
    const std::int64_t moe_ffn = 17 * 3 * d * 8192 + 16 * d;
    CHECK(count_params(presets::llama4_scout_17b_16e()).total - count_params(m).total ==
          24 * (moe_ffn - 3 * d * 16384));
  }
  SUBCASE("a dense model has no MoE layer") {
    CHECK(presets::qwen2_5_32b().moe_layers() == 0);
  }
}

TEST_CASE("expert bytes and KV-cache bytes per token per layer match hand calculations") {
  SUBCASE("Mixtral-8x7B, GQA: 2·8·128 values of 2 B; an expert is 3·4096·14336 weights of 2 B") {
    const model m = presets::mixtral_8x7b();
    CHECK(kv_bytes_per_token_layer(m).in(units::B) == 4096.0);
    CHECK(expert_bytes(m).in(units::B) == 352321536.0);
  }
  SUBCASE("DeepSeek-V3, MLA: (512 + 64) values of 2 B; an FP8 expert is 3·7168·2048 bytes") {
    const model m = presets::deepseek_v3();
    CHECK(kv_bytes_per_token_layer(m).in(units::B) == 1152.0);
    CHECK(expert_bytes(m).in(units::B) == 44040192.0);
  }
  SUBCASE("an 8-bit KV cache halves the bytes") {
    model m = presets::mixtral_8x7b();
    m.kv_bits = 8;
    CHECK(kv_bytes_per_token_layer(m).in(units::B) == 2048.0);
  }
  SUBCASE("a dense model has no expert bytes") {
    CHECK(expert_bytes(presets::qwen2_5_32b()).in(units::B) == 0.0);
  }
}

TEST_CASE("validate names the offending field") {
  SUBCASE("kv_heads that do not divide heads") {
    model m = presets::mixtral_8x7b();
    m.kv_heads = 3;
    CHECK_THROWS_WITH_AS(validate(m), "[strata.model] kv_heads must be a divisor of heads, got 3", config_error);
    CHECK(field_of([&] { validate(m); }) == "kv_heads");
  }
  SUBCASE("top_k above the number of experts") {
    model m = presets::mixtral_8x7b();
    m.top_k = 9;
    CHECK_THROWS_WITH_AS(validate(m), "[strata.model] top_k must be in [1, experts], got 9", config_error);
    CHECK(field_of([&] { validate(m); }) == "top_k");
  }
  SUBCASE("zero layers") {
    model m = presets::mixtral_8x7b();
    m.layers = 0;
    CHECK_THROWS_WITH_AS(validate(m), "[strata.model] layers must be in [1, 1024] (strata::limits().layers), got 0", config_error);
    CHECK(field_of([&] { count_params(m); }) == "layers");
  }
  SUBCASE("a negative MLA no-rope head size names qk_nope_head_dim, not qk_rope_head_dim") {
    model m = presets::deepseek_v3();
    m.mla.qk_nope_head_dim = -1;
    CHECK(field_of([&] { validate(m); }) == "mla.qk_nope_head_dim");
  }
  SUBCASE("a model with dense layers needs a dense FFN width") {
    model m = presets::deepseek_v3();
    m.dense_ffn = 0;
    CHECK(field_of([&] { validate(m); }) == "dense_ffn");
  }
  SUBCASE("a weight format's fields are named with the format (the name built only for a failure)") {
    model m = presets::mixtral_8x7b();
    m.attention_format.bits = 65;
    CHECK_THROWS_WITH_AS(validate(m), "[strata.model] attention_format.bits must be in [0, 64] (0: weight_bits), got 65",
                         config_error);
    m = presets::mixtral_8x7b();
    m.embedding_format.scale_bits = -1;
    CHECK(field_of([&] { validate(m); }) == "embedding_format.scale_bits");
    m = presets::mixtral_8x7b();
    m.expert_format.block = 32;  // scales of no bits
    CHECK_THROWS_WITH_AS(validate(m), "[strata.model] expert_format.block must be > 0 exactly when scale_bits > 0, got 32",
                         config_error);
    m.expert_format.scale_bits = 8;
    CHECK_NOTHROW(validate(m));
  }
  SUBCASE("the published presets are valid") {
    CHECK_NOTHROW(validate(presets::deepseek_v3()));
    CHECK_NOTHROW(validate(tiny_moe()));
  }
}

TEST_CASE("a model round-trips through JSON with its FFN kind by name") {
  model m = presets::deepseek_v3();
  m.ffn = ffn_kind::gelu;
  const json j = m;
  CHECK(j.at("ffn") == "gelu");
  CHECK(j.at("mla").at("kv_lora_rank") == 512);
  CHECK(j.get<model>() == m);
  SUBCASE("a changed field is not equal") {
    json k = j;
    k["mla"]["q_lora_rank"] = 0;
    CHECK(k.get<model>() != m);
  }
  SUBCASE("an unknown key is rejected by name") {
    json k = j;
    k["layer"] = 3;
    CHECK(field_of([&] { (void)k.get<model>(); }) == "layer");
  }
  SUBCASE("an unknown FFN kind is rejected") {
    json k = j;
    k["ffn"] = "relu";
    CHECK(field_of([&] { (void)k.get<model>(); }) == "ffn");
  }
}

TEST_CASE("validate bounds every dimension by strata::limits() and checks the parameter count") {
  model m = presets::mixtral_8x7b();
  m.experts = 2147483647;
  CHECK_THROWS_WITH_AS(validate(m),
                       "[strata.model] experts must be in [0, 65536] (strata::limits().experts), got 2147483647",
                       config_error);
  m = presets::deepseek_v3();
  m.mla.kv_lora_rank = 1 << 20;
  CHECK(field_of([&] { validate(m); }) == "mla.kv_lora_rank");
  m = presets::mixtral_8x7b();
  m.layers = 1000000;
  CHECK(field_of([&] { count_params(m); }) == "layers");
  // Every field within its limit, the total beyond 2^63: 3 · 2^17 · 2^20 · 2^16 experts · 2^10 layers.
  m = presets::mixtral_8x7b();
  m.hidden = 1 << 17;
  m.heads = 128;
  m.kv_heads = 128;
  m.head_dim = 1024;
  m.expert_ffn = 1 << 20;
  m.experts = 1 << 16;
  m.layers = 1 << 10;
  CHECK(field_of([&] { validate(m); }) == "layers");
  // The limits are adjustable: more layers are accepted once raised.
  const input_limits saved = limits();
  limits().layers = 1 << 20;
  m = presets::mixtral_8x7b();
  m.layers = 100000;
  CHECK_NOTHROW(validate(m));
  CHECK(count_params(m).total > 0);
  limits() = saved;
}
