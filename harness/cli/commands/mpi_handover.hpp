#pragma once
// `ako tune` across hosts runs in ako-mpi-tune, the only binary that links libmpi (ako itself
// must start where there is none: build_notes.md). `ako tune --mpi ...`, or `ako tune` started
// as one rank of several by mpirun, becomes ako-mpi-tune (exec, same arguments less --mpi, same
// environment, so the rank's MPI_Init finds its launcher).
namespace ako::cli {

// One rank of several in an MPI job: OMPI_COMM_WORLD_SIZE (Open MPI) or PMI_SIZE over 1.
bool under_mpi_launcher();

// Whether argv is `tune ...` that belongs to ako-mpi-tune (--mpi, or under an MPI launcher).
bool wants_mpi_tune(int argc, char** argv);

// Execs ako-mpi-tune beside this ako. Returns only when it cannot: the exit status (2) after
// saying that this build has no MPI and how to get one.
int hand_over_to_mpi_tune(int argc, char** argv);

}  // namespace ako::cli
