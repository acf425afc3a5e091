#pragma once
// Every rank but 0: builds the lanes of its host's GPUs (or compile-only lanes) as `ako tune`
// would, says hello to rank 0 (its records' context, which must equal rank 0's, its lanes, its
// host), then evaluates what rank 0 sends, heartbeating while it works, until rank 0 says stop.
#include "cli/commands/tune_command.hpp"
#include "mpi/mpi_link.hpp"

namespace ako::mpi {

// Returns whether the job ends with MPI_Finalize (rank 0's word: not when a rank was lost,
// whose absence would hang it).
bool serve_rank(MpiLink& link, const cli::TuneCommandOptions& opt);

}  // namespace ako::mpi
