// compile_all()'s limits, against real compile bombs through NVRTC (tests/cpu/jit/kernels/
// bombs/): each is killed at a small time limit or fails at a small memory cap, is reported as
// compile_timeout / compile_out_of_memory naming its file, and the programs beside it in the
// batch still compile; no compile process outlives the batch, or the process that forked it.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "jit_test_support.hpp"

namespace ako::jit {
namespace {

using namespace ako::jit::testing;
using Clock = std::chrono::steady_clock;

fs::path bomb_dir() { return kernel_dir() / "bombs"; }

CompileRequest bomb(const std::string& file, std::vector<std::string> names = {}) {
  CompileRequest r;
  r.source = bomb_dir() / file;
  r.display_name = "bombs/" + file;
  r.name_expressions = std::move(names);
  return r;
}

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

// The pids whose parent is `parent` (from /proc).
std::vector<pid_t> children_of(pid_t parent) {
  std::vector<pid_t> out;
  for (const auto& e : fs::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(e.path() / "stat");
    std::string line;
    std::getline(stat, line);
    const auto close = line.rfind(')');
    if (close == std::string::npos) continue;
    char state = 0;
    long ppid = 0;
    if (std::sscanf(line.c_str() + close + 1, " %c %ld", &state, &ppid) == 2 && ppid == parent)
      out.push_back(static_cast<pid_t>(std::stol(name)));
  }
  return out;
}

// Alive: present in /proc and not a zombie.
bool alive(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return false;
  const auto close = line.rfind(')');
  return close != std::string::npos && close + 2 < line.size() && line[close + 2] != 'Z';
}

TEST(CompileLimits, EveryBombIsKilledAtTheTimeLimitAndTheRestCompiles) {
  TempDir tmp;
  auto opt = cached_in(tmp.path());
  // One honest program from the cache (compiled first, with a limit it cannot miss: a loaded
  // CI machine compiles slowly) and one small one compiled beside the first bomb only.
  ASSERT_EQ(compile_all({scale_request()}, opt).errors[0], "");
  opt.timeout_s = 3;
  opt.jobs = 2;
  const auto start = Clock::now();
  const auto batch = compile_all({local_array_request(), bomb("template_blowup.cuh", {"template_bomb_kernel<40>"}),
                                  bomb("self_include.cuh"), bomb("constexpr_loop.cuh", {"constexpr_bomb_kernel<4095>"}),
                                  bomb("unrolled_body.cuh"), scale_request()},
                                 opt);
  const double wall = std::chrono::duration<double>(Clock::now() - start).count();
  const char* files[] = {"template_blowup.cuh", "self_include.cuh", "constexpr_loop.cuh", "unrolled_body.cuh"};
  for (size_t i = 0; i < 4; ++i) {
    const std::string& e = batch.errors[i + 1];
    EXPECT_TRUE(starts_with(e, std::string("compile_timeout: bombs/") + files[i] + ": NVRTC was still compiling after 3 s"))
        << e;
    EXPECT_NE(e.find("in two processes one after the other"), std::string::npos) << e;  // retried once
    EXPECT_EQ(compile_fault(e), "compile_timeout");
    EXPECT_TRUE(batch.modules[i + 1].cubin.empty());
  }
  EXPECT_EQ(batch.errors[0], "");
  EXPECT_FALSE(batch.modules[0].cache_hit);
  EXPECT_TRUE(has_elf_magic(batch.modules[0].cubin));
  EXPECT_EQ(batch.errors[5], "");
  EXPECT_TRUE(batch.modules[5].cache_hit);
  EXPECT_LT(wall, 30) << "the bombs were not stopped at their limit";
  EXPECT_TRUE(children_of(getpid()).empty()) << "a compile process outlived the batch";
}

// A compile child that hangs (as one forked while another thread held a lock it then needs
// would) is killed at the limit and the program compiled again in a fresh process.
TEST(CompileLimits, AChildStuckOnceIsRetriedInAFreshProcess) {
  TempDir tmp;
  auto opt = cached_in(tmp.path());
  opt.timeout_s = 3;
  const fs::path marker = tmp.path() / "hung-once";
  setenv("AKO_TEST_COMPILE_HANG_ONCE", marker.c_str(), 1);
  const auto start = Clock::now();
  const auto batch = compile_all({scale_request()}, opt);
  const double wall = std::chrono::duration<double>(Clock::now() - start).count();
  unsetenv("AKO_TEST_COMPILE_HANG_ONCE");
  EXPECT_TRUE(fs::exists(marker)) << "the first child did not take the hook";
  EXPECT_EQ(batch.errors[0], "");
  EXPECT_TRUE(has_elf_magic(batch.modules[0].cubin));
  EXPECT_GE(wall, 3.0) << "the first child was not waited for";
  EXPECT_TRUE(children_of(getpid()).empty()) << "the stuck compile process outlived the batch";
}

TEST(CompileLimits, TheMemoryCapStopsATemplateBombAndNotAnHonestProgram) {
  TempDir tmp;
  auto opt = cached_in(tmp.path());
  opt.memory_bytes = 256ull << 20;
  opt.timeout_s = 120;
  const auto start = Clock::now();
  const auto batch = compile_all({bomb("template_blowup.cuh", {"template_bomb_kernel<40>"}), scale_request()}, opt);
  const std::string& e = batch.errors[0];
  EXPECT_TRUE(starts_with(e, "compile_out_of_memory: bombs/template_blowup.cuh: NVRTC ran out of memory under the "
                             "compile memory cap of 256 MiB (--compile-memory)"))
      << e;
  EXPECT_NE(e.find("out of memory"), std::string::npos) << e;
  EXPECT_EQ(compile_fault(e), "compile_out_of_memory");
  EXPECT_EQ(batch.errors[1], "");
  EXPECT_TRUE(has_elf_magic(batch.modules[1].cubin));
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - start).count(), 60);
}

