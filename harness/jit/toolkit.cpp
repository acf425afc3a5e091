#include "jit/toolkit.hpp"

#include <dlfcn.h>
#include <link.h>
#include <nvrtc.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <regex>

#include "common/error.hpp"
#include "jit/file_io.hpp"
#include "jit/sha256.hpp"

namespace fs = std::filesystem;

namespace ako::jit {

namespace {

// Where the headers are: <home>/include normally; the targets/ folder on images whose
// include/ link is missing (see cuda_tech.md: the H100 image keeps them there).
std::optional<fs::path> find_include_dir(const fs::path& home) {
  for (const fs::path& dir : {home / "include", home / "targets" / "x86_64-linux" / "include",
                             home / "targets" / "sbsa-linux" / "include"}) {
    if (fs::exists(dir / "cuda_bf16.h")) return dir;
  }
  return std::nullopt;
}

// The toolkit's headers reached through angle brackets are not hashed one by one: they
// change only when the toolkit does. What identifies it: version.json when the install has
// one (runfile installs do; the pip-style layout here does not), plus the bytes of the
// half-precision headers every kernel includes. That is ~670 KB of hashing, once per process.
std::string toolkit_identity(const fs::path& home, const fs::path& include_dir) {
  Sha256 h;
  h.field("home", home.string());
  h.field("include", include_dir.string());
  for (const fs::path& file : {home / "version.json", include_dir / "cuda_bf16.h",
                              include_dir / "cuda_bf16.hpp", include_dir / "cuda_fp16.h",
                              include_dir / "cuda_fp16.hpp", include_dir / "cuda.h"}) {
    auto bytes = try_read_file(file);
    h.field(file.filename().string(), bytes ? *bytes : std::string("<absent>"));
  }
  return h.hex_digest();
}

struct BuildIdSearch {
  const void* address;
  std::string build_id;
};

// dl_iterate_phdr callback: find the loaded object whose segments contain `address` and read
// the NT_GNU_BUILD_ID note from its PT_NOTE segments.
int read_build_id(dl_phdr_info* info, size_t, void* data) {
  auto* search = static_cast<BuildIdSearch*>(data);
  const auto target = reinterpret_cast<ElfW(Addr)>(search->address);
  bool contains = false;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const auto& ph = info->dlpi_phdr[i];
    const ElfW(Addr) start = info->dlpi_addr + ph.p_vaddr;
    if (ph.p_type == PT_LOAD && target >= start && target < start + ph.p_memsz) contains = true;
  }
  if (!contains) return 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const auto& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_NOTE) continue;
    const char* p = reinterpret_cast<const char*>(info->dlpi_addr + ph.p_vaddr);
    const char* end = p + ph.p_memsz;
    while (p + sizeof(ElfW(Nhdr)) <= end) {
      const auto* note = reinterpret_cast<const ElfW(Nhdr)*>(p);
      const char* name = p + sizeof(ElfW(Nhdr));
      const char* desc = name + ((note->n_namesz + 3) & ~3u);
      if (note->n_type == NT_GNU_BUILD_ID && note->n_namesz == 4 && std::memcmp(name, "GNU", 4) == 0) {
        static constexpr char kHex[] = "0123456789abcdef";
        for (unsigned j = 0; j < note->n_descsz; ++j) {
          const auto byte = static_cast<unsigned char>(desc[j]);
          search->build_id += kHex[byte >> 4];
          search->build_id += kHex[byte & 15];
        }
        return 1;
      }
      p = desc + ((note->n_descsz + 3) & ~3u);
    }
  }
  return 1;  // found the object, but it has no build-id
}

// Fallback when the library has no build-id: its path, size and modification time.
std::string library_file_identity(const void* address) {
  Dl_info info{};
  if (!dladdr(address, &info) || !info.dli_fname) return "unknown";
  std::error_code ec;
  const fs::path lib = fs::canonical(info.dli_fname, ec);
  if (ec) return info.dli_fname;
  const auto size = fs::file_size(lib, ec);
  const auto mtime = fs::last_write_time(lib, ec).time_since_epoch().count();
  return lib.string() + " size " + std::to_string(size) + " mtime " + std::to_string(mtime);
}

}  // namespace

std::string headers_version(const Toolkit& t) {
  const fs::path include = t.include_dirs.empty() ? t.home / "include" : t.include_dirs.front();
  std::string version = "unknown";
  if (const auto text = try_read_file(include / "cuda.h")) {
    static const std::regex define(R"(#define\s+CUDA_VERSION\s+([0-9]+))");
    std::smatch m;
    if (std::regex_search(*text, m, define)) {
      const int v = std::stoi(m[1]);
      version = std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
    }
  }
  return version + " (" + include.string() + ")";
}

Toolkit resolve_toolkit(const fs::path& requested_home) {
  fs::path home = requested_home;
  std::string source = "CompileOptions::cuda_home";
  if (home.empty()) {
    if (const char* env = std::getenv("AKO_CUDA_HOME"); env && *env) {
      home = env;
      source = "$AKO_CUDA_HOME";
    } else {
      home = AKO_DEFAULT_CUDA_HOME;
      source = "the toolkit ako was built with";
    }
  }
  const auto include_dir = find_include_dir(home);
  if (!include_dir)
    throw Error("CUDA headers not found: no cuda_bf16.h under " + (home / "include").string() +
                " (CUDA home from " + source +
                "). NVRTC needs the toolkit's headers: set AKO_CUDA_HOME to the CUDA toolkit root.");

  static std::mutex mutex;
  static std::map<fs::path, Toolkit> memo;
  std::lock_guard lock(mutex);
  if (auto it = memo.find(home); it != memo.end()) return it->second;
  Toolkit t{home, {*include_dir, *include_dir / "cccl"}, toolkit_identity(home, *include_dir)};
  memo.emplace(home, t);
  return t;
}

std::string nvrtc_identity() {
  static const std::string identity = [] {
    int major = 0, minor = 0;
    nvrtcVersion(&major, &minor);
    const void* address = reinterpret_cast<const void*>(&nvrtcVersion);
    BuildIdSearch search{address, {}};
    dl_iterate_phdr(read_build_id, &search);
    const std::string build =
        search.build_id.empty() ? "file " + library_file_identity(address) : "build-id " + search.build_id;
    return std::to_string(major) + "." + std::to_string(minor) + " " + build;
  }();
  return identity;
}

}  // namespace ako::jit
