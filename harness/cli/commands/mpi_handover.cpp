#include "cli/commands/mpi_handover.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/exit_codes.hpp"

namespace ako::cli {

namespace fs = std::filesystem;

namespace {

int env_int(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoi(v) : 0;
}

}  // namespace

bool under_mpi_launcher() { return env_int("OMPI_COMM_WORLD_SIZE") > 1 || env_int("PMI_SIZE") > 1; }

bool wants_mpi_tune(int argc, char** argv) {
  if (argc < 2 || std::string(argv[1]) != "tune") return false;
  for (int i = 2; i < argc; ++i)
    if (std::string(argv[i]) == "--mpi") return true;
  return under_mpi_launcher();
}

int hand_over_to_mpi_tune(int argc, char** argv) {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  const fs::path exe = ec ? fs::path() : self.parent_path() / "ako-mpi-tune";
  if (exe.empty() || !fs::exists(exe)) {
    fmt::print(stderr,
               "ako tune: this build of ako has no MPI: ako-mpi-tune was not built beside {} (CMake found no MPI, or "
               "-DAKO_MPI=OFF). To tune across hosts: install Open MPI (apt-get install openmpi-bin libopenmpi-dev; "
               "scripts/setup.sh does), configure again with -DAKO_MPI=ON, rebuild, and run mpirun -np N ako tune "
               "--mpi ... . On one host, --gpus all needs no MPI.\n",
               self.string());
    return kExitUsage;
  }
  std::vector<std::string> args{exe.string()};
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) != "--mpi") args.emplace_back(argv[i]);
  std::vector<char*> cargs;
  for (auto& a : args) cargs.push_back(a.data());
  cargs.push_back(nullptr);
  ::execv(exe.c_str(), cargs.data());
  fmt::print(stderr, "ako tune: cannot start {}: {}\n", exe.string(), std::strerror(errno));
  return kExitUsage;
}

}  // namespace ako::cli
