#include "cli/commands/cache_command.hpp"

#include <algorithm>
#include <ctime>

#include <fmt/format.h>

#include "cli/commands/number_checks.hpp"
#include "cli/exit_codes.hpp"
#include "jit/cache_usage.hpp"
#include "jit/compiler.hpp"
#include "jit/disk_cache.hpp"

namespace ako::cli {

namespace fs = std::filesystem;

namespace {

fs::path dir_of(const CacheOptions& opt) { return opt.cache_dir.empty() ? jit::default_cache_dir() : opt.cache_dir; }

std::string local_time(std::time_t t) {
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M", &tm);
  return buf;
}

// The cap and where it comes from, e.g. "2.00 GiB (default; $AKO_CACHE_MAX_SIZE sets it)".
std::string cap_text(const jit::CompileOptions& co) {
  const unsigned long long cap = jit::cache_max_bytes(co);
  const std::string source = jit::cache_max_source(co);
  if (!cap && source != "--max-size") return "none (" + source + ")";
  return fmt::format("{} ({})", jit::format_size(cap), source == "default" ? "default; $AKO_CACHE_MAX_SIZE sets it" : source);
}

std::string size_arg_error(const std::string& text) {
  return "'" + text + "' is not a size: expected e.g. 2G, 500M, 64K or 0, in powers of 1024";
}

}  // namespace

int cache_stats_command(const CacheOptions& opt) {
  const fs::path dir = dir_of(opt);
  const jit::CompileOptions co;
  const jit::CacheUsage u = jit::scan_cache(dir);
  fmt::print("cache {}\n", dir.string());
  if (!u.exists) {
    fmt::print("entries 0 (the folder does not exist yet)\ncap {}\n", cap_text(co));
    return kExitOk;
  }
  fmt::print("entries {} ({})\n", u.entries.size(), jit::format_size(u.entry_bytes));
  fmt::print("cap {}\n", cap_text(co));
  if (!u.entries.empty())
    fmt::print("last used: least recently {}, most recently {}\n", local_time(u.entries.front().last_used),
               local_time(u.entries.back().last_used));
  fmt::print("stray files {} ({}; left by interrupted writers, pruned after an hour)\n", u.stray_files,
             jit::format_size(u.stray_bytes));
  fmt::print("other files {} (support headers, copy-bandwidth figures, the lock)\n", jit::format_size(u.other_bytes));
  if (!opt.verify) return kExitOk;
  size_t damaged = 0, old = 0;
  for (const auto& e : u.entries) {
    const std::string why = jit::check_entry(dir, e.key);
    if (why.empty()) continue;
    if (why.rfind("of the old format", 0) == 0) {
      ++old;  // never loaded again (the key changed with the format): pruned as room is needed
      continue;
    }
    ++damaged;
    fmt::print("damaged {}: {}\n", jit::entry_paths(dir, e.key).json.string(), why);
  }
  fmt::print("VERIFY: {} of {} entries intact{}{}\n", u.entries.size() - damaged - old, u.entries.size(),
             damaged ? fmt::format(", {} damaged (each is rebuilt when next used)", damaged) : "",
             old ? fmt::format(", {} of an older ako (never used again; pruned by age)", old) : "");
  return damaged ? kExitIncorrect : kExitOk;
}

int cache_prune_command(const CacheOptions& opt) {
  const fs::path dir = dir_of(opt);
  jit::CompileOptions co;
  co.cache_max_bytes = opt.max_size;
  const unsigned long long cap = jit::cache_max_bytes(co);
  const jit::CacheUsage before = jit::scan_cache(dir);
  // No cap configured ($AKO_CACHE_MAX_SIZE=0) and none given: only the stray files go.
  const unsigned long long target = cap || opt.max_size ? cap : ~0ull;
  const jit::PruneOutcome o =
      jit::prune_cache(dir, target, std::chrono::seconds(static_cast<long long>(opt.min_age_s)));
  fmt::print("cache {}: {} entries, {} before; cap {}\n", dir.string(), before.entries.size(),
             jit::format_size(before.total_bytes()), cap_text(co));
  fmt::print("PRUNE: removed {} entries ({}) and {} stray files; {} left{}\n", o.removed,
             jit::format_size(o.removed_bytes), o.strays_removed, jit::format_size(o.bytes_after),
             o.kept_recent ? fmt::format("; {} entries over the cap kept: used within the last {:g} s (--min-age)",
                                         o.kept_recent, opt.min_age_s)
                           : "");
  return kExitOk;
}

void add_compile_limit_options(CLI::App* cmd, double& timeout_s, unsigned long long& memory_bytes) {
  cmd->add_option("--compile-timeout", timeout_s,
                  "seconds one NVRTC program may compile before its process group is killed; it is then compiled\n"
                  "once more in a fresh process, and a second timeout is a compile_timeout (naming the file; the\n"
                  "other programs go on, a tune records the variant as failed); 0: no limit")
      ->capture_default_str()
      ->check(ako::cli::kNonNegative);
  cmd->add_option_function<std::string>(
         "--compile-memory",
         [&memory_bytes](const std::string& v) {
           const auto bytes = jit::parse_size(v);
           if (!bytes) throw CLI::ValidationError("--compile-memory", size_arg_error(v));
           memory_bytes = *bytes;
         },
         "memory one NVRTC program may take beyond what its process starts with, e.g. 4G, 512M\n"
         "(compile_out_of_memory past it, naming the file; the other programs go on); 0: no cap")
      ->default_str(memory_bytes % (1ull << 30) == 0 ? std::to_string(memory_bytes >> 30) + "G"
                                                     : jit::format_size(memory_bytes));
}

CacheCli::CacheCli(CLI::App& app) {
  cache_cmd_ = app.add_subcommand(
      "cache",
      "the kernel cache ($AKO_CACHE_DIR, $XDG_CACHE_HOME/ako or ~/.cache/ako): its size and its cap. Every entry\n"
      "records the sha256 of its cubin and PTX, checked on every load (a damaged entry is rebuilt, never run);\n"
      "after a compile writes entries, the least recently used are pruned to the cap ($AKO_CACHE_MAX_SIZE,\n"
      "default 2G; 0: no cap), keeping any used within the last hour (another run may be about to load it).");
  cache_cmd_->require_subcommand(1);
  stats_cmd_ = cache_cmd_->add_subcommand(
      "stats", "entries, size, cap, last use; --verify checks every entry's hashes (exit 1 when one is damaged)");
  stats_cmd_->add_option("--cache-dir", stats_.cache_dir, "the cache (default: as for run)");
  stats_cmd_->add_flag("--verify", stats_.verify, "check every entry's cubin and PTX against their recorded sha256");
  prune_cmd_ = cache_cmd_->add_subcommand(
      "prune", "remove the least recently used entries until the cache fits its cap, and stray files an hour old");
  prune_cmd_->add_option("--cache-dir", prune_.cache_dir, "the cache (default: as for run)");
  prune_cmd_->add_option_function<std::string>(
      "--max-size",
      [this](const std::string& v) {
        const auto bytes = jit::parse_size(v);
        if (!bytes) throw CLI::ValidationError("--max-size", size_arg_error(v));
        prune_.max_size = *bytes;
      },
      "the cap, e.g. 2G, 500M; 0 removes every entry old enough (default: $AKO_CACHE_MAX_SIZE, else 2G)");
  prune_cmd_->add_option("--min-age", prune_.min_age_s,
                         "seconds: entries used (and stray files written) more recently are kept, since another ako\n"
                         "may be about to load them; 0 prunes regardless")
      ->capture_default_str()
      ->check(ako::cli::kNonNegative);
}

std::optional<int> CacheCli::dispatch() {
  if (!cache_cmd_->parsed()) return std::nullopt;
  if (stats_cmd_->parsed()) return cache_stats_command(stats_);
  return cache_prune_command(prune_);
}

}  // namespace ako::cli
