#pragma once
// Where ako finds its workspace (the repository with tasks/, input/, solution/) and its
// sibling executable ako-worker.
#include <filesystem>

namespace ako::pipeline {

// --root when given; else the nearest of the current directory and its parents that holds a
// tasks/ folder. Throws ako::Error naming what was searched.
std::filesystem::path find_workspace(const std::filesystem::path& explicit_root);

// $AKO_WORKER, else ako-worker next to the running ako executable.
std::filesystem::path worker_executable();

}  // namespace ako::pipeline
