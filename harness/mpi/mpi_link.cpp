#include "mpi/mpi_link.hpp"

#include <mpi.h>

#include <chrono>
#include <list>
#include <memory>
#include <mutex>
#include <thread>

#include "common/error.hpp"

namespace ako::mpi {

namespace {
std::mutex& calls() {
  static std::mutex m;
  return m;
}
}  // namespace

MpiLink::MpiLink(int* argc, char*** argv) {
  int provided = 0;
  MPI_Init_thread(argc, argv, MPI_THREAD_SERIALIZED, &provided);
  // Errors come back as codes (a send to a rank that died), never abort the job.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  if (provided < MPI_THREAD_SERIALIZED) throw Error("this MPI cannot be called from several threads (MPI_THREAD_SERIALIZED)");
}

void MpiLink::send(int to, Tag tag, const std::string& text) {
  const std::lock_guard<std::mutex> lock(calls());
  if (MPI_Send(text.data(), static_cast<int>(text.size()), MPI_CHAR, to, tag, MPI_COMM_WORLD) != MPI_SUCCESS)
    throw Error("MPI_Send to rank " + std::to_string(to) + " failed");
}

void MpiLink::send_and_forget(int to, Tag tag, const std::string& text) {
  const std::lock_guard<std::mutex> lock(calls());
  static std::list<std::string> kept;  // the buffers must outlive the sends (a list never moves them)
  static char empty = '\0';           // an empty message (rank 0's heartbeat) keeps nothing
  char* data = &empty;
  if (!text.empty()) {
    kept.push_back(text);
    data = kept.back().data();
  }
  MPI_Request req;
  if (MPI_Isend(data, static_cast<int>(text.size()), MPI_CHAR, to, tag, MPI_COMM_WORLD, &req) == MPI_SUCCESS)
    MPI_Request_free(&req);
}

bool MpiLink::send_within(int to, Tag tag, const std::string& text, double timeout_s) {
  auto buffer = std::make_unique<std::string>(text);
  MPI_Request req;
  {
    const std::lock_guard<std::mutex> lock(calls());
    if (MPI_Isend(buffer->data(), static_cast<int>(buffer->size()), MPI_CHAR, to, tag, MPI_COMM_WORLD, &req) !=
        MPI_SUCCESS)
      return false;
  }
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  for (;;) {
    {
      const std::lock_guard<std::mutex> lock(calls());
      int done = 0;
      if (MPI_Test(&req, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) done = 0;
      if (done) return true;
      if (std::chrono::steady_clock::now() >= until) {
        MPI_Request_free(&req);
        static std::list<std::unique_ptr<std::string>> abandoned;  // an abandoned send may still read it
        abandoned.push_back(std::move(buffer));
        return false;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

std::optional<std::pair<Tag, std::string>> MpiLink::poll(int from) {
  const std::lock_guard<std::mutex> lock(calls());
  int flag = 0;
  MPI_Status st;
  if (MPI_Iprobe(from, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st) != MPI_SUCCESS || !flag) return std::nullopt;
  int count = 0;
  MPI_Get_count(&st, MPI_CHAR, &count);
  std::string text(static_cast<size_t>(count), '\0');
  MPI_Recv(text.data(), count, MPI_CHAR, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return std::make_pair(static_cast<Tag>(st.MPI_TAG), std::move(text));
}

void MpiLink::finalize() { MPI_Finalize(); }

std::string MpiLink::host_name() {
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int len = 0;
  MPI_Get_processor_name(name, &len);
  return std::string(name, static_cast<size_t>(len));
}

}  // namespace ako::mpi
