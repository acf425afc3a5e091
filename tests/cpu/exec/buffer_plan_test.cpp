// The worker's pure buffer logic (exec/protocol/buffer_plan.hpp, element_walk.hpp): which
// device copies an input set holds, which units are compared, which storages are checked
// outside their views, and the view index math the support kernels mirror.
#include <gtest/gtest.h>

#include <set>

#include "common/error.hpp"
#include "exec/protocol/buffer_plan.hpp"
#include "exec/protocol/element_walk.hpp"

namespace ako::exec {
namespace {

using model::Buffer;
using model::Role;
using model::View;

bool has(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

Buffer storage(const std::string& name, Role role, DType t, uint64_t count) {
  Buffer b;
  b.name = name;
  b.role = role;
  b.dtype = t;
  b.count = count;
  b.extents = {static_cast<int64_t>(count)};
  return b;
}

Buffer view(const std::string& name, Role role, int of, View v) {
  Buffer b;
  b.name = name;
  b.role = role;
  b.count = 1;
  for (int64_t e : v.extents) b.count *= static_cast<uint64_t>(e);
  b.extents = v.extents;
  v.of = of;
  b.view = v;
  return b;
}

// The element set of a walk, by enumeration.
std::set<int64_t> elements(const ElementWalk& w) {
  std::set<int64_t> out;
  for (uint64_t j = 0; j < w.count(); ++j) out.insert(element_at(w, j));
  return out;
}

// q, k, v of 3 tokens x 2 heads x 4 dims inside qkv [3, 3 * 2 * 4].
constexpr int64_t N = 3, H = 2, D = 4;
View qkv_part(int part) { return View{-1, part * H * D, {N, H, D}, {3 * H * D, D, 1}}; }

std::vector<Buffer> qk_norm_buffers() {
  return {storage("x", Role::in, DType::bf16, 100),
          storage("qkv", Role::inout, DType::bf16, N * 3 * H * D),
          view("q", Role::inout, 1, qkv_part(0)),
          view("k", Role::inout, 1, qkv_part(1)),
          view("v", Role::in, 1, qkv_part(2)),
          storage("out", Role::out, DType::fp32, 7)};
}

// --- element walks ---------------------------------------------------------------------------

TEST(ElementWalk, WholeBufferIsOneContiguousDimension) {
  const ElementWalk w = whole_buffer(10);
  EXPECT_EQ(w.count(), 10u);
  EXPECT_EQ(element_at(w, 0), 0);
  EXPECT_EQ(element_at(w, 9), 9);
}

TEST(ElementWalk, MergesContinuedDimensionsAndKeepsTheOrder) {
  const ElementWalk w = walk_of(qkv_part(1), "k");
  EXPECT_EQ(w.extents, (std::vector<int64_t>{N, H * D}));   // heads x dims is one row of 8
  EXPECT_EQ(w.strides, (std::vector<int64_t>{3 * H * D, 1}));
  EXPECT_EQ(w.offset, H * D);
  // Row-major over the declared extents: (token 1, head 1, dim 2) is element 1*8 + 1*4 + 2.
  EXPECT_EQ(element_at(w, 1 * H * D + 1 * D + 2), H * D + 1 * 3 * H * D + 1 * D + 2);
  EXPECT_EQ(gather(std::vector<int>{0, 1, 2, 3, 4, 5}, walk_of(View{-1, 1, {2, 2}, {3, 1}}, "g")),
            (std::vector<int>{1, 2, 4, 5}));
}

TEST(ElementWalk, DropsExtentsOfOneAndKeepsAtLeastOneDimension) {
  const ElementWalk w = walk_of(View{-1, 5, {1, 4, 1}, {100, 2, 7}}, "s");
  EXPECT_EQ(w.extents, std::vector<int64_t>{4});
  EXPECT_EQ(w.strides, std::vector<int64_t>{2});
  const ElementWalk one = walk_of(View{-1, 5, {1, 1}, {9, 9}}, "one");
  EXPECT_EQ(one.count(), 1u);
  EXPECT_EQ(element_at(one, 0), 5);
}

TEST(ElementWalk, RefusesMoreDimensionsThanTheKernelsTake) {
  const View v{-1, 0, {2, 2, 2, 2, 2}, {1000, 300, 70, 20, 3}};
  try {
    walk_of(v, "deep");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_TRUE(has(e.what(), "'deep'")) << e.what();
    EXPECT_TRUE(has(e.what(), "at most 4")) << e.what();
  }
}

TEST(ElementWalk, MembershipMatchesEnumeration) {
  const std::vector<View> views = {qkv_part(0), qkv_part(2), View{-1, 3, {4, 3}, {1, 10}},   // columns first
                                   View{-1, 2, {5}, {3}}, View{-1, 1, {2, 1, 3}, {20, 7, 2}},
                                   View{-1, 6, {2, 3}, {0, 1}}};                                // broadcast rows
  for (const View& v : views) {
    const ElementWalk w = walk_of(v, "v");
    const ElementWalk sorted = membership_order(w, "v");
    const std::set<int64_t> want = elements(w);
    for (int64_t e = -3; e < 100; ++e) EXPECT_EQ(covers(sorted, e), want.count(e) == 1) << "element " << e;
  }
}

TEST(ElementWalk, MembershipRefusesOverlappingOrInterleavedViews) {
  EXPECT_THROW(membership_order(walk_of(View{-1, 0, {3, 2}, {1, 2}}, "x"), "x"), Error);   // overlap
  EXPECT_THROW(membership_order(walk_of(View{-1, 0, {3, 2}, {2, 3}}, "y"), "y"), Error);   // interleave
  EXPECT_NO_THROW(membership_order(walk_of(View{-1, 0, {2, 3}, {3, 1}}, "z"), "z"));      // contiguous
}

// --- the plan ----------------------------------------------------------------------------------

TEST(BufferPlan, ComparesWritableViewsNotTheirStorage) {
  const BufferPlan p = plan_buffers(qk_norm_buffers());
  ASSERT_EQ(p.compared.size(), 3u);
  EXPECT_EQ(p.compared[0].buffer, 1 + 1);   // q
  EXPECT_EQ(p.compared[0].storage, 1);
  EXPECT_EQ(p.compared[1].buffer, 3);       // k
  EXPECT_EQ(p.compared[1].walk.offset, H * D);
  EXPECT_EQ(p.compared[2].buffer, 5);       // out, whole
  EXPECT_EQ(p.compared[2].walk.count(), 7u);
  EXPECT_TRUE(p.poisoned_views.empty());
  ASSERT_EQ(p.outside.size(), 1u);
  EXPECT_EQ(p.outside[0].storage, 1);
  EXPECT_EQ(p.outside[0].view_buffers, (std::vector<int>{2, 3}));
  // v (read only) lies outside the writable views: a write there is caught.
  for (int64_t e = 0; e < N * 3 * H * D; ++e) {
    const bool in_q_or_k = covers(p.outside[0].views[0], e) || covers(p.outside[0].views[1], e);
    EXPECT_EQ(in_q_or_k, (e % (3 * H * D)) < 2 * H * D) << e;
  }
}

TEST(BufferPlan, AnInoutStorageWithoutWritableViewsIsComparedWhole) {
  std::vector<Buffer> b = qk_norm_buffers();
  b[2].present = false;
  b[3].role = Role::in;
  const BufferPlan p = plan_buffers(b);
  ASSERT_EQ(p.compared.size(), 2u);
  EXPECT_EQ(p.compared[0].buffer, 1);
  EXPECT_EQ(p.compared[0].walk.count(), static_cast<uint64_t>(N * 3 * H * D));
  EXPECT_TRUE(p.outside.empty());
}

TEST(BufferPlan, OutViewsArePoisoned) {
  std::vector<Buffer> b = qk_norm_buffers();
  b[3].role = Role::out;
  const BufferPlan p = plan_buffers(b);
  ASSERT_EQ(p.poisoned_views.size(), 1u);
  EXPECT_EQ(p.poisoned_views[0].buffer, 3);
  EXPECT_EQ(p.outside[0].view_buffers, (std::vector<int>{2, 3}));
}

TEST(BufferPlan, RefusesWhatTheWorkerCannotCheck) {
  std::vector<Buffer> b = qk_norm_buffers();
  b[1].role = Role::in;   // q and k written into a read-only storage
  EXPECT_THROW(plan_buffers(b), Error);
  b = qk_norm_buffers();
  b[4].view->offset = N * 3 * H * D;   // v past the end of qkv
  EXPECT_THROW(plan_buffers(b), Error);
  b = qk_norm_buffers();
  for (int i = 0; i < 8; ++i) b.push_back(view("w" + std::to_string(i), Role::inout, 1, View{-1, i, {1}, {1}}));
  EXPECT_THROW(plan_buffers(b), Error);   // q, k and 8 more
}

TEST(BufferPlan, ArenaHoldsSharedInputsAndPerSideOutputsAndPristineInouts) {
  using Copy = ArenaEntry::Copy;
  std::vector<Buffer> b = qk_norm_buffers();
  const auto e = arena_entries(b, true);
  ASSERT_EQ(e.size(), 6u);   // x; qkv pristine, reference, solution; out reference, solution
  EXPECT_EQ(e[0].buffer, 0);
  EXPECT_EQ(e[0].copy, Copy::shared);
  EXPECT_EQ(e[0].bytes, 200u);
  EXPECT_EQ(e[1].copy, Copy::pristine);
  EXPECT_EQ(e[2].copy, Copy::reference);
  EXPECT_EQ(e[3].copy, Copy::solution);
  EXPECT_EQ(e[3].bytes, static_cast<uint64_t>(N * 3 * H * D * 2));
  EXPECT_EQ(e[4].buffer, 5);
  EXPECT_EQ(e[5].copy, Copy::solution);
  EXPECT_EQ(e[5].bytes, 28u);
  EXPECT_EQ(arena_entries(b, false).size(), 4u);   // a reference check: no solution copies
  b[0].present = false;
  EXPECT_EQ(arena_entries(b, false).size(), 3u);
}

TEST(BufferPlan, OutsideWriteReasonNamesTheStorageAndTheViews) {
  const std::string r = describe_outside_write("the solution", "qkv", 3, 10, 4107, {"q", "k"});
  EXPECT_EQ(r, "the solution wrote outside its views into 'qkv' (3 elements changed, first at element 10, last at "
               "element 4107; its views: 'q', 'k')");
  EXPECT_TRUE(has(describe_outside_write("the solution", "qkv", 1, 8, 8, {"q"}), "(1 element changed, at element 8;"));
}

TEST(BufferPlan, IntegerRangesMustFitTheirType) {
  EXPECT_TRUE(range_fits(DType::i32, 0, 4096));
  EXPECT_TRUE(range_fits(DType::i32, -2147483648ll, 2147483648ll));
  EXPECT_FALSE(range_fits(DType::i32, 0, 2147483649ll));
  EXPECT_TRUE(range_fits(DType::i64, -(1ll << 40), 1ll << 40));
  EXPECT_FALSE(range_fits(DType::i64, 5, 5));
  EXPECT_FALSE(range_fits(DType::fp32, 0, 1));
}

}  // namespace
}  // namespace ako::exec
