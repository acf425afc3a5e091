#pragma once
// `ako tune --gpus all|N|I,J,...`: which of the visible GPUs tune measures on, one worker each.
#include <string>
#include <vector>

#include "exec/client/gpu_probe.hpp"

namespace ako::exec {

// "" (the default): device 0 alone, as before --gpus existed. "all": every visible device. "N":
// the first N. "I,J,...": those device indices (one device by index: "I,"). Throws ako::Error on
// a malformed spec, an index or count the host lacks, a repeated index, GPUs of different models
// (their times are never ranked together: each model has its own config and records), or, for
// more than one GPU, a driver that gives no UUIDs (workers are pinned by UUID).
std::vector<GpuDevice> select_gpus(const GpuProbe& probe, const std::string& spec);

// The spec's form alone (no GPU needed): throws ako::Error on a malformed spec or a repeated
// index, so a command can refuse it before it probes the GPUs.
void check_gpus_spec(const std::string& spec);

}  // namespace ako::exec
