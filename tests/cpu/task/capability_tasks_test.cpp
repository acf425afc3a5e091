// The format-v2 capability tasks (tests/tasks/) on the CPU: each loads, expands into the cases,
// buffers, views, dtypes, labels and roofline bytes the format promises, and compiles for
// sm_90a through `ako compile`; malformed uses of each new field are refused at load time
// naming the field. Their GPU side: tests/gpu/capabilities_test.cpp.
#include <gtest/gtest.h>

#include "../ako_cli_support.hpp"
#include "common/error.hpp"
#include "task/cases.hpp"
#include "task/spec.hpp"
#include "task_fixture.hpp"

namespace ako::task {
namespace {

using nlohmann::json;
using testing::find_case;

const std::filesystem::path kRoot = std::filesystem::path(AKO_SOURCE_DIR) / "tests/tasks";

std::vector<Case> cases_of(const TaskSpec& spec, bool checks = false) { return expand_cases(spec, {}, {}, checks); }

const model::Buffer& buffer(const Case& c, const std::string& name) {
  for (const auto& b : c.buffers)
    if (b.name == name) return b;
  throw std::runtime_error("no buffer " + name);
}

TEST(CapabilityTasks, InPlaceIsReadAndWrittenAndCheckedByItsOracle) {
  const TaskSpec spec = load_task(kRoot, "inplace_scale");
  const auto cases = cases_of(spec, true);
  const Case& c = find_case(cases, "wide bf16");
  EXPECT_EQ(buffer(c, "x").role, model::Role::inout);
  EXPECT_DOUBLE_EQ(c.bytes, 512.0 * 3072 * 2 * 2 + 3072 * 2);  // x read and written, w read
  const Case& check = find_case(cases, "check-3x100 fp16");
  EXPECT_EQ(check.kind, "reference_check");
  EXPECT_FALSE(check.solution);
  ASSERT_TRUE(check.oracle);
  EXPECT_EQ(check.oracle->name_expression, "scale_oracle");
  EXPECT_EQ(check.oracle->args.size(), 4u);
}

TEST(CapabilityTasks, IntegerBuffersHaveRangesExactComparisonAndTheirCTypes) {
  const TaskSpec spec = load_task(kRoot, "gather_rows");
  const auto cases = cases_of(spec, true);
  const Case& c = find_case(cases, "rope-cache bf16");
  const model::Buffer& idx = buffer(c, "idx");
  EXPECT_EQ(idx.dtype, DType::i32);
  EXPECT_EQ(idx.init.dist, "range");
  EXPECT_EQ(idx.init.low, 0);
  EXPECT_EQ(idx.init.high, 8192);
  const model::Buffer& row_of = buffer(c, "row_of");
  EXPECT_EQ(row_of.dtype, DType::i64);
  EXPECT_EQ(row_of.tolerance.atol, 0.0);
  EXPECT_EQ(row_of.tolerance.rtol, 0.0);
  EXPECT_EQ(c.reference.name_expression, "gather_reference<__nv_bfloat16, int, long long>");
  EXPECT_DOUBLE_EQ(c.bytes, 8192.0 * 128 * 2 + 4096 * 4 + 4096.0 * 128 * 2 + 4096 * 8);
  // In the oracle floating types become double, integers keep theirs.
  EXPECT_EQ(find_case(cases, "check-5x7x24 bf16").oracle->name_expression, "gather_reference<double, int, long long>");
}

TEST(CapabilityTasks, TypedAxesChooseLayoutsDtypesAndLabels) {
  const TaskSpec spec = load_task(kRoot, "modulate");
  ASSERT_EQ(spec.axes.size(), 2u);
  EXPECT_EQ(spec.axes[0].kind, model::AxisKind::string);
  const auto cases = cases_of(spec);
  ASSERT_EQ(cases.size(), 2u * 3 * 2);  // dtypes x layouts x mod_dtypes
  EXPECT_EQ(cases[0].label(), "wan-480p bf16 layout=bc mod_dtype=same");
  EXPECT_EQ(cases[1].label(), "wan-480p bf16 layout=bc mod_dtype=fp32");
  const Case& frames = find_case(cases, "wan-480p bf16 layout=bf1c mod_dtype=fp32");
  const model::Buffer& scale = buffer(frames, "scale");
  EXPECT_EQ(scale.extents, (std::vector<int64_t>{1, 21, 1, 1536}));
  EXPECT_EQ(scale.dtype, DType::fp32);
  EXPECT_EQ(frames.solution->name_expression, "modulate_kernel<__nv_bfloat16, float, Layout::bf1c, 256>");
  // Broadcast inputs count once at their own size: x and y, plus scale and shift [1, 21, 1, C] fp32.
  EXPECT_DOUBLE_EQ(frames.bytes, 2 * 32760.0 * 1536 * 2 + 2 * 21.0 * 1536 * 4);
  const Case& same = find_case(cases, "wan-480p fp16 layout=blc mod_dtype=same");
  EXPECT_EQ(buffer(same, "shift").dtype, DType::fp16);
  EXPECT_EQ(buffer(same, "shift").count, 32760u * 1536u);
}

TEST(CapabilityTasks, ViewsLieInTheirStorageAndCountTheirOwnBytes) {
  const TaskSpec spec = load_task(kRoot, "qk_view");
  const auto cases = cases_of(spec);
  ASSERT_EQ(cases.size(), 2u);  // head_dim 64, 128
  const Case& c = find_case(cases, "flux1 bf16 head_dim=128");
  const model::Buffer& k = buffer(c, "k");
  ASSERT_TRUE(k.view);
  EXPECT_EQ(k.view->of, 0);
  EXPECT_EQ(k.view->offset, 24 * 128);
  EXPECT_EQ(k.view->strides, (std::vector<int64_t>{3 * 24 * 128, 128, 1}));
  EXPECT_EQ(k.dtype, DType::bf16);
  EXPECT_EQ(k.count, 4608u * 24u * 128u);
  EXPECT_FALSE(buffer(c, "qkv").view);
  // q and k read and written (v untouched, so not counted), both weights read.
  EXPECT_DOUBLE_EQ(c.bytes, 2 * (2 * 4608.0 * 24 * 128 * 2) + 2 * 128 * 2);
  EXPECT_EQ(c.solution->name_expression, "qknorm_kernel<__nv_bfloat16, 128, 4>");
}

TEST(CapabilityTasks, EachOutputHasItsOwnTolerance) {
  const TaskSpec spec = load_task(kRoot, "two_outputs");
  const Case& c = cases_of(spec).front();
  EXPECT_DOUBLE_EQ(buffer(c, "residual_out").tolerance.atol, 1e-2);
  EXPECT_DOUBLE_EQ(buffer(c, "y").tolerance.atol, 5e-2);
  EXPECT_EQ(buffer(c, "gate").dtype, DType::fp32);
}

TEST(CapabilityTasks, EveryTaskCompilesForSm90a) {
  for (const char* task : {"inplace_scale", "gather_rows", "modulate", "qk_view", "two_outputs", "wrong_reference",
                           "oob_reference", "faulting_reference", "faulting_baseline", "oob_baseline", "faulting_oracle"}) {
    const auto r = testsupport::run_ako(std::string("compile task ") + task + " --root '" + kRoot.string() +
                                            "' --arch sm_90a",
                                        kRoot);
    EXPECT_EQ(r.status, 0) << task << "\n" << r.out;
    EXPECT_TRUE(testsupport::has(r.out, "COMPILED: yes")) << task << "\n" << r.out;
  }
}

// A malformed use of a v2 field: (task, edit, field, what the message says).
struct Malformed {
  const char* name;
  const char* task;
  void (*edit)(json&);
  const char* field;
  const char* expected;
};
void PrintTo(const Malformed& m, std::ostream* os) { *os << m.name; }

class MalformedV2 : public ::testing::TestWithParam<Malformed> {};

TEST_P(MalformedV2, IsRefusedAtLoadNamingTheField) {
  const Malformed& m = GetParam();
  json doc = testing::read_json(kRoot / "tasks" / m.task / "task.json");
  m.edit(doc);
  try {
    parse_task(doc, kRoot / "tasks" / m.task / "task.json", kRoot);
    FAIL() << "parsed without error; expected " << m.expected;
  } catch (const ako::SpecError& e) {
    EXPECT_EQ(e.field, m.field) << e.what();
    EXPECT_NE(std::string(e.what()).find(m.expected), std::string::npos) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(
    Fields, MalformedV2,
    ::testing::Values(
        Malformed{"view of a later buffer", "qk_view", [](json& d) { d["buffers"][1]["view"]["of"] = "k"; },
                  "buffers[1].view.of", "declared before this one that is not itself a view"},
        Malformed{"view with a stride too few", "qk_view", [](json& d) { d["buffers"][1]["view"]["strides"].erase(2); },
                  "buffers[1].view.strides", "one stride (in elements) per shape extent, 3, got 2"},
        Malformed{"writable view of an input", "qk_view", [](json& d) { d["buffers"][0]["role"] = "in"; }, "buffers",
                  "must have role inout"},
        Malformed{"a view with its own dtype", "qk_view", [](json& d) { d["buffers"][2]["dtype"] = "fp32"; },
                  "buffers[2].dtype", "a view has its storage's dtype"},
        Malformed{"axis value typo", "modulate",
                  [](json& d) { d["buffers"][1]["shape"][1] = "layout == 'bfc1' ? F : 1"; }, "buffers[1].shape[1]",
                  "compares with 'bfc1', which is no axis's value"},
        Malformed{"dtype axis with a non-dtype value", "modulate", [](json& d) { d["axes"][1]["values"][1] = "wide"; },
                  "buffers[1].dtype", "its values must be bf16, fp16, fp32 or same"},
        Malformed{"axis mixing strings and integers", "modulate", [](json& d) { d["axes"][0]["values"][1] = 3; },
                  "axes[0].values[1]", "expected a string like the axis's first value"},
        Malformed{"integer input without a range", "gather_rows", [](json& d) { d["buffers"][1].erase("init"); },
                  "buffers[1].init", "required for an integer buffer"},
        Malformed{"normal init on an integer", "gather_rows", [](json& d) { d["buffers"][1]["init"] = {{"dist", "normal"}}; },
                  "buffers[1].init.dist", "expected \"range\" for an integer buffer"},
        Malformed{"tolerance on an input", "two_outputs", [](json& d) { d["buffers"][0]["tolerance"] = json::object(); },
                  "buffers[0].tolerance", "role out or inout"},
        Malformed{"init on an output", "two_outputs", [](json& d) { d["buffers"][4]["init"] = {{"dist", "normal"}}; },
                  "buffers[4].init", "leave init out"}),
    [](const auto& info) {
      std::string n = info.param.name;
      for (char& ch : n)
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
      return n;
    });

TEST(CapabilityTasks, AViewOutsideItsStorageIsASpecErrorForTheCase) {
  json doc = testing::read_json(kRoot / "tasks/qk_view/task.json");
  doc["buffers"][2]["view"]["offset"] = "2 * H * head_dim + 1";  // k would run past qkv's last row
  const TaskSpec spec = parse_task(doc, kRoot / "tasks/qk_view/task.json", kRoot);
  try {
    cases_of(spec);
    FAIL() << "expanded without error";
  } catch (const ako::SpecError& e) {
    EXPECT_EQ(e.field, "buffers[2].view");
    EXPECT_NE(std::string(e.what()).find("of \"qkv\", which has"), std::string::npos) << e.what();
  }
}


// A view the worker could not check (here q's strides transposed: not row-major-like) is
// refused before anything is built, as a spec error naming the case, on every command.
TEST(CapabilityTasks, AViewTheWorkerCannotWalkIsRefusedBeforeTheBuild) {
  namespace fs = std::filesystem;
  const fs::path ws = fs::temp_directory_path() / ("ako-cap-walk-" + std::to_string(::getpid()));
  fs::remove_all(ws);
  fs::copy(kRoot, ws, fs::copy_options::recursive);
  json doc = testing::read_json(ws / "tasks/qk_view/task.json");
  doc["buffers"][1]["view"]["strides"] = {"head_dim", "3 * H * head_dim", 1};
  testing::write_file(ws / "tasks/qk_view/task.json", doc.dump(2));
  const auto r = testsupport::run_ako("compile task qk_view --root '" + ws.string() + "' --arch sm_90a", ws);
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(testsupport::has(r.out, "field 'buffers': case \"flux1 bf16 head_dim=64\"")) << r.out;
  EXPECT_FALSE(testsupport::has(r.out, "COMPILED")) << r.out;
  fs::remove_all(ws);
}

}  // namespace
}  // namespace ako::task
