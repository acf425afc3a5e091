#include "common/atomic_file.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "common/error.hpp"

namespace ako {

void write_file_atomically(const std::filesystem::path& file, const std::string& content) {
  const auto dir = file.parent_path().empty() ? std::filesystem::path(".") : file.parent_path();
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  const auto tmp = dir / ("." + file.filename().string() + ".tmp." + std::to_string(::getpid()));
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw Error("cannot write " + tmp.string() + ": " + std::strerror(errno));
    out << content;
    out.flush();
    if (!out) throw Error("cannot write " + tmp.string() + ": " + std::strerror(errno));
  }
  std::filesystem::rename(tmp, file, ec);
  if (ec) {
    std::filesystem::remove(tmp);
    throw Error("cannot replace " + file.string() + ": " + ec.message());
  }
}

std::string read_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw Error("cannot read " + file.string() + ": " + std::strerror(errno));
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace ako
