#pragma once
// Exit status of every ako command (documented in README and `ako --help`).
namespace ako::cli {
inline constexpr int kExitOk = 0;         // everything ran and every verdict is correct
inline constexpr int kExitIncorrect = 1;  // some case incorrect, or a candidate failed (crash, hang)
inline constexpr int kExitUsage = 2;      // usage, spec, build or environment error: no verdict
}  // namespace ako::cli
