// exec/client/gpu_probe: the driver is found (or not) at run time, never linked.
#include "exec/client/gpu_probe.hpp"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <iostream>

namespace ako::exec {
namespace {

bool driver_loadable() {
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib) dlclose(lib);
  return lib != nullptr;
}

TEST(ProbeGpu, ReportsAMissingDriverPlainly) {
  if (driver_loadable()) GTEST_SKIP() << "libcuda.so.1 is present on this machine";
  const GpuProbe p = probe_gpu();
  EXPECT_FALSE(p.available);
  EXPECT_EQ(p.count, 0);
  EXPECT_NE(p.reason.find("libcuda.so.1 could not be loaded"), std::string::npos) << p.reason;
}

TEST(ProbeGpu, DescribesTheDeviceWhenADriverIsPresent) {
  if (!driver_loadable()) GTEST_SKIP() << "no libcuda.so.1 on this machine";
  const GpuProbe p = probe_gpu();
  if (!p.available) {
    // A driver without a visible device (e.g. CUDA_VISIBLE_DEVICES="") must say why.
    EXPECT_FALSE(p.reason.empty());
    return;
  }
  std::cout << "probed: " << p.count << " device(s), device 0 " << p.name << " cc " << p.major << "."
            << p.minor << " -> " << arch_for(p.major, p.minor) << "\n";
  EXPECT_TRUE(p.reason.empty()) << p.reason;
  EXPECT_GE(p.count, 1);
  EXPECT_GE(p.major, 7);
  EXPECT_FALSE(p.name.empty());
}

TEST(ArchFor, UsesArchSpecificTargetsOnlyFor90And10x) {
  EXPECT_EQ(arch_for(9, 0), "sm_90a");
  EXPECT_EQ(arch_for(10, 0), "sm_100a");
  EXPECT_EQ(arch_for(10, 3), "sm_103a");
  EXPECT_EQ(arch_for(8, 0), "sm_80");
  EXPECT_EQ(arch_for(8, 9), "sm_89");
  EXPECT_EQ(arch_for(7, 5), "sm_75");
  EXPECT_EQ(arch_for(12, 0), "sm_120");
  EXPECT_EQ(arch_for(12, 1), "sm_121");
  EXPECT_EQ(arch_for(11, 0), "sm_110");
}

}  // namespace
}  // namespace ako::exec
