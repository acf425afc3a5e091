// compile_all(): forked compile workers, request order, errors, dedupe, cache reuse.
#include <gtest/gtest.h>
#include <unistd.h>

#include <set>

#include "jit/nvrtc_program.hpp"
#include "jit_test_support.hpp"

namespace ako::jit {
namespace {

using namespace ako::jit::testing;

CompileRequest scale_variant(int block) {
  auto r = scale_request();
  r.name_expressions = {"scale_kernel<__nv_bfloat16, " + std::to_string(block) + ">"};
  return r;
}

TEST(CompileAll, KeepsRequestOrderAndReportsTheBrokenOne) {
  TempDir tmp;
  const auto batch = compile_all({scale_request(), broken_request(), local_array_request()},
                                 cached_in(tmp.path()));
  ASSERT_EQ(batch.modules.size(), 3u);
  ASSERT_EQ(batch.errors.size(), 3u);
  EXPECT_EQ(batch.errors[0], "");
  EXPECT_NE(batch.errors[1].find("kernels/broken.cuh(5): error"), std::string::npos) << batch.errors[1];
  EXPECT_EQ(batch.errors[2], "");
  EXPECT_TRUE(has_elf_magic(batch.modules[0].cubin));
  EXPECT_TRUE(batch.modules[0].lowered.contains("scale_kernel<__half, 128>"));
  EXPECT_TRUE(batch.modules[1].cubin.empty());
  EXPECT_TRUE(batch.modules[2].resources.contains("local_array_kernel"));
}

TEST(CompileAll, ChildrenCompileConcurrentlyAndTheParentNever) {
  TempDir tmp;
  auto opt = cached_in(tmp.path());
  opt.jobs = 3;
  const long calls = detail::nvrtc_compile_calls();
  const auto batch = compile_all({scale_variant(64), scale_variant(128), scale_variant(256)}, opt);
  EXPECT_EQ(detail::nvrtc_compile_calls(), calls);  // no NVRTC call in this process

  std::set<long long> pids;
  long long latest_start = 0, earliest_finish = LLONG_MAX;
  for (size_t i = 0; i < 3; ++i) {
    ASSERT_EQ(batch.errors[i], "") << i;
    EXPECT_FALSE(batch.modules[i].cache_hit);
    EXPECT_GT(batch.modules[i].compile_ms, 0);
    const auto entry = entry_json(opt, batch.modules[i].key);
    const auto pid = entry.at("build_pid").get<long long>();
    EXPECT_NE(pid, static_cast<long long>(getpid()));
    pids.insert(pid);
    latest_start = std::max(latest_start, entry.at("build_started_unix_ms").get<long long>());
    earliest_finish = std::min(earliest_finish, entry.at("build_finished_unix_ms").get<long long>());
  }
  EXPECT_EQ(pids.size(), 3u);                // one child per program
  EXPECT_LT(latest_start, earliest_finish);  // all three were compiling at the same moment

  const auto again = compile_all({scale_variant(64), scale_variant(128), scale_variant(256)}, opt);
  EXPECT_EQ(detail::nvrtc_compile_calls(), calls);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_TRUE(again.modules[i].cache_hit);
    EXPECT_EQ(again.modules[i].cubin, batch.modules[i].cubin);
  }
}

TEST(CompileAll, OneJobAtATimeStillCompilesEverything) {
  TempDir tmp;
  auto opt = cached_in(tmp.path());
  opt.jobs = 1;
  const auto batch = compile_all({scale_variant(64), local_array_request()}, opt);
  const auto a = entry_json(opt, batch.modules[0].key);
  const auto b = entry_json(opt, batch.modules[1].key);
  EXPECT_EQ(batch.errors, (std::vector<std::string>{"", ""}));
  // One at a time: the second started after the first finished.
  EXPECT_GE(b.at("build_started_unix_ms").get<long long>(), a.at("build_finished_unix_ms").get<long long>());
}

TEST(CompileAll, IdenticalRequestsCompileOnce) {
  TempDir tmp;
  const auto opt = cached_in(tmp.path());
  const auto batch = compile_all({local_array_request(), local_array_request()}, opt);
  EXPECT_EQ(batch.errors, (std::vector<std::string>{"", ""}));
  EXPECT_EQ(batch.modules[0].cubin, batch.modules[1].cubin);
  size_t entries = 0;
  for (const auto& f : fs::recursive_directory_iterator(opt.cache_dir))
    entries += f.path().extension() == ".json";
  EXPECT_EQ(entries, 1u);
}

TEST(CompileAll, WithoutCacheChildrenUseAScratchDirectory) {
  TempDir tmp;
  auto opt = cached_in(tmp.path());
  opt.use_cache = false;
  const long calls = detail::nvrtc_compile_calls();
  const auto batch = compile_all({scale_variant(64), local_array_request()}, opt);
  EXPECT_EQ(detail::nvrtc_compile_calls(), calls);
  EXPECT_EQ(batch.errors, (std::vector<std::string>{"", ""}));
  for (const auto& m : batch.modules) {
    EXPECT_FALSE(m.cache_hit);
    EXPECT_TRUE(has_elf_magic(m.cubin));
  }
  EXPECT_FALSE(fs::exists(opt.cache_dir));
}

TEST(CompileAll, AnInvalidRequestIsAnErrorOfItsOwn) {
  TempDir tmp;
  auto virtual_arch = local_array_request();
  virtual_arch.arch = "compute_90";
  auto missing = local_array_request();
  missing.source = tmp.path() / "absent.cuh";
  const auto batch = compile_all({virtual_arch, local_array_request(), missing}, cached_in(tmp.path()));
  EXPECT_NE(batch.errors[0].find("virtual"), std::string::npos) << batch.errors[0];
  EXPECT_EQ(batch.errors[1], "");
  EXPECT_NE(batch.errors[2].find("absent.cuh"), std::string::npos) << batch.errors[2];
}

}  // namespace
}  // namespace ako::jit
