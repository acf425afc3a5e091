#pragma once
// What `ako validate` prints from its result, and the rows `ako report` shows: the step per
// backend and mode, the family verdicts, the sites where ako's backend did not run a ported
// kernel, and the final line (VALIDATE: pass / FAIL).
#include <string>
#include <vector>

#include "validate/validate_result.hpp"

namespace ako::validate {

// One row per backend and mode: backend, mode, step ms, family us, GPU total us, ako's step
// speedup over the engine (the ako rows), output rel L2 and max abs vs torch.
std::vector<std::vector<std::string>> step_rows(const ValidateResult& r);
// One row per family: family, sites, ported, microbench speedup, in-step speedup per mode, verdict.
std::vector<std::vector<std::string>> family_rows(const ValidateResult& r);
std::vector<std::string> step_header(const ValidateResult& r);
std::vector<std::string> family_header(const ValidateResult& r);

// "flux1 on NVIDIA H200: blocks double 2 of 19, single 2 of 38 (...)"
std::string headline(const ValidateResult& r);
// The whole text: headline, the two tables, the sites ako's backend left to the engine, the
// failures and the VALIDATE line.
std::string format_validate_text(const ValidateResult& r);
// Columns padded to their widest cell.
std::string align(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows);

}  // namespace ako::validate
