// The reliability of the build as `ako compile` and `ako cache` show it to a user: a compile
// bomb killed at --compile-timeout while the rest of the build goes on, an #include of
// /etc/passwd refused without a byte of it printed, a cache that cannot be written bypassed
// with a note, and the cache's stats, verification and pruning. Each test has a workspace
// (the bomb fixture) and a kernel cache of its own.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "cpu/ako_cli_support.hpp"

namespace fs = std::filesystem;

namespace {

using ako::testsupport::has;
using ako::testsupport::Ran;

// A copy of tests/cpu/pipeline/fixtures/bomb_tune under a fresh temporary folder.
struct Workspace {
  fs::path dir;
  Workspace() {
    std::string pattern = (fs::temp_directory_path() / "ako-reliability-XXXXXX").string();
    if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
    dir = pattern;
    fs::copy(fs::path(AKO_TEST_DIR) / "cpu/pipeline/fixtures/bomb_tune", dir / "ws", fs::copy_options::recursive);
  }
  ~Workspace() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  fs::path ws() const { return dir / "ws"; }
  fs::path cache() const { return dir / "cache"; }
  Ran ako(const std::string& args, const fs::path& cache_dir) const {
    return ako::testsupport::run_shell("cd '" + ws().string() + "' && '" AKO_BINARY_DIR "/ako' " + args + " --cache-dir '" +
                                       cache_dir.string() + "'");
  }
  Ran ako(const std::string& args) const { return ako(args, cache()); }
};

TEST(ReliabilityCli, ACompileBombIsKilledAtTheLimitAndTheRestOfTheBuildGoesOn) {
  Workspace w;
  // Everything but the bomb first, with the default limit (a loaded machine is slow).
  ASSERT_EQ(w.ako("compile task bomb --param BOMB=0").status, 0);
  const Ran r = w.ako("compile task bomb --param BOMB=1 --compile-timeout 2");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(has(r.out, "compile_timeout: solution/bomb/bomb.cuh: NVRTC was still compiling after 2 s, the compile "
                         "time limit (--compile-timeout), in two processes one after the other; their process "
                         "groups were killed"))
      << r.out;
  EXPECT_TRUE(has(r.out, "3 programs: 0 compiled, 2 from cache")) << r.out;  // the reference and support kernels
  EXPECT_TRUE(has(r.out, "COMPILED: no")) << r.out;
}

TEST(ReliabilityCli, TheLimitsAreOptionsSaidInHelp) {
  Workspace w;
  for (const char* cmd : {"run", "compile", "tune"}) {
    const Ran h = w.ako(std::string(cmd) + " --help");
    EXPECT_TRUE(has(h.out, "--compile-timeout") && has(h.out, "--compile-memory")) << cmd << "\n" << h.out;
    EXPECT_TRUE(has(h.out, "compile_timeout") && has(h.out, "compile_out_of_memory")) << cmd;
  }
  const Ran bad = w.ako("compile task bomb --compile-memory lots");
  EXPECT_EQ(bad.status, 2);
  EXPECT_TRUE(has(bad.out, "'lots' is not a size")) << bad.out;
}

TEST(ReliabilityCli, AnIncludeOfAFileOutsideTheWorkspaceIsRefusedUnread) {
  Workspace w;
  {
    std::ofstream f(w.ws() / "solution/bomb/bomb.cuh", std::ios::app);
    f << "\n#include \"/etc/passwd\"\n";
  }
  const Ran r = w.ako("compile task bomb");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(has(r.out, "it reads /etc/passwd; a kernel may include only from " + (w.ws() / "input").string() + ", " +
                             (w.ws() / "solution").string()))
      << r.out;
  EXPECT_TRUE(has(r.out, "solution/bomb/bomb.cuh:26: #include \"/etc/passwd\" refused before NVRTC read it")) << r.out;
  EXPECT_FALSE(has(r.out, "root:")) << "the file's contents were printed:\n" << r.out;
}

TEST(ReliabilityCli, ACacheThatCannotBeWrittenIsBypassedWithANote) {
  Workspace w;
  { std::ofstream(w.dir / "a-file") << "not a folder\n"; }
  const fs::path cache = w.dir / "a-file" / "cache";
  const Ran r = w.ako("compile task bomb --param BOMB=0", cache);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(has(r.out, "kernel cache " + cache.string() + " cannot be written; 3 programs compiled without it")) << r.out;
  EXPECT_TRUE(has(r.out, "Not a directory")) << r.out;
  EXPECT_TRUE(has(r.out, "COMPILED: yes")) << r.out;
}

TEST(ReliabilityCli, CacheStatsVerifyAndPrune) {
  Workspace w;
  ASSERT_EQ(w.ako("compile task bomb --param BOMB=0").status, 0);
  const Ran stats = w.ako("cache stats --verify");
  EXPECT_EQ(stats.status, 0) << stats.out;
  EXPECT_TRUE(has(stats.out, "cache " + w.cache().string())) << stats.out;
  EXPECT_TRUE(has(stats.out, "entries 3 (")) << stats.out;
  EXPECT_TRUE(has(stats.out, "cap 2.00 GiB (default; $AKO_CACHE_MAX_SIZE sets it)")) << stats.out;
  EXPECT_TRUE(has(stats.out, "VERIFY: 3 of 3 entries intact")) << stats.out;

  // One byte of one cubin changed: found, named, exit 1.
  fs::path cubin;
  for (const auto& e : fs::recursive_directory_iterator(w.cache()))
    if (e.path().extension() == ".cubin") cubin = e.path();
  ASSERT_FALSE(cubin.empty());
  {
    std::fstream f(cubin, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(64);
    f.put('\x5a');
  }
  const Ran damaged = w.ako("cache stats --verify");
  EXPECT_EQ(damaged.status, 1) << damaged.out;
  EXPECT_TRUE(has(damaged.out, "cubin's sha256 differs")) << damaged.out;
  EXPECT_TRUE(has(damaged.out, "VERIFY: 2 of 3 entries intact, 1 damaged")) << damaged.out;

  // Entries used within --min-age are kept; with 0 every entry over the cap goes.
  const Ran kept = w.ako("cache prune --max-size 0");
  EXPECT_TRUE(has(kept.out, "PRUNE: removed 0 entries")) << kept.out;
  EXPECT_TRUE(has(kept.out, "3 entries over the cap kept")) << kept.out;
  const Ran pruned = w.ako("cache prune --max-size 0 --min-age 0");
  EXPECT_EQ(pruned.status, 0) << pruned.out;
  EXPECT_TRUE(has(pruned.out, "PRUNE: removed 3 entries")) << pruned.out;
  EXPECT_TRUE(has(w.ako("cache stats").out, "entries 0 (")) << "pruned entries are gone";
  EXPECT_EQ(w.ako("cache prune --max-size huge").status, 2);
}

}  // namespace
