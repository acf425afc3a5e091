#pragma once
// NVRTC to cubin, with a content-addressed disk cache and a process pool.
//
// One CompileRequest is one NVRTC program: a .cuh file compiled on its own, with every
// template instantiation it needs added as a name expression. The cache key covers the
// source and every header it includes by quotes (recursively), the option list, the NVRTC
// version (major.minor and build) and the arch; a hit returns without calling NVRTC at all.
// NVRTC compiles do not overlap across threads of one process (cuda_tech.md), so
// compile_all() forks worker processes, each under a wall-clock limit and a memory cap.
// Every entry records the sha256 of its cubin and PTX, checked on every load: a damaged or
// swapped entry is a miss, rebuilt, never run. The cache is capped in size (least recently used
// entries pruned after writes; disk_cache.hpp, cache_usage.hpp).
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "result/run_result.hpp"

namespace ako::jit {

struct CompileRequest {
  std::filesystem::path source;               // absolute path of the .cuh
  std::string display_name;                   // how errors name the file, e.g. "solution/rmsnorm/rmsnorm.cuh"
  std::vector<std::string> name_expressions;  // e.g. "rmsnorm_kernel<__nv_bfloat16, true, 256, 8, 1>"
  std::string arch = "sm_90a";                // always a real arch: NVRTC emits cubin
  std::vector<std::string> extra_options;     // e.g. "-DAKO_FOO=1"; ako adds -std, -I and -arch
  // Folders the program may #include from besides its own folder, its -I folders and the
  // CUDA toolkit's (include_scan.hpp): e.g. the workspace's input/ and solution/.
  std::vector<std::filesystem::path> include_roots;
};

struct CompiledModule {
  std::filesystem::path cubin;                // file in the cache
  std::filesystem::path ptx;                  // its PTX, beside it (what the static checks read)
  std::string key;                            // cache key (hex sha256)
  std::map<std::string, std::string> lowered; // name expression -> lowered name
  std::map<std::string, KernelResources> resources;  // lowered name -> ptxas resource report
  std::string log;                            // NVRTC log (warnings, ptxas -v)
  bool cache_hit = false;
  double compile_ms = 0;                      // NVRTC wall time (0 on a hit)
};

inline constexpr double kDefaultCompileTimeoutS = 120;                     // per program
inline constexpr unsigned long long kDefaultCompileMemoryBytes = 4ull << 30;  // per program

struct CompileOptions {
  std::filesystem::path cache_dir;            // empty: no disk cache
  std::filesystem::path cuda_home;            // toolkit root for -I<cuda>/include{,/cccl}
  int jobs = 0;                               // parallel processes; 0 = number of CPUs
  bool use_cache = true;
  // compile_all()'s limits per program: a compiler process still running after timeout_s
  // seconds is killed (compile_timeout); one that needs more than memory_bytes of address
  // space beyond what it started with fails (compile_out_of_memory). 0: no limit.
  double timeout_s = kDefaultCompileTimeoutS;
  unsigned long long memory_bytes = kDefaultCompileMemoryBytes;
  // Size cap of the cache directory, applied after compile_all() wrote entries (least recently
  // used first; cache_usage.hpp). nullopt: $AKO_CACHE_MAX_SIZE, else 2 GiB. 0: no cap.
  std::optional<unsigned long long> cache_max_bytes;
  // Checked before each compiler process starts: once it holds, the programs not yet started
  // are left uncompiled with an error that begins "compile_not_started: " (compile_fault), and
  // nothing of theirs is cached. `ako tune --time` ends a batch's compiles this way.
  std::function<bool()> stop;
};

// Thrown when NVRTC rejects a program; what() holds the log, whose lines already read
// "solution/rmsnorm/rmsnorm.cuh(42): error: ...". A build error, hence an ako::Error (exit 2).
// Other failures (virtual arch, unreadable source, no CUDA headers) throw plain ako::Error.
// `headline`, when given, replaces "FILE: compilation failed" as the first line (e.g. "kernel
// `rmsnorm_kernel` is not defined in FILE").
struct CompileError : Error {
  CompileError(std::string file, std::string log, const std::string& headline = "")
      : Error((headline.empty() ? file + ": compilation failed" : headline) + "\n" + log),
        file(std::move(file)),
        log(std::move(log)) {}
  std::string file, log;
};

// NVRTC's log when a kernel ako asked for does not exist repeats that for every template
// instantiation (the "__nv_name_map" errors). Returns "kernel `NAME` is not defined in FILE"
// and the log without those errors when the log says a requested kernel is undefined; else
// nullopt (the log is the useful part then).
struct MissingKernels {
  std::string headline, log;
};
std::optional<MissingKernels> explain_missing_kernels(const std::string& log, const std::vector<std::string>& name_expressions,
                                                      const std::string& file);

// Throws ako::Error naming `arch` unless it is a real arch ("sm_90a") this NVRTC supports: the
// commands call it once, up front, so a bad --arch is said once and plainly.
void check_arch(const std::string& arch);

// Compile one program in this process (cache first), with no time limit or memory cap (those
// need a process of their own: compile_all). `ako mirror` uses it on the engine's own code. A
// cache that cannot be written is bypassed: the entry goes to scratch_dir() (build.hpp).
CompiledModule compile(const CompileRequest& req, const CompileOptions& opt);

// Compile many in parallel worker processes. Results are in request order; a program that
// fails to compile (or whose request is invalid) yields an entry in `errors` (same index) and
// an empty module. Cache hits are loaded in the calling process, which never runs NVRTC
// itself; identical requests compile once. It forks: call it while no other thread of the
// process is inside NVRTC. cache_hit is false and compile_ms is the child's NVRTC time for
// programs compiled by this call.
//
// Each child runs in a process group of its own and dies with the thread that forked it
// (PR_SET_PDEATHSIG). One past opt.timeout_s is killed with its group: error
// "compile_timeout: FILE: ..."; one past opt.memory_bytes fails: "compile_out_of_memory: FILE:
// ...". The other programs go on. When the cache directory cannot be written (read-only, full
// disk), the programs are compiled into a private temporary folder instead and `notes` says so,
// naming the path; a cache entry that failed its check on load is rebuilt and said in `notes`.
struct BatchResult {
  std::vector<CompiledModule> modules;
  std::vector<std::string> errors;            // empty string = success
  std::vector<std::string> notes;             // about the cache, each once
};

// What kind of failure a compile error text is: "compile_timeout", "compile_out_of_memory" (the
// limits above) or "compile_error" (anything else); "" for "".
std::string compile_fault(const std::string& error);
BatchResult compile_all(const std::vector<CompileRequest>& reqs, const CompileOptions& opt);

// The cache key, exposed for tests.
std::string cache_key(const CompileRequest& req, const CompileOptions& opt);

// Version of the NVRTC library in use, e.g. "13.0 build-id 65be0db342ad51a0...": nvrtcVersion
// plus the GNU build-id of the loaded libnvrtc, which names the exact build without compiling.
std::string nvrtc_version_string();

// Default cache directory: $AKO_CACHE_DIR, else $XDG_CACHE_HOME/ako, else ~/.cache/ako.
std::filesystem::path default_cache_dir();

}  // namespace ako::jit
