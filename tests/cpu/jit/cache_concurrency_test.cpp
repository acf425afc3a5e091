// Several processes sharing one cache directory, as two `ako tune` on two GPUs or two CI jobs
// do: each compiles an overlapping set of programs at the same moment (the same keys written
// by several writers at once), a pruner scans and locks the cache meanwhile, and every process
// checks what it got. Afterwards every entry is whole (its cubin and PTX match the hashes its
// JSON recorded), every program any process compiled has its entry, and no temporary file is
// left behind.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <optional>
#include <set>
#include <thread>

#include "jit/build.hpp"
#include "jit/cache_lock.hpp"
#include "jit/cache_usage.hpp"
#include "jit/disk_cache.hpp"
#include "jit_test_support.hpp"

namespace ako::jit {
namespace {

using namespace ako::jit::testing;

CompileRequest variant(int block, const char* type) {
  auto r = scale_request();
  r.name_expressions = {std::string("scale_kernel<") + type + ", " + std::to_string(block) + ">"};
  return r;
}

// Process p's programs: six of eight, each shared with other processes.
std::vector<CompileRequest> programs_of(int p) {
  std::vector<CompileRequest> all;
  for (int block : {32, 64, 128, 256})
    for (const char* type : {"__half", "__nv_bfloat16"}) all.push_back(variant(block, type));
  std::vector<CompileRequest> mine;
  for (size_t i = 0; i < all.size(); ++i)
    if ((i + static_cast<size_t>(p)) % 4 != 0) mine.push_back(all[i]);
  return mine;
}

TEST(CacheConcurrency, ProcessesSharingOneCacheLoseAndTearNothing) {
  TempDir tmp;
  const auto opt = cached_in(tmp.path());
  constexpr int kProcesses = 4;
  int start[2];
  ASSERT_EQ(pipe(start), 0);
  std::vector<pid_t> pids;
  for (int p = 0; p <= kProcesses; ++p) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid != 0) {
      pids.push_back(pid);
      continue;
    }
    close(start[1]);
    char c;
    if (read(start[0], &c, 1) != 0) _exit(9);  // all start together, when the parent closes the pipe
    if (p == kProcesses) {
      // The pruner: a cap every entry fits under, so it scans and takes the lock but removes nothing.
      for (int i = 0; i < 20; ++i) prune_cache(opt.cache_dir, 1ull << 40);
      _exit(0);
    }
    int bad = 0;
    for (int round = 0; round < 2; ++round) {
      auto o = opt;
      o.jobs = 2;
      const auto b = compile_all(programs_of(p), o);
      for (size_t i = 0; i < b.modules.size(); ++i) {
        if (!b.errors[i].empty() || !b.notes.empty()) ++bad;
        else if (!has_elf_magic(b.modules[i].cubin) || check_entry(opt.cache_dir, b.modules[i].key) != "") ++bad;
        else if (round == 1 && !b.modules[i].cache_hit) ++bad;  // the second round finds everything
      }
    }
    fs::remove_all(scratch_dir());
    _exit(bad ? 1 : 0);
  }
  close(start[0]);
  close(start[1]);
  for (const pid_t pid : pids) {
    int st = 0;
    waitpid(pid, &st, 0);
    EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << "process " << pid << " saw a missing or torn entry";
  }

  std::set<std::string> keys;
  for (int p = 0; p < kProcesses; ++p)
    for (const auto& r : programs_of(p)) keys.insert(cache_key(r, opt));
  const CacheUsage u = scan_cache(opt.cache_dir);
  std::set<std::string> found;
  for (const auto& e : u.entries) {
    found.insert(e.key);
    EXPECT_EQ(check_entry(opt.cache_dir, e.key), "") << e.key;
  }
  EXPECT_EQ(found, keys) << "an entry is missing or extra";
  EXPECT_EQ(u.stray_files, 0u) << "a temporary or orphaned file was left";
}

// Threads of one process compiling the same programs at once (`ako tune --gpus` prepares its
// lanes' shares on threads of its own): every thread gets every module, whole.
TEST(CacheConcurrency, ThreadsOfOneProcessCompilingTheSameProgramsAllGetThem) {
  TempDir tmp;
  auto opt = cached_in(tmp.path());
  opt.jobs = 1;
  const std::vector<CompileRequest> programs = programs_of(0);
  constexpr int kThreads = 3;
  std::vector<BatchResult> got(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) threads.emplace_back([&, t] { got[t] = compile_all(programs, opt); });
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t)
    for (size_t i = 0; i < programs.size(); ++i) {
      EXPECT_EQ(got[t].errors[i], "") << "thread " << t << ", program " << i;
      EXPECT_TRUE(has_elf_magic(got[t].modules[i].cubin)) << "thread " << t << ", program " << i;
      EXPECT_EQ(check_entry(opt.cache_dir, got[t].modules[i].key), "") << "thread " << t << ", program " << i;
    }
}

// The lock protocol that keeps an entry's three files from two writers apart (a CI run's two
// `ako compile` at once once read back a cubin of one writer with the JSON of the other): a
// load waits while a writer holds the lock, and so does a store.
TEST(CacheConcurrency, LoadsAndStoresWaitForAWriterHoldingTheLock) {
  TempDir tmp;
  const auto opt = cached_in(tmp.path());
  const auto first = compile_all({scale_request()}, opt);
  ASSERT_EQ(first.errors[0], "");
  const std::string key = first.modules[0].key;
  const std::string cubin = read_text(first.modules[0].cubin), ptx = read_text(first.modules[0].ptx);
  for (const bool store : {false, true}) {
    std::optional<CacheLock> writer(std::in_place, opt.cache_dir, CacheLock::Mode::exclusive);
    ASSERT_TRUE(writer->held());
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      // Drop the inherited descriptors, the parent's lock among them (as a compile child does:
      // one holding the lock would make this process wait on itself).
      close_range(3, ~0U, 0);
      if (store) {
        CompiledModule m = first.modules[0];
        store_entry(opt.cache_dir, key, cubin, ptx, BuildRecord{}, m);
      }
      _exit(load_entry(opt.cache_dir, key).module ? 0 : 1);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    int st = 0;
    EXPECT_EQ(waitpid(pid, &st, WNOHANG), 0) << (store ? "a store" : "a load") << " went on while a writer held the lock";
    writer.reset();
    ASSERT_EQ(waitpid(pid, &st, 0), pid);
    EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << (store ? "store" : "load") << ": the entry did not load";
  }
}

}  // namespace
}  // namespace ako::jit
