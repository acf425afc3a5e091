#pragma once
// A process ako starts through a tool (the worker under compute-sanitizer, the `ako run` that
// `ako iterate --ncu` runs under ncu) is ako's grandchild: PR_SET_PDEATHSIG, set on ako's own
// child (the tool), does not reach it, and setting it in the grandchild would tie it to the
// tool's thread that forked it, not to ako. So ako names itself in the environment, which every
// tool passes on ($AKO_ANCESTOR = "PID:START", START the process's start time in clock ticks
// since boot from /proc/PID/stat, so a reused PID is never taken for ako), and the worker and a
// nested ako watch that process and leave when it is gone: a thread waits on a pidfd of it
// (pidfd_open, Linux 5.3), else reads /proc every 100 ms.
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>

namespace ako::exec {

inline constexpr const char* kAncestorEnv = "AKO_ANCESTOR";

struct ProcessIdentity {
  pid_t pid = 0;
  uint64_t start = 0;   // clock ticks after boot (/proc/PID/stat, field 22)
};

// "PID:START"; nullopt for anything else.
std::string identity_text(const ProcessIdentity& p);
std::optional<ProcessIdentity> parse_identity(const std::string& text);

// The process's identity while it runs; nullopt once it is gone (or a zombie, which has ended).
std::optional<ProcessIdentity> identity_of(pid_t pid);
// Whether the process `p` names still runs (same PID, same start time, not a zombie).
bool still_running(const ProcessIdentity& p);

// In the worker and in ako: when $AKO_ANCESTOR names a process, ends this one (stderr line from
// `who`, then _exit(`status`)) as soon as that process is gone, at once when it is already
// gone. With `take_over`, $AKO_ANCESTOR then names this process, for what it starts. Call first
// in main, before any other thread exists (it sets the environment).
void exit_with_ancestor(const char* who, int status, bool take_over);

}  // namespace ako::exec
