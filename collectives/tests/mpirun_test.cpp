// Finding mpirun and building its command line (no MPI involved).
#include "xpuperf/collectives/mpirun.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace xpuperf::collectives {
namespace {

namespace fs = std::filesystem;

TEST(MpirunTest, FindsTheFirstExecutableOnPath) {
  const fs::path dir = fs::temp_directory_path() / ("xpuperf_path_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "a");
  fs::create_directories(dir / "b");
  std::ofstream(dir / "a" / "mpirun") << "not executable\n";
  std::ofstream(dir / "b" / "mpirun") << "#!/bin/sh\n";
  chmod((dir / "b" / "mpirun").c_str(), 0755);
  const std::string path = (dir / "a").string() + "::" + (dir / "b").string();
  EXPECT_EQ(FindProgramOnPath("mpirun", path), (dir / "b" / "mpirun").string());
  EXPECT_EQ(FindProgramOnPath("mpirun", (dir / "a").string()), "");
  EXPECT_EQ(FindProgramOnPath("mpirun", ""), "");
  fs::remove_all(dir);
}

TEST(MpirunTest, CommandAllowsRootAndOversubscription) {
  EXPECT_EQ(MpirunCommand("/usr/bin/mpirun", 4, "/x/xpuperf", {"bench", "network"}),
            (std::vector<std::string>{"/usr/bin/mpirun", "--allow-run-as-root", "--oversubscribe",
                                      "-np", "4", "/x/xpuperf", "bench", "network"}));
}

TEST(MpirunTest, RunProgramReturnsTheExitCode) {
  EXPECT_EQ(*RunProgram({"/bin/sh", "-c", "exit 3"}), 3);
  EXPECT_EQ(*RunProgram({"/bin/sh", "-c", "true"}), 0);
  EXPECT_FALSE(RunProgram({"/nonexistent/program"}).ok());
}

TEST(MpirunTest, LauncherRankComesFromTheEnvironment) {
  if (StartedByMpiLauncher()) GTEST_SKIP() << "running under an MPI launcher";
  EXPECT_EQ(LauncherRank(), -1);
  setenv("PMI_RANK", "3", 1);
  EXPECT_EQ(LauncherRank(), 3);
  EXPECT_TRUE(StartedByMpiLauncher());
  unsetenv("PMI_RANK");
  EXPECT_FALSE(StartedByMpiLauncher());
}

TEST(MpirunTest, SelfExecutableIsTheWrapperWhenOneNamesItself) {
  if (std::getenv("XPUPERF_EXECUTABLE") != nullptr) GTEST_SKIP() << "started through a wrapper";
  const std::string self = fs::read_symlink("/proc/self/exe").string();
  EXPECT_EQ(SelfExecutable(), self);
  setenv("XPUPERF_EXECUTABLE", "/opt/xpuperf-gpu/bin/xpuperf", 1);
  EXPECT_EQ(SelfExecutable(), "/opt/xpuperf-gpu/bin/xpuperf");
  setenv("XPUPERF_EXECUTABLE", "", 1);
  EXPECT_EQ(SelfExecutable(), self);
  unsetenv("XPUPERF_EXECUTABLE");
}

}  // namespace
}  // namespace xpuperf::collectives
