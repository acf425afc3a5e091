#pragma once
// ITERATIONS.md text <-> IterationLog. The layout (one section per task):
//
//   # Iterations
//   <preamble>
//   ## Task rmsnorm
//   | Iter | Title | Speedup | Runtime | Status |
//   | --- | --- | --- | --- | --- |
//   | 0 | ... | 1.339x | 3755.14 us | baseline |
//   ### Iter 0 — <title>
//   **Hypothesis.** ...   **Changes.** ...   **Bench.** ...   **ncu.** ...
//   **Analysis.** ...     **Next.** ...
//
// render_log(parse_log(text)) == text for any text render_log wrote.
#include <string>

#include "iterate/log_model.hpp"

namespace ako::iterate {

std::string render_log(const IterationLog& log);

// Throws ako::Error naming the file, line and what was expected.
IterationLog parse_log(const std::string& text, const std::string& file_name = "ITERATIONS.md");

// The preamble of a new ITERATIONS.md.
std::string default_preamble();

}  // namespace ako::iterate
