#include "strata/hcrmap/dqn_json.hpp"

#include <doctest/doctest.h>

#include <functional>  // std::function
#include <string>      // std::string
#include <vector>      // std::vector

#include "strata/hcrmap/dqn_train.hpp"
#include "support/dqn_envs.hpp"
#include "support/field_of.hpp"

using namespace strata;
using strata_test::bandit_env;
using strata_test::field_of;

namespace {

// A trained agent (the contextual bandit of dqn_test.cpp, shorter).
const dqn_agent& trained() {
  static const dqn_agent a = [] {
    bandit_env env(31);
    auto p = strata_test::toy_params(4);
    p.gamma = 0.0;
    p.hidden = {16, 8};
    dqn_agent agent(bandit_env::features, p);
    train(agent, env, {.episodes = 800, .max_steps = 1});
    return agent;
  }();
  return a;
}

// The checkpoint of a small network as JSON, for editing into bad ones.
json small_checkpoint() {
  dqn_params p;
  p.hidden = {3, 2};
  return json(make_checkpoint(dqn_agent(4, p)));
}

std::string load_error_field(const json& j) {
  return field_of([&] { (void)load_checkpoint(j); });
}

}  // namespace

TEST_CASE("dqn_params round-trip through JSON") {
  dqn_params p = strata_test::toy_params(12345678901234567890ull);
  p.optimizer = q_optimizer::sgd;
  p.polyak_tau = 0.005;
  const json j = p;
  CHECK(j["optimizer"] == "sgd");
  CHECK(j["seed"].get<std::uint64_t>() == 12345678901234567890ull);
  CHECK(from_json_at<dqn_params>(j) == p);
  CHECK(from_json_at<dqn_params>(json::object()) == dqn_params{});  // missing keys keep the defaults
}

TEST_CASE("a loaded checkpoint reproduces the saved agent's weights and decisions") {
  const dqn_agent& a = trained();
  const std::string text = save_dqn_checkpoint(a);
  const dqn_agent b = parse_dqn_checkpoint(text, "dqn.json");
  CHECK(b.params() == a.params());
  CHECK(b.features() == a.features());
  CHECK(b.online() == a.online());  // every weight bit-identical
  CHECK(b.target() == a.online());  // the frozen network also starts the target
  int same = 0;
  for (int s = 0; s < bandit_env::contexts; ++s) {
    const Eigen::MatrixXd x = bandit_env::features_of(s);
    CHECK(b.scores(x) == a.scores(x));
    for (unsigned bits = 1; bits < 32; ++bits) {
      std::vector<bool> mask(bandit_env::actions);
      for (int k = 0; k < bandit_env::actions; ++k) mask[static_cast<std::size_t>(k)] = ((bits >> k) & 1u) != 0;
      same += a.greedy(x, mask) == b.greedy(x, mask) ? 1 : 0;
    }
  }
  CHECK(same == 4 * 31);
  // Saving the loaded agent gives the same text: the format is a fixed point.
  CHECK(save_dqn_checkpoint(b) == text);
  CHECK(save_dqn_checkpoint(b, -1).find('\n') == std::string::npos);
}

TEST_CASE("training with the same seed gives the same checkpoint; another seed a different one") {
  const auto checkpoint_after_training = [](std::uint64_t agent_seed) {
    strata_test::chain_env env(17);
    dqn_agent agent(strata_test::chain_env::features, strata_test::toy_params(agent_seed));
    train(agent, env, {.episodes = 100, .max_steps = 20});
    return save_dqn_checkpoint(agent);
  };
  const std::string a = checkpoint_after_training(3);
  CHECK(a == checkpoint_after_training(3));
  CHECK(a != checkpoint_after_training(4));
}

TEST_CASE("a checkpoint holds format, version, features, params and input-first layers") {
  const json j = small_checkpoint();
  CHECK(j["format"] == "strata.hcrmap.dqn");
  CHECK(j["version"] == dqn_checkpoint_version);
  CHECK(j["features"] == 4);
  CHECK(j["params"]["hidden"] == json::array({3, 2}));
  REQUIRE(j["layers"].size() == 3);
  CHECK(j["layers"][0]["weights"].size() == 3);     // 3 rows of 4 inputs
  CHECK(j["layers"][0]["weights"][0].size() == 4);
  CHECK(j["layers"][2]["weights"].size() == 1);     // the scalar output
  CHECK(j["layers"][2]["weights"][0].size() == 2);
  CHECK(field_of([&] { (void)load_checkpoint(j); }) == "<no config_error>");
}

