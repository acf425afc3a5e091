#include "verify/cpu/cpu_reference.hpp"

#include <cmath>

#include "common/error.hpp"

namespace ako::verify {

namespace {

int64_t dim(const CpuCase& c, const char* name) {
  auto it = c.dims.find(name);
  if (it == c.dims.end() || it->second < 0) throw Error(std::string("cpu reference: missing or negative dim '") + name + "'");
  return it->second;
}

const std::vector<double>& input(const CpuCase& c, const char* name, size_t count) {
  auto it = c.inputs.find(name);
  if (it == c.inputs.end()) throw Error(std::string("cpu reference: missing input '") + name + "'");
  if (it->second.size() != count)
    throw Error(std::string("cpu reference: input '") + name + "' has " + std::to_string(it->second.size()) +
                " elements, expected " + std::to_string(count));
  return it->second;
}

}  // namespace

void rmsnorm_reference(const CpuCase& c, std::map<std::string, std::vector<double>>& outputs) {
  const int64_t rows = dim(c, "rows"), cols = dim(c, "cols");
  auto eps_it = c.scalars.find("eps");
  if (eps_it == c.scalars.end()) throw Error("cpu reference: missing scalar 'eps'");
  const double eps = eps_it->second;
  const auto& x = input(c, "x", static_cast<size_t>(rows * cols));
  const bool has_weight = c.inputs.count("weight") != 0;
  const std::vector<double>* weight = has_weight ? &input(c, "weight", static_cast<size_t>(cols)) : nullptr;

  auto& out = outputs["out"];
  out.assign(static_cast<size_t>(rows * cols), 0.0);
  for (int64_t r = 0; r < rows; ++r) {
    const double* xr = x.data() + r * cols;
    double sum_sq = 0.0;
    for (int64_t j = 0; j < cols; ++j) sum_sq += xr[j] * xr[j];
    const double inv_rms = 1.0 / std::sqrt(sum_sq / static_cast<double>(cols) + eps);
    for (int64_t j = 0; j < cols; ++j) out[r * cols + j] = xr[j] * inv_rms * (weight ? (*weight)[j] : 1.0);
  }
}

CpuReferenceFn find_cpu_reference(const std::string& op) {
  if (op == "rmsnorm") return &rmsnorm_reference;
  return nullptr;
}

}  // namespace ako::verify
