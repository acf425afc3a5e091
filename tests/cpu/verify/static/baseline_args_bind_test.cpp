// Every engine baseline of every shipped task binds: its compiled kernel's parameters (the PTX
// `.entry` list NVRTC made) match the task's argument list in count, size and kind. ako passes
// each argument by value (exec/worker/bound_launch.cpp: a buffer as an 8-byte pointer, i32 and
// f32 as 4 bytes, i64 as 8), and cuLaunchKernel trusts that; an adapter whose signature drifted
// from its task.json (a missing scalar, an int where SGLang's struct wants int64) would read
// garbage on the GPU. One case per distinct kernel is compiled for sm_90a; a baseline whose
// engine files are not fetched (peers/) is skipped and said.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <iostream>
#include <regex>
#include <algorithm>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "jit/compiler.hpp"
#include "task/cases.hpp"
#include "task/spec.hpp"

namespace {

namespace fs = std::filesystem;
using ako::model::Arg;

const fs::path kRoot = AKO_SOURCE_DIR;

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The `.param` declarations of `.entry NAME(...)`, e.g. ".u64", ".f32", ".align 8 .b8 [104]".
std::vector<std::string> entry_params(const std::string& ptx, const std::string& lowered) {
  const auto at = ptx.find(".entry " + lowered + "(");
  if (at == std::string::npos) return {};
  const auto end = ptx.find(')', at);
  static const std::regex param(R"(\.param\s+((?:\.align\s+\d+\s+)?\.\w+))");
  std::vector<std::string> out;
  const std::string list = ptx.substr(at, end - at);
  for (std::sregex_iterator it(list.begin(), list.end(), param), e; it != e; ++it) out.push_back((*it)[1]);
  return out;
}

// Whether the PTX parameter takes the argument as ako marshals it. cuLaunchKernel copies the
// parameter's own size from each argument's slot, so an integer scalar may also fill a narrower
// integer parameter (layernorm's FlashInfer kernel takes a `bool` as an i32 0) when its value
// fits: the slot is little-endian, its low bytes are the value.
bool binds(const Arg& a, const std::string& p) {
  static const std::set<std::string> b32{".u32", ".s32", ".b32"}, b64{".u64", ".s64", ".b64"};
  static const std::map<std::string, std::pair<int64_t, int64_t>> narrow{
      {".u8", {0, 255}}, {".s8", {-128, 127}}, {".b8", {0, 255}}, {".u16", {0, 65535}}, {".s16", {-32768, 32767}},
      {".b16", {0, 65535}}};
  const bool integer = a.kind == Arg::Kind::i32 || a.kind == Arg::Kind::i64;
  if (const auto n = narrow.find(p); integer && n != narrow.end()) return a.i >= n->second.first && a.i <= n->second.second;
  switch (a.kind) {
    case Arg::Kind::buffer:
    case Arg::Kind::null:
    case Arg::Kind::i64: return b64.count(p) > 0;
    case Arg::Kind::i32: return b32.count(p) > 0;
    case Arg::Kind::f32: return p == ".f32";
  }
  return false;
}

std::vector<std::string> task_names() {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(kRoot / "tasks"))
    if (fs::exists(e.path() / "task.json")) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

TEST(BaselineArgsBind, EveryShippedBaselineKernelTakesItsTasksArguments) {
  int checked = 0;
  for (const auto& name : task_names()) {
    const ako::task::TaskSpec spec = ako::task::load_task(kRoot, name);
    // One program per baseline file with every kernel its cases name, as `ako compile` builds it
    // (so the tests' shared kernel cache usually has it); one case per kernel for the arguments.
    struct Program {
      std::string baseline;
      std::vector<std::string> options;
      std::map<std::string, std::vector<Arg>> args;  // name expression -> its case's arguments
    };
    std::map<fs::path, Program> programs;
    std::set<std::string> skipped;
    for (const auto& c : ako::task::expand_cases(spec, {}, {}, false))
      for (const auto& bl : c.baselines) {
        if (bl.kernel) {
          auto& p = programs[bl.kernel->file];
          p.baseline = bl.name;
          p.options = bl.options;
          p.args.emplace(bl.kernel->name_expression, bl.kernel->args);
        } else if (bl.absent_reason.rfind("not installed", 0) == 0 && skipped.insert(bl.name).second) {
          std::cout << "[ skipped  ] " << name << " baseline " << bl.name << ": " << bl.absent_reason << "\n";
        }
      }
    for (const auto& [file, p] : programs) {
      ako::jit::CompileRequest req;
      req.source = file;
      req.display_name = fs::relative(file, kRoot).string();
      for (const auto& [expr, args] : p.args) req.name_expressions.push_back(expr);
      req.arch = "sm_90a";
      req.extra_options = p.options;
      req.include_roots = {kRoot / "input", kRoot / "solution"};
      ako::jit::CompileOptions opt;
      opt.cache_dir = fs::temp_directory_path() / "ako-cli-test-cache";  // the CLI tests' cache
      const ako::jit::CompiledModule m = ako::jit::compile(req, opt);
      const std::string ptx = read(m.ptx);
      for (const auto& [expr, args] : p.args) {
        const auto params = entry_params(ptx, m.lowered.at(expr));
        const std::string what = name + " baseline " + p.baseline + " " + expr;
        ASSERT_EQ(params.size(), args.size()) << what << ": the kernel's parameter count";
        for (size_t i = 0; i < params.size(); ++i)
          EXPECT_TRUE(binds(args[i], params[i])) << what << ": argument " << i << " is passed as kind "
                                                 << static_cast<int>(args[i].kind) << ", the kernel declares "
                                                 << params[i];
        ++checked;
      }
    }
  }
  // Without peers/ every engine baseline is skipped (said above); with them, each one checked.
  if (fs::exists(kRoot / "peers")) {
    EXPECT_GT(checked, 0);
  }
}

// The check itself: a struct passed by value (what SGLang's kernels take) or a size mismatch is
// refused, the ako marshalling's own kinds accepted.
TEST(BaselineArgsBind, ParamParsingSeesStructsAndSizes) {
  const std::string ptx =
      ".visible .entry k(\n\t.param .u64 k_param_0,\n\t.param .f32 k_param_1,\n\t.param .align 8 .b8 k_param_2[104]\n)\n{\n}";
  const auto p = entry_params(ptx, "k");
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[2], ".align 8 .b8");
  Arg buf;
  buf.kind = Arg::Kind::buffer;
  Arg i32;
  i32.kind = Arg::Kind::i32;
  Arg f32;
  f32.kind = Arg::Kind::f32;
  EXPECT_TRUE(binds(buf, p[0]));
  EXPECT_TRUE(binds(f32, p[1]));
  EXPECT_FALSE(binds(i32, p[1]));
  EXPECT_FALSE(binds(buf, p[2]));
  EXPECT_FALSE(binds(i32, ".u64"));
  i32.i = 1;  // a bool parameter filled from an i32 scalar (little-endian low byte)
  EXPECT_TRUE(binds(i32, ".u8"));
  i32.i = 256;
  EXPECT_FALSE(binds(i32, ".u8"));
}

}  // namespace
