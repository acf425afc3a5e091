#pragma once
// The few MPI calls ako-mpi-tune makes, on MPI_COMM_WORLD, as text messages (JSON), each
// call under one process-wide mutex: rank 0 talks to each rank from that rank's lane thread
// (search::SplitEvaluator), so MPI runs at MPI_THREAD_SERIALIZED. Receives are polled
// (MPI_Iprobe) so that a silent rank can time out: Open MPI 4 has no fault tolerance (ULFM),
// and a receive from a dead rank would wait forever.
#include <optional>
#include <string>

namespace ako::mpi {

enum Tag : int {
  kHello = 1,   // rank -> 0: its context, lanes and host, or why it cannot tune
  kWork = 2,    // 0 -> rank: requests to evaluate
  kBeat = 3,    // rank -> 0: still evaluating (every kBeatSeconds)
  kDone = 4,    // rank -> 0: the records (and, when its lanes were lost, why)
  kStop = 5,    // 0 -> rank: the search is over
};

inline constexpr double kBeatSeconds = 1.0;

// MPI_Init_thread (SERIALIZED) on construction; MPI_Finalize on finalize(). Throws ako::Error
// when MPI cannot give SERIALIZED.
class MpiLink {
 public:
  MpiLink(int* argc, char*** argv);
  int rank() const { return rank_; }
  int size() const { return size_; }
  void send(int to, Tag tag, const std::string& text);
  // Sends without waiting for delivery (to a rank that may be dead); the request is abandoned.
  void send_and_forget(int to, Tag tag, const std::string& text);
  // Sends and waits up to timeout_s for the send to complete; false when it did not (the
  // receiver is gone: a large message waits for a receive that never comes), the request then
  // abandoned as send_and_forget's.
  bool send_within(int to, Tag tag, const std::string& text, double timeout_s);
  // A message from `from` (any tag) when one is waiting; nullopt otherwise. Never blocks.
  std::optional<std::pair<Tag, std::string>> poll(int from);
  void finalize();
  static std::string host_name();

 private:
  int rank_ = 0, size_ = 1;
};

}  // namespace ako::mpi