// NVRTC catches a file that includes itself directly: a plain compile error, at once.
TEST(CompileLimits, ADirectSelfIncludeIsNvrtcsOwnError) {
  TempDir tmp;
  write_text(tmp.path() / "again.cuh", "#include \"again.cuh\"\n__global__ void k() {}\n");
  CompileRequest r;
  r.source = tmp.path() / "again.cuh";
  r.display_name = (tmp.path() / "again.cuh").string();
  auto opt = cached_in(tmp.path());
  opt.timeout_s = 30;
  const auto batch = compile_all({r}, opt);
  EXPECT_EQ(compile_fault(batch.errors[0]), "compile_error");
  EXPECT_NE(batch.errors[0].find("includes itself"), std::string::npos) << batch.errors[0];
}

// A compile process dies with the process that forked it, even one killed by SIGKILL (which
// runs no clean-up): PR_SET_PDEATHSIG.
TEST(CompileLimits, ACompileProcessDiesWithItsParent) {
  TempDir tmp;
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  const pid_t parent = fork();
  ASSERT_GE(parent, 0);
  if (parent == 0) {
    close(ready[0]);
    auto opt = cached_in(tmp.path());
    opt.timeout_s = 0;  // no limit: only the parent's death may end it
    opt.jobs = 1;
    if (write(ready[1], "x", 1) != 1) _exit(3);
    compile_all({bomb("constexpr_loop.cuh", {"constexpr_bomb_kernel<4095>"})}, opt);
    _exit(0);
  }
  close(ready[1]);
  char c;
  ASSERT_EQ(read(ready[0], &c, 1), 1);
  close(ready[0]);
  std::vector<pid_t> compilers;
  for (int i = 0; i < 200 && compilers.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    compilers = children_of(parent);
  }
  ASSERT_EQ(compilers.size(), 1u) << "no compile process appeared";
  kill(parent, SIGKILL);
  waitpid(parent, nullptr, 0);
  bool gone = false;
  for (int i = 0; i < 250 && !gone; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    gone = !alive(compilers[0]);
  }
  if (!gone) kill(compilers[0], SIGKILL);
  EXPECT_TRUE(gone) << "compile process " << compilers[0] << " outlived its parent";
}

}  // namespace
}  // namespace ako::jit
