#pragma once
// `ako cache stats` and `ako cache prune`: how big the kernel cache is, which entries are
// damaged, and keeping it under its size cap (jit/cache_usage.hpp). Also the compile limits'
// options shared by run, compile and tune (--compile-timeout, --compile-memory).
#include <chrono>
#include <filesystem>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

namespace ako::cli {

struct CacheOptions {
  std::filesystem::path cache_dir;           // empty: jit::default_cache_dir()
  bool verify = false;                       // stats: check every entry's sha256
  std::optional<unsigned long long> max_size;  // prune: the cap (default: $AKO_CACHE_MAX_SIZE, else 2 GiB)
  double min_age_s = 3600;                   // prune: entries used more recently are kept
};

// Exit 0; stats --verify: 1 when an entry is damaged; 2 usage error.
int cache_stats_command(const CacheOptions& opt);
int cache_prune_command(const CacheOptions& opt);

class CacheCli {
 public:
  explicit CacheCli(CLI::App& app);
  // The exit status when `cache` was the subcommand given, else nullopt.
  std::optional<int> dispatch();

 private:
  CacheOptions stats_, prune_;
  CLI::App* cache_cmd_ = nullptr;
  CLI::App* stats_cmd_ = nullptr;
  CLI::App* prune_cmd_ = nullptr;
};

// --compile-timeout SECONDS and --compile-memory SIZE, writing into the command's options.
void add_compile_limit_options(CLI::App* cmd, double& timeout_s, unsigned long long& memory_bytes);

}  // namespace ako::cli