TEST_CASE("a weight below 1e-24 in magnitude is written as 0, so the file always loads") {
  q_layer l{Eigen::MatrixXd(1, 2), Eigen::VectorXd(1)};
  l.weights << 3e-30, -0.5;
  l.bias << -1e-200;
  dqn_params p;
  p.hidden = {};
  const dqn_agent a(p, q_network({l}));
  const dqn_agent b = parse_dqn_checkpoint(save_dqn_checkpoint(a));
  CHECK(b.online().layers()[0].weights(0, 0) == 0.0);
  CHECK(b.online().layers()[0].weights(0, 1) == -0.5);
  CHECK(b.online().layers()[0].bias(0) == 0.0);
}

TEST_CASE("bad checkpoints raise config_error naming the JSON path") {
  const auto expect_field = [](const std::function<void(json&)>& edit, const char* field) {
    json j = small_checkpoint();
    edit(j);
    CHECK(load_error_field(j) == field);
  };
  expect_field([](json& j) { j["format"] = "strata.other"; }, "format");
  expect_field([](json& j) { j["version"] = 2; }, "version");
  expect_field([](json& j) { j["version"] = "1"; }, "version");
  expect_field([](json& j) { j["features"] = 0; }, "features");
  expect_field([](json& j) { j["features"] = 100000; }, "features");
  expect_field([](json& j) { j["extra"] = 1; }, "extra");
  expect_field([](json& j) { j["params"]["gamma"] = 2.0; }, "params.gamma");
  expect_field([](json& j) { j["params"]["hidden"] = json::array({3, 1000000}); }, "params.hidden[1]");
  expect_field([](json& j) { j["params"]["hidden"] = json(std::vector<int>(9, 2)); }, "params.hidden");
  // Widths within the bound whose product is not: 2 × 4096² weights, rejected before any allocation.
  expect_field([](json& j) { j["params"]["hidden"] = json::array({4096, 4096, 4096}); }, "params.hidden");
  expect_field([](json& j) { j["params"]["optimizer"] = "rmsprop"; }, "params.optimizer");
  expect_field([](json& j) { j["layers"].erase(2); }, "layers");
  expect_field([](json& j) { j["layers"][0]["weights"].erase(0); }, "layers[0].weights");
  expect_field([](json& j) { j["layers"][1]["weights"][1].push_back(0.5); }, "layers[1].weights[1]");
  expect_field([](json& j) { j["layers"][2]["bias"] = json::array(); }, "layers[2].bias");
  expect_field([](json& j) { j["layers"][0]["weights"][2][3] = "x"; }, "layers[0].weights[2][3]");
  expect_field([](json& j) { j["layers"][0]["weights"][2][3] = 1e300; }, "layers[0].weights[2][3]");
  expect_field([](json& j) { j["layers"][1]["bias"][0] = 1e-300; }, "layers[1].bias[0]");
  expect_field([](json& j) { j["layers"][1]["scale"] = 2; }, "layers[1].scale");
  expect_field([](json& j) { j = json::array(); }, "");  // the root must be an object
}

TEST_CASE("checkpoint text from outside: invalid JSON, numbers out of range and deep nesting are config_errors") {
  CHECK(field_of([] { (void)parse_dqn_checkpoint("{\"format\": ", "a.json"); }) == "format");  // where it broke
  CHECK(field_of([] { (void)parse_dqn_checkpoint("", "a.json"); }) == "a.json");
  const std::string big = R"({"format": "strata.hcrmap.dqn", "features": 1e400})";
  CHECK(field_of([&] { (void)parse_dqn_checkpoint(big, "b.json"); }) == "features");
  const std::string deep = std::string(100, '[') + std::string(100, ']');
  CHECK(field_of([&] { (void)parse_dqn_checkpoint(deep, "c.json"); }) != "<no config_error>");
  CHECK(field_of([] { (void)parse_dqn_checkpoint("{}", "d.json"); }) == "features");  // 0 features: no network
}
