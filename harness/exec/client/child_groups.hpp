#pragma once
// The process groups of the children ako has running (workers, compute-sanitizer, ncu), so that
// an ako stopped by a signal leaves none of them behind:
//   SIGINT, SIGTERM, SIGHUP  the handler installed by kill_children_on_termination_signals()
//                            kills every tracked group (the child and whatever it started),
//                            then ako dies of the signal as it would have (status 128+N);
//   SIGKILL                  cannot be caught: each child has PR_SET_PDEATHSIG = SIGKILL
//                            (ChildProcess::spawn), so the kernel kills it when ako dies.
// Nothing is written on the way out: every file ako writes is complete whenever it dies
// (atomic renames, whole DB lines, the iterate journal), and the next call finishes the rest.
#include <sys/types.h>

namespace ako::exec {

// Async-signal-safe registry (a fixed array of atomics). A full registry drops the entry: the
// child's PR_SET_PDEATHSIG still covers it.
void track_child_group(pid_t pgid);
void untrack_child_group(pid_t pgid);

// How many groups are tracked now (for tests).
int tracked_child_groups();

// Installs the handler for SIGINT, SIGTERM and SIGHUP (idempotent; signals that are ignored
// when ako starts, as under nohup, stay ignored). Call before any child is started. A process
// forked from ako without exec (an NVRTC compile child) inherits the handler, which then only
// dies of the signal: the groups belong to the process that installed it.
void kill_children_on_termination_signals();

}  // namespace ako::exec
