#include "jit/file_io.hpp"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "common/error.hpp"

namespace fs = std::filesystem;

namespace ako::jit {

std::optional<std::string> try_read_file(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return std::move(bytes).str();
}

std::string read_file(const fs::path& file) {
  auto bytes = try_read_file(file);
  if (!bytes) throw Error("cannot read " + file.string() + ": " + std::strerror(errno));
  return *bytes;
}

void write_file_atomic(const fs::path& file, const std::string& bytes) {
  static std::atomic<unsigned> counter{0};
  const fs::path tmp = file.string() + ".tmp." + std::to_string(getpid()) + "." +
                       std::to_string(counter++);
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out) {
      std::error_code ec;
      fs::remove(tmp, ec);
      throw Error("cannot write " + tmp.string() + ": " + std::strerror(errno));
    }
  }
  if (std::rename(tmp.c_str(), file.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    std::error_code ec;
    fs::remove(tmp, ec);
    throw Error("cannot rename " + tmp.string() + " to " + file.string() + ": " + why);
  }
}

}  // namespace ako::jit
