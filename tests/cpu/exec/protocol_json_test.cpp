// JSON round trips of the worker protocol (harness/exec/protocol/job.hpp): the job the client
// sends and the events the worker answers with; a job of another protocol version is refused.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "exec/protocol/job.hpp"

namespace ako {
namespace {

TEST(WorkerProtocolJson, JobRoundTrip) {
  exec::WorkerJob job;
  job.support.module = "/tmp/support.cubin";
  job.support.functions["poison:bf16"] = "_Z10ako_poisonI13__nv_bfloat16EvPT_y";
  job.timing.hot = true;
  exec::CaseJob c;
  c.index = 7;
  c.dims = {{"rows", 2}, {"cols", 128}};
  exec::BufferJob x;
  x.name = "x";
  x.count = 256;
  x.dtype = DType::fp16;
  x.error_factor = {1.5, 4};
  c.buffers.push_back(x);
  exec::ArgJob a;
  a.kind = exec::ArgJob::Kind::buffer;
  a.buffer = 0;
  c.reference.args = {a, exec::ArgJob{}, exec::ArgJob{exec::ArgJob::Kind::i32, -1, 128, 0},
                      exec::ArgJob{exec::ArgJob::Kind::f32, -1, 0, 1e-6}};
  c.reference.grid = {2, 1, 1};
  c.solution = c.reference;
  c.oracle = c.reference;   // compare cases carry the oracle for the precision check
  c.time_size_copy = true;
  job.cases.push_back(c);
  const nlohmann::json j = job;
  const auto back = nlohmann::json::parse(j.dump()).get<exec::WorkerJob>();
  EXPECT_EQ(nlohmann::json(back), j);
  EXPECT_EQ(back.cases[0].buffers[0].dtype, DType::fp16);
  EXPECT_EQ(back.cases[0].reference.args[2].i, 128);
  EXPECT_TRUE(back.cases[0].solution.has_value());
  EXPECT_TRUE(back.cases[0].oracle.has_value());
  EXPECT_TRUE(back.cases[0].time_size_copy);
  EXPECT_DOUBLE_EQ(back.cases[0].buffers[0].error_factor.rms, 1.5);
  EXPECT_DOUBLE_EQ(back.cases[0].buffers[0].error_factor.max, 4);
}

TEST(WorkerProtocolJson, MismatchedProtocolIsRefused) {
  nlohmann::json j = exec::WorkerJob{};
  j["protocol"] = "ako.worker/0";
  EXPECT_THROW(j.get<exec::WorkerJob>(), Error);
}

TEST(WorkerProtocolJson, EventRoundTrip) {
  exec::WorkerEvent e;
  e.event = "result";
  e.index = 2;
  CaseResult c;
  c.index = 2;
  c.verdict = Verdict::incorrect;
  c.reason = "out: 3 of 100 elements differ";
  e.result = c;
  const auto back = nlohmann::json::parse(nlohmann::json(e).dump()).get<exec::WorkerEvent>();
  ASSERT_TRUE(back.result.has_value());
  EXPECT_EQ(back.result->verdict, Verdict::incorrect);
  EXPECT_EQ(back.index, 2);
  EXPECT_FALSE(back.device.has_value());
}

}  // namespace
}  // namespace ako
