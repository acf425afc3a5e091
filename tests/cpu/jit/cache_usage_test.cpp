// The cache's size cap: sizes as people write them, least recently used entries pruned first
// (a hit makes an entry recent), entries used within the last hour kept, stray files of
// killed writers removed once old, and the cap applied by compile_all after it writes.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <utime.h>

#include <ctime>

#include "jit/cache_usage.hpp"
#include "jit/disk_cache.hpp"
#include "jit_test_support.hpp"

namespace ako::jit {
namespace {

using namespace ako::jit::testing;

CompileRequest scale_variant(int block) {
  auto r = scale_request();
  r.name_expressions = {"scale_kernel<__nv_bfloat16, " + std::to_string(block) + ">"};
  return r;
}

// Sets the entry's last use (its JSON's mtime) `hours` ago.
void last_used_hours_ago(const CompileOptions& opt, const std::string& key, int hours) {
  const std::time_t t = std::time(nullptr) - hours * 3600;
  const utimbuf times{t, t};
  ASSERT_EQ(utime(entry_paths(opt.cache_dir, key).json.c_str(), &times), 0);
}

std::vector<std::string> keys_of(const CacheUsage& u) {
  std::vector<std::string> keys;
  for (const auto& e : u.entries) keys.push_back(e.key);
  return keys;
}

TEST(CacheSize, ParsesSizesAsPeopleWriteThem) {
  EXPECT_EQ(parse_size("2G"), 2ull << 30);
  EXPECT_EQ(parse_size("2GiB"), 2ull << 30);
  EXPECT_EQ(parse_size("500M"), 500ull << 20);
  EXPECT_EQ(parse_size("1.5g"), 3ull << 29);
  EXPECT_EQ(parse_size("64k"), 64ull << 10);
  EXPECT_EQ(parse_size("4096"), 4096ull);
  EXPECT_EQ(parse_size("0"), 0ull);
  EXPECT_EQ(parse_size(""), std::nullopt);
  EXPECT_EQ(parse_size("two gigs"), std::nullopt);
  EXPECT_EQ(parse_size("2X"), std::nullopt);
  EXPECT_EQ(format_size(3ull << 29), "1.50 GiB");
  EXPECT_EQ(format_size(17), "17 B");
}

TEST(CacheSize, TheCapComesFromTheOptionsTheEnvironmentOrTheDefault) {
  const char* old = std::getenv("AKO_CACHE_MAX_SIZE");
  const std::string saved = old ? old : "";
  CompileOptions opt;
  unsetenv("AKO_CACHE_MAX_SIZE");
  EXPECT_EQ(cache_max_bytes(opt), kDefaultCacheMaxBytes);
  setenv("AKO_CACHE_MAX_SIZE", "300M", 1);
  EXPECT_EQ(cache_max_bytes(opt), 300ull << 20);
  opt.cache_max_bytes = 7;
  EXPECT_EQ(cache_max_bytes(opt), 7ull);
  opt.cache_max_bytes.reset();
  setenv("AKO_CACHE_MAX_SIZE", "lots", 1);
  EXPECT_THROW(cache_max_bytes(opt), Error);
  if (old) setenv("AKO_CACHE_MAX_SIZE", saved.c_str(), 1); else unsetenv("AKO_CACHE_MAX_SIZE");
}

TEST(CacheSize, PrunesTheLeastRecentlyUsedFirstAndAHitMakesAnEntryRecent) {
  TempDir tmp;
  const auto opt = cached_in(tmp.path());
  const auto b = compile_all({scale_variant(64), scale_variant(128), scale_variant(256)}, opt);
  ASSERT_EQ(b.errors, (std::vector<std::string>{"", "", ""}));
  const std::string k64 = b.modules[0].key, k128 = b.modules[1].key, k256 = b.modules[2].key;
  last_used_hours_ago(opt, k64, 5);
  last_used_hours_ago(opt, k128, 4);
  last_used_hours_ago(opt, k256, 3);
  // A hit on the oldest makes it the most recently used.
  EXPECT_TRUE(compile_all({scale_variant(64)}, opt).modules[0].cache_hit);
  const CacheUsage before = scan_cache(opt.cache_dir);
  EXPECT_EQ(keys_of(before), (std::vector<std::string>{k128, k256, k64}));
  // Room for two entries: the least recently used (128) goes.
  const PruneOutcome o = prune_cache(opt.cache_dir, before.entries[1].bytes + before.entries[2].bytes);
  EXPECT_EQ(o.removed, 1u);
  EXPECT_EQ(o.removed_bytes, before.entries[0].bytes);
  EXPECT_EQ(keys_of(scan_cache(opt.cache_dir)), (std::vector<std::string>{k256, k64}));
  EXPECT_FALSE(fs::exists(entry_paths(opt.cache_dir, k128).cubin));
  EXPECT_FALSE(compile_all({scale_variant(128)}, opt).modules[0].cache_hit) << "a pruned entry is a miss, rebuilt";
}

TEST(CacheSize, EntriesUsedWithinTheMinimumAgeAreKeptOverTheCap) {
  TempDir tmp;
  const auto opt = cached_in(tmp.path());
  const auto b = compile_all({scale_variant(64), scale_variant(128)}, opt);
  last_used_hours_ago(opt, b.modules[0].key, 2);
  const PruneOutcome o = prune_cache(opt.cache_dir, 0);  // everything old enough goes
  EXPECT_EQ(o.removed, 1u);
  EXPECT_EQ(o.kept_recent, 1u);
  EXPECT_EQ(keys_of(scan_cache(opt.cache_dir)), (std::vector<std::string>{b.modules[1].key}));
  EXPECT_EQ(prune_cache(opt.cache_dir, 0, std::chrono::seconds(0)).removed, 1u);
  EXPECT_TRUE(scan_cache(opt.cache_dir).entries.empty());
}

TEST(CacheSize, StrayFilesOfKilledWritersGoOnceOld) {
  TempDir tmp;
  const auto opt = cached_in(tmp.path());
  compile_all({scale_variant(64)}, opt);
  const fs::path shard = opt.cache_dir / "ab";
  fs::create_directories(shard);
  write_text(shard / "abcd.cubin.tmp.123.0", "half a cubin");
  write_text(shard / "abce.cubin", "a cubin whose JSON never came");
  write_text(shard / "abcf.cubin.tmp.124.0", "a writer still at work");
  const std::time_t old = std::time(nullptr) - 2 * 3600;
  const utimbuf times{old, old};
  utime((shard / "abcd.cubin.tmp.123.0").c_str(), &times);
  utime((shard / "abce.cubin").c_str(), &times);
  EXPECT_EQ(scan_cache(opt.cache_dir).stray_files, 3u);
  const PruneOutcome o = prune_cache(opt.cache_dir, 1ull << 40);
  EXPECT_EQ(o.strays_removed, 2u);
  EXPECT_EQ(o.removed, 0u);
  EXPECT_TRUE(fs::exists(shard / "abcf.cubin.tmp.124.0"));
  EXPECT_EQ(scan_cache(opt.cache_dir).entries.size(), 1u);
}

TEST(CacheSize, CompileAllAppliesTheCapAfterItWrites) {
  TempDir tmp;
  auto opt = cached_in(tmp.path());
  const auto b = compile_all({scale_variant(64), scale_variant(128)}, opt);
  for (const auto& m : b.modules) last_used_hours_ago(opt, m.key, 2);
  const unsigned long long two = scan_cache(opt.cache_dir).entry_bytes;
  // A hit writes nothing: no pruning, even under a cap of 1 byte.
  opt.cache_max_bytes = 1;
  EXPECT_TRUE(compile_all({scale_variant(64)}, opt).modules[0].cache_hit);
  EXPECT_EQ(scan_cache(opt.cache_dir).entries.size(), 2u);
  // A write, with room for two entries and a quarter: the oldest goes, the new one stays.
  last_used_hours_ago(opt, b.modules[0].key, 3);
  opt.cache_max_bytes = two + two / 4;
  const auto c = compile_all({scale_variant(256)}, opt);
  ASSERT_EQ(c.errors[0], "");
  const auto left = keys_of(scan_cache(opt.cache_dir));
  EXPECT_EQ(left, (std::vector<std::string>{b.modules[1].key, c.modules[0].key}));
  EXPECT_LE(scan_cache(opt.cache_dir).total_bytes(), *opt.cache_max_bytes);
}

}  // namespace
}  // namespace ako::jit
