#pragma once
// CPU double-precision references, one per op. They are the ground truth the GPU reference
// kernel is checked against on small shapes (SPEC.md, correctness protocol).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ako::verify {

struct CpuCase {
  std::map<std::string, int64_t> dims;                 // e.g. rows, cols
  std::map<std::string, double> scalars;               // e.g. eps
  std::map<std::string, std::vector<double>> inputs;   // present input/weight buffers by name
};

// Fills outputs[name] (sized by the reference) for every output buffer of the op.
using CpuReferenceFn = void (*)(const CpuCase& c, std::map<std::string, std::vector<double>>& outputs);

// nullptr when no reference is registered for the op.
CpuReferenceFn find_cpu_reference(const std::string& op);

// y[r, c] = x[r, c] / sqrt(mean_c(x[r, :]^2) + eps) * (weight ? weight[c] : 1), in double.
void rmsnorm_reference(const CpuCase& c, std::map<std::string, std::vector<double>>& outputs);

}  // namespace ako::verify
