// The tuning space: rmsnorm's real params and constraints, counted against an independent
// brute force; rejection reasons; intersections over shapes; launch limits.
#include <gtest/gtest.h>

#include "search/space.hpp"
#include "search_fixture.hpp"

namespace ako::search {
namespace {

using testing::real_spec;

// The rmsnorm constraints written out in C++, independently of the expression language.
bool valid_by_hand(int64_t B, int64_t V, int64_t R, int64_t C, int64_t cols) {
  if (B % R != 0) return false;
  const int64_t tpr = B / R;
  if (tpr <= 0 || (tpr & (tpr - 1)) != 0) return false;
  if (cols % V != 0) return false;
  return (C - 1) * tpr * V < cols;
}

TEST(Space, RmsnormRealSpaceCountsMatchABruteForcePerShape) {
  const task::TaskSpec spec = real_spec();
  ASSERT_EQ(spec.solution.constraints,
            (std::vector<std::string>{"BLOCK % ROWS_PER_BLOCK == 0", "pow2(BLOCK / ROWS_PER_BLOCK)", "cols % VEC == 0",
                                      "(CHUNKS - 1) * (BLOCK / ROWS_PER_BLOCK) * VEC < cols"}))
      << "tasks/rmsnorm/task.json's constraints changed: update valid_by_hand";
  const Space space(spec);
  ASSERT_EQ(space.size(), 6u * 4 * 6 * 7);
  for (const auto& shape : spec.shapes) {
    uint64_t expected = 0;
    for (const auto& t : spec.solution.params) ASSERT_FALSE(t.values.empty());
    for (int64_t B : spec.solution.params[0].values)        // BLOCK (params are in name order)
      for (int64_t C : spec.solution.params[1].values)      // CHUNKS
        for (int64_t R : spec.solution.params[2].values)    // ROWS_PER_BLOCK
          for (int64_t V : spec.solution.params[3].values)  // VEC
            expected += valid_by_hand(B, V, R, C, shape.dims.at("cols"));
    const Enumeration e = enumerate(space, {&shape});
    EXPECT_EQ(e.valid.size(), expected) << shape.name;
    EXPECT_EQ(e.valid.size() + e.rejected_total(), space.size()) << shape.name;
    EXPECT_GT(e.valid.size(), 0u) << shape.name;
    for (const auto& p : e.valid) {
      const Params q = space.params_of(p);
      EXPECT_TRUE(valid_by_hand(q.at("BLOCK"), q.at("VEC"), q.at("ROWS_PER_BLOCK"), q.at("CHUNKS"), shape.dims.at("cols")));
    }
    std::cout << shape.name << " (cols " << shape.dims.at("cols") << "): " << e.valid.size() << " of " << e.total
              << " valid\n";
  }
}

TEST(Space, QkNormRejectsChunksThatCannotBeUsedAndNamesTheRule) {
  const task::TaskSpec spec = real_spec();
  const Space space(spec);
  const task::ShapeSpec* qk = nullptr;
  for (const auto& s : spec.shapes)
    if (s.dims.at("cols") == 128) qk = &s;
  ASSERT_NE(qk, nullptr);
  // 256 threads, 1 row per block: one pass reaches 2048 > 128 columns; a second chunk is useless.
  auto why = space.rejection({{"BLOCK", 256}, {"VEC", 8}, {"ROWS_PER_BLOCK", 1}, {"CHUNKS", 2}}, *qk);
  ASSERT_TRUE(why.has_value());
  EXPECT_EQ(*why, "constraint \"(CHUNKS - 1) * (BLOCK / ROWS_PER_BLOCK) * VEC < cols\"");
  // 16 rows of 16 threads x 8 elements: exactly one pass over 128 columns.
  EXPECT_FALSE(space.rejection({{"BLOCK", 256}, {"VEC", 8}, {"ROWS_PER_BLOCK", 16}, {"CHUNKS", 1}}, *qk));
  // An odd width rejects vectors: cols % VEC.
  task::ShapeSpec odd{"odd", {{"rows", 3}, {"cols", 100}}, ""};
  why = space.rejection({{"BLOCK", 256}, {"VEC", 8}, {"ROWS_PER_BLOCK", 1}, {"CHUNKS", 1}}, odd);
  ASSERT_TRUE(why.has_value());
  EXPECT_EQ(*why, "constraint \"cols % VEC == 0\"");
}

TEST(Space, SeveralShapesIntersect) {
  const task::TaskSpec spec = real_spec();
  const Space space(spec);
  std::vector<const task::ShapeSpec*> both;
  const task::ShapeSpec *narrow = nullptr, *wide = nullptr;
  for (const auto& s : spec.shapes) {
    if (s.dims.at("cols") == 128) narrow = &s;
    if (s.dims.at("cols") == 6144) wide = &s;
  }
  ASSERT_TRUE(narrow && wide);
  const auto a = enumerate(space, {narrow}), b = enumerate(space, {wide}), ab = enumerate(space, {narrow, wide});
  size_t common = 0;
  for (const auto& p : a.valid) common += std::count(b.valid.begin(), b.valid.end(), p);
  EXPECT_EQ(ab.valid.size(), common);
  // The chunk rule only gets easier as rows widen: what runs on 128 columns runs on 6144.
  EXPECT_EQ(ab.valid, a.valid);
  EXPECT_LT(ab.valid.size(), b.valid.size());
}

TEST(Space, PointsRoundTripAndUnknownValuesAreRefused) {
  const task::TaskSpec spec = real_spec();
  const Space space(spec);
  for (uint64_t i = 0; i < space.size(); i += 37) {
    const Point p = space.point_at(i);
    auto back = space.point_of(space.params_of(p));
    ASSERT_TRUE(back);
    EXPECT_EQ(*back, p);
  }
  EXPECT_FALSE(space.point_of({{"BLOCK", 48}, {"VEC", 8}, {"ROWS_PER_BLOCK", 1}, {"CHUNKS", 1}}));
  EXPECT_FALSE(space.point_of({{"BLOCK", 256}}));
}

TEST(Space, LaunchLimitsRejectPointsBeforeTheGpu) {
  task::TaskSpec spec = real_spec();
  spec.solution.params[0].values = {256, 2048};  // BLOCK: 2048 threads cannot launch
  spec.solution.block = {"BLOCK"};
  const Space space(spec);
  const Enumeration e = enumerate(space, {&spec.shapes.front()});
  bool saw = false;
  for (const auto& [why, n] : e.rejected)
    if (why.find("block x \"BLOCK\" outside 1..1024") != std::string::npos) saw = n > 0;
  EXPECT_TRUE(saw);
  for (const auto& p : e.valid) EXPECT_EQ(space.params_of(p).at("BLOCK"), 256);
}

}  // namespace
}  // namespace ako::search
