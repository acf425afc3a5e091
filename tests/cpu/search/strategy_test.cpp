// Strategies on a replayed synthetic landscape (search_fixture.hpp): exhaustive finds the
// true best, random is a seeded sample without repeats, evolve finds a point within 2% of the
// exhaustive best in at most a quarter of the evaluations, and everything is deterministic.
#include <gtest/gtest.h>

#include <set>

#include "common/error.hpp"
#include "search/strategy.hpp"
#include "search/tuner.hpp"
#include "search_fixture.hpp"

namespace ako::search {
namespace {

using namespace testing;

// Records the order in which a strategy asked for variants.
class RecordingEvaluator : public ReplayEvaluator {
 public:
  using ReplayEvaluator::ReplayEvaluator;
  std::vector<DbRecord> evaluate(const std::vector<EvalRequest>& batch) override {
    for (const auto& r : batch) asked.push_back(params_text(r.params) + " @" + r.shapes.front()->name);
    return ReplayEvaluator::evaluate(batch);
  }
  std::vector<std::string> asked;
};

TuneOutcome replay(const std::string& strategy, uint64_t seed, size_t budget, ClassMode mode,
                   std::vector<std::string>* asked = nullptr, double fraction = 0) {
  Landscape& l = landscape();
  RecordingEvaluator ev(l.file, synthetic_context());
  TuningDb db("", synthetic_context());
  TuneOptions opt;
  opt.strategy.name = strategy;
  opt.strategy.seed = seed;
  opt.budget = budget;
  opt.budget_fraction = fraction;
  opt.batch = 8;
  TuneOutcome o = tune(l.spec, all_shapes(l.spec), mode, opt, ev, db);
  if (asked) *asked = ev.asked;
  return o;
}

// The true best score of a class: minimum over its valid points of the model's geomean.
double true_best(const ClassOutcome& co) {
  const Space space(landscape().spec);
  double best = 1e300;
  for (const auto& p : co.space.valid) {
    double log_sum = 0;
    for (const auto* s : co.cls.shapes) log_sum += std::log(model_us(space.params_of(p), *s));
    best = std::min(best, std::exp(log_sum / co.cls.shapes.size()));
  }
  return best;
}

TEST(Strategy, ExhaustiveEvaluatesEveryValidPointAndFindsTheTrueBest) {
  for (ClassMode mode : {ClassMode::config, ClassMode::shape}) {
    const TuneOutcome o = replay("exhaustive", 1, 0, mode);
    size_t tuned = 0;
    for (const auto& co : o.classes) {
      if (co.cls.shapes.empty()) {
        EXPECT_FALSE(co.winner);
        continue;
      }
      ++tuned;
      EXPECT_EQ(co.evaluations, co.space.valid.size()) << co.cls.name;
      EXPECT_EQ(co.usable, co.space.valid.size()) << co.cls.name;
      ASSERT_TRUE(co.winner) << co.cls.name;
      // The winner is the fastest or within the 1% tie band of it.
      EXPECT_LE(co.winner_score, true_best(co) * (1 + kTieRel) + 1e-9) << co.cls.name;
    }
    EXPECT_GE(tuned, mode == ClassMode::shape ? landscape().spec.shapes.size() : 5u);
  }
}

TEST(Strategy, RandomIsASeededSampleWithoutRepeatsWithinTheBudget) {
  std::vector<std::string> a, b, c;
  const TuneOutcome oa = replay("random", 7, 20, ClassMode::shape, &a);
  replay("random", 7, 20, ClassMode::shape, &b);
  replay("random", 8, 20, ClassMode::shape, &c);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  EXPECT_EQ(std::set<std::string>(a.begin(), a.end()).size(), a.size()) << "a variant was asked twice";
  for (const auto& co : oa.classes) {
    if (!co.cls.shapes.empty()) {
      EXPECT_EQ(co.evaluations, std::min<size_t>(20, co.space.valid.size()));
    }
  }
  // Not enumeration order: the first ask of a class differs from exhaustive's.
  std::vector<std::string> ex;
  replay("exhaustive", 7, 20, ClassMode::shape, &ex);
  EXPECT_NE(a, ex);
}

TEST(Strategy, EvolveIsDeterministicForASeed) {
  std::vector<std::string> a, b, c;
  replay("evolve", 3, 40, ClassMode::shape, &a);
  replay("evolve", 3, 40, ClassMode::shape, &b);
  replay("evolve", 4, 40, ClassMode::shape, &c);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  EXPECT_EQ(std::set<std::string>(a.begin(), a.end()).size(), a.size());
}

// The issue's bar: within 2% of the exhaustive best in at most a quarter of the evaluations,
// on every class, for every one of ten seeds (per shape and per config class).
TEST(Strategy, EvolveFindsWithinTwoPercentOfTheBestInAQuarterOfTheEvaluations) {
  for (ClassMode mode : {ClassMode::shape, ClassMode::config}) {
    const TuneOutcome ex = replay("exhaustive", 1, 0, mode);
    std::map<std::string, double> best;
    std::map<std::string, size_t> valid;
    for (const auto& co : ex.classes)
      if (co.winner) {
        best[co.cls.name] = true_best(co);
        valid[co.cls.name] = co.space.valid.size();
      }
    size_t worst_evals = 0, total_valid = 0;
    for (const auto& [n, v] : valid) total_valid += v;
    for (uint64_t seed = 1; seed <= 10; ++seed) {
      const TuneOutcome o = replay("evolve", seed, 0, mode, nullptr, 0.25);
      for (const auto& co : o.classes) {
        if (!co.winner) continue;
        const std::string& name = co.cls.name;
        EXPECT_LE(co.evaluations, valid[name] / 4 + 1) << name;
        worst_evals = std::max(worst_evals, co.evaluations);
        EXPECT_LE(co.winner_score, best[name] * 1.02)
            << name << " seed " << seed << ": evolve " << co.winner_score << " vs best " << best[name] << " after "
            << co.evaluations << " of " << valid[name] << " valid points";
      }
    }
    std::cout << (mode == ClassMode::shape ? "per shape" : "per config class") << ": " << valid.size()
              << " classes, " << total_valid << " valid points in all\n";
  }
}

TEST(Strategy, UnknownNameIsAnError) {
  std::vector<Point> valid{{0}};
  EXPECT_THROW(make_strategy({.name = "annealing"}, valid, {1}), Error);
}

}  // namespace
}  // namespace ako::search
