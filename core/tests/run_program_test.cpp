// Running another program: its output and exit code, a deadline that kills it with its children,
// a program that is not there.
#include "xpuperf/core/run_program.h"

#include <gtest/gtest.h>

namespace xpuperf {
namespace {

TEST(RunProgramTest, OutputAndExitCode) {
  auto r = RunProgram({"sh", "-c", "echo out; echo err >&2; exit 3"});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->exit_code, 3);
  EXPECT_EQ(r->out, "out\n");
  EXPECT_EQ(r->err, "err\n");
}

TEST(RunProgramTest, ADeadlineKillsTheProgramAndItsChildren) {
  // The child keeps the pipe open: the deadline, not the pipe's end, stops the wait.
  RunOptions options;
  options.timeout_seconds = 0.5;
  auto r = RunProgram({"sh", "-c", "sleep 30 & sleep 30"}, options);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("killed"), std::string::npos) << r.error().message;
}

TEST(RunProgramTest, TooMuchOutputAndAMissingProgramAreErrors) {
  RunOptions options;
  options.max_output = 100;
  EXPECT_FALSE(RunProgram({"sh", "-c", "yes | head -c 100000"}, options).ok());
  auto missing = RunProgram({"xpuperf-no-such-program"});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("xpuperf-no-such-program"), std::string::npos);
  EXPECT_FALSE(RunProgram({}).ok());
}

}  // namespace
}  // namespace xpuperf
