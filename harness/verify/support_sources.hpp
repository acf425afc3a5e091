#pragma once
// The harness's own device code (random fill, poison, compare), embedded in the binary at
// build time from harness/verify/gpu/ so that ako works outside its source tree.
#include <string>
#include <vector>

namespace ako::verify {

struct EmbeddedSource {
  const char* name;     // file name, e.g. "support_kernels.cuh"
  const char* content;
};

const std::vector<EmbeddedSource>& support_sources();

}  // namespace ako::verify
