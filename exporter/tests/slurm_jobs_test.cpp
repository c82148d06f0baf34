// Slurm job attribution: job ids, cgroup paths, environments, the mapping directory and its
// ownership rule, the refreshed cache, and the snapshot's xpuperf_job_info and job_id labels.
#include "xpuperf/exporter/slurm_jobs.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "snapshot_builder.h"

namespace xpuperf::exporter {
namespace {

namespace fs = std::filesystem;

TEST(SlurmJobsTest, JobIdsAndNames) {
  EXPECT_TRUE(IsSlurmJobId("4711"));
  EXPECT_TRUE(IsSlurmJobId("4711_3"));
  EXPECT_TRUE(IsSlurmJobId("4711+1"));
  EXPECT_FALSE(IsSlurmJobId(""));
  EXPECT_FALSE(IsSlurmJobId("4711_"));
  EXPECT_FALSE(IsSlurmJobId("47a1"));
  EXPECT_FALSE(IsSlurmJobId("1; rm -rf /"));
  EXPECT_FALSE(IsSlurmJobId(std::string(33, '1')));
  EXPECT_TRUE(IsSlurmName("alice.b-2_x"));
  EXPECT_FALSE(IsSlurmName("bob smith"));
  EXPECT_FALSE(IsSlurmName("x\"}"));
}

TEST(SlurmJobsTest, TheJobOfACgroup) {
  // cgroup v1 (proctrack/cgroup): every controller of the job's step.
  EXPECT_EQ(SlurmJobIdFromCgroup("12:pids:/\n"
                                 "6:freezer:/slurm/uid_1000/job_4711/step_batch\n"
                                 "4:memory:/slurm/uid_1000/job_4711/step_batch/task_0\n"),
            "4711");
  // cgroup v2 (Slurm 22.05's cgroup/v2 plugin), and a slurmd of its own per node name.
  EXPECT_EQ(SlurmJobIdFromCgroup("0::/system.slice/slurmstepd.scope/job_88/step_0/user/task_0\n"),
            "88");
  EXPECT_EQ(SlurmJobIdFromCgroup("0::/slurm_node7/uid_0/job_9_2/step_0\n"), "9_2");
  // Not a job: no Slurm component, or a job_ component outside one.
  EXPECT_EQ(SlurmJobIdFromCgroup("0::/user.slice/user-1000.slice/session-3.scope\n"), std::nullopt);
  EXPECT_EQ(SlurmJobIdFromCgroup("0::/docker/job_12\n"), std::nullopt);
  EXPECT_EQ(SlurmJobIdFromCgroup("garbage"), std::nullopt);
}

// /proc/PID/environ: NUL-separated entries.
std::string Environ(const std::vector<std::string>& entries) {
  std::string text;
  for (const std::string& entry : entries) text += entry + '\0';
  return text;
}

TEST(SlurmJobsTest, TheJobOfAnEnvironment) {
  const std::string environ = Environ(
      {"PATH=/bin", "SLURM_JOB_ID=4711", "SLURM_JOB_USER=alice", "SLURM_JOB_PARTITION=gpu"});
  auto job = SlurmJobFromEnviron(environ);
  ASSERT_TRUE(job.has_value());
  EXPECT_EQ(job->job_id, "4711");
  EXPECT_EQ(job->user, "alice");
  EXPECT_EQ(job->partition, "gpu");
  EXPECT_EQ(job->source, "environment");
  EXPECT_EQ(SlurmJobFromEnviron(Environ({"SLURM_JOBID=12"}))->job_id, "12");
  EXPECT_EQ(SlurmJobFromEnviron(Environ({"SLURM_JOB_ID=x"})), std::nullopt);
  EXPECT_EQ(SlurmJobFromEnviron(""), std::nullopt);
}

TEST(SlurmJobsTest, WorkloadIdentityFromAnAllowList) {
  const std::string environ =
      Environ({"RANK=3", "LOCAL_RANK=1", "WORLD_SIZE=16", "SECRET=abc", "JOB_ID=train 7",
               "TORCHELASTIC_RUN_ID=" + std::string(129, 'x')});
  const Labels labels = EnvironmentLabels(environ, DefaultEnvironmentLabels());
  EXPECT_EQ(labels.ToString(), "{env_local_rank=\"1\",env_rank=\"3\",env_world_size=\"16\"}");
  EXPECT_TRUE(EnvironmentLabels(environ, {}).empty());  // nothing asked: nothing read
  EXPECT_EQ(EnvironmentLabels(environ, {"SECRET"}).Get("env_secret"), "abc");
  EXPECT_TRUE(IsEnvironmentName("MY_VAR_2"));
  EXPECT_FALSE(IsEnvironmentName("2X"));
  EXPECT_FALSE(IsEnvironmentName("A-B"));
  EXPECT_FALSE(IsEnvironmentName(""));
}

class MappingDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("xpuperf_jobmap_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / ".jobs");
    ::chmod(dir_.c_str(), 0755);
    ::chmod((dir_ / ".jobs").c_str(), 0755);
  }
  void TearDown() override { fs::remove_all(dir_); }
  void Write(const fs::path& path, const std::string& text, mode_t mode = 0644) {
    std::ofstream(path) << text;
    ::chmod(path.c_str(), mode);
  }
  fs::path dir_;
};

TEST_F(MappingDirTest, ReadsDcgmExportersLayoutWithUserAndPartition) {
  Write(dir_ / "0", "4711\n4712\nnot-a-job\n4711\n");
  Write(dir_ / "1", "");
  Write(dir_ / "MIG-0a1b", "99\n");
  Write(dir_ / ".jobs" / "4711", "user=alice\npartition=gpu\n");
  Write(dir_ / ".tmp.1", "5\n");  // a prolog's temporary: ignored
  auto mapping = ReadJobMappingDirectory(dir_.string(), ::geteuid());
  ASSERT_TRUE(mapping.ok()) << mapping.error().message;
  ASSERT_EQ(mapping->size(), 2u);  // an empty file maps nothing
  const auto& jobs = mapping->at("0");
  ASSERT_EQ(jobs.size(), 2u);  // the bad line skipped, the repeated one once
  EXPECT_EQ(jobs[0], (SlurmJob{"4711", "alice", "gpu", "mapping_dir"}));
  EXPECT_EQ(jobs[1], (SlurmJob{"4712", "", "", "mapping_dir"}));

  Device gpu;
  gpu.backend = "nvidia";
  gpu.id = "nvidia0";
  gpu.index = 0;
  EXPECT_EQ(JobsOfDevice(*mapping, gpu).size(), 2u);
  Device mig = gpu;
  mig.id = "nvidia0/gi1";
  mig.uuid = "MIG-0a1b";
  mig.partition.parent = "nvidia0";
  ASSERT_EQ(JobsOfDevice(*mapping, mig).size(), 1u);  // by UUID, not its parent's index
  EXPECT_EQ(JobsOfDevice(*mapping, mig)[0].job_id, "99");
  Device cpu;
  cpu.backend = "cpu";
  cpu.id = "cpu0";
  EXPECT_TRUE(JobsOfDevice(*mapping, cpu).empty());
}

TEST_F(MappingDirTest, RefusesWhatAnotherUserCouldWrite) {
  Write(dir_ / "0", "4711\n");
  ::chmod(dir_.c_str(), 0777);
  auto open_dir = ReadJobMappingDirectory(dir_.string(), ::geteuid());
  ASSERT_FALSE(open_dir.ok());
  EXPECT_NE(open_dir.error().message.find("writable by its group or others (mode 777)"),
            std::string::npos)
      << open_dir.error().message;
  ::chmod(dir_.c_str(), 0755);
  Write(dir_ / "0", "4711\n", 0666);
  auto open_file = ReadJobMappingDirectory(dir_.string(), ::geteuid());
  ASSERT_FALSE(open_file.ok());
  EXPECT_EQ(open_file.error().message,
            (dir_ / "0").string() + ": writable by its group or others (mode 666)");
  ::chmod((dir_ / "0").c_str(), 0644);
  // A link could point anywhere: refused, not followed.
  fs::create_symlink("/etc/passwd", dir_ / "1");
  auto linked = ReadJobMappingDirectory(dir_.string(), ::geteuid());
  ASSERT_FALSE(linked.ok());
  EXPECT_EQ(linked.error().message, (dir_ / "1").string() + ": a symbolic link (refused)");
  fs::remove(dir_ / "1");
  // Too large a file.
  Write(dir_ / "2", std::string(70000, '1'));
  auto large = ReadJobMappingDirectory(dir_.string(), ::geteuid());
  ASSERT_FALSE(large.ok());
  EXPECT_NE(large.error().message.find("larger than 65536 bytes"), std::string::npos);
  fs::remove(dir_ / "2");
  // Owned by someone else than root and the exporter's user (uid 4242 stands for that user).
  if (::geteuid() != 0) GTEST_SKIP() << "changing an owner needs root";
  ASSERT_EQ(::chown((dir_ / "0").c_str(), 4242, 4242), 0);
  auto foreign = ReadJobMappingDirectory(dir_.string(), 0);
  ASSERT_FALSE(foreign.ok());
  EXPECT_NE(foreign.error().message.find("owned by uid 4242"), std::string::npos);
  EXPECT_EQ(ReadJobMappingDirectory((dir_ / "missing").string(), 0).error().code,
            ErrorCode::kNotFound);
}

// A /proc of two processes: one in a job's cgroup with its environment, one outside any job.
TEST_F(MappingDirTest, TheCacheResolvesProcessesAtItsNextRefreshAndForgetsExitedOnes) {
  const fs::path root = dir_ / "root";
  fs::create_directories(root / "proc/100");
  fs::create_directories(root / "proc/200");
  Write(root / "proc/100/cgroup", "6:freezer:/slurm/uid_0/job_31/step_batch\n");
  Write(root / "proc/100/environ",
        Environ({"SLURM_JOB_ID=31", "SLURM_JOB_USER=root", "SLURM_JOB_PARTITION=debug", "RANK=5"}));
  Write(root / "proc/200/cgroup", "0::/\n");
  Write(dir_ / "0", "30\n");
  SlurmJobsOptions options;
  options.mapping_dir = dir_.string();
  options.root = root.string();
  options.refresh_seconds = 3600;  // refreshed by hand
  options.environment_labels = {"RANK"};
  std::vector<std::string> said;  // each change of the directory's state, once
  options.on_mapping_change = [&said](const std::string& problem) { said.push_back(problem); };
  auto jobs = SlurmJobs::Start(options);
  EXPECT_EQ(said, std::vector<std::string>{""});   // read at start
  EXPECT_EQ(jobs->ForProcess(100), std::nullopt);  // noted, looked up at the next refresh
  EXPECT_EQ(jobs->ForProcess(200), std::nullopt);
  jobs->Refresh();
  EXPECT_EQ(jobs->ForProcess(100), (SlurmJob{"31", "root", "debug", "cgroup"}));
  EXPECT_EQ(jobs->ForProcess(200), std::nullopt);  // alive, in no job
  EXPECT_EQ(jobs->LabelsOfProcess(100).Get("env_rank"), "5");
  EXPECT_TRUE(jobs->LabelsOfProcess(200).empty());
  EXPECT_EQ(jobs->state().environ_unreadable, 1u);  // 200 has no environ file here
  EXPECT_EQ(jobs->state().processes, 2u);
  EXPECT_EQ(jobs->state().processes_in_jobs, 1u);
  EXPECT_EQ(jobs->state().devices_mapped, 1u);

  // The snapshot: a job_info series per (device, job) and job_id on the process's series.
  Device gpu;
  gpu.backend = "nvidia";
  gpu.id = "nvidia0";
  auto collection = std::make_shared<Collection>();
  collection->devices = {gpu};
  Reading memory;
  memory.metric = "process_memory_bytes";
  memory.device = "nvidia0";
  for (int pid : {100, 200}) {
    Sample s;
    s.labels.Set("device", "nvidia0");
    s.labels.Set("pid", std::to_string(pid));
    s.value = 1024.0 * pid;
    memory.samples.push_back(s);
  }
  collection->readings = {memory};
  CollectorSnapshot collected;
  collected.backend = "nvidia";
  collected.up = true;
  collected.latest = collection;
  BuildInput input;
  input.collectors = {collected};
  const JobAttribution attribution = jobs->AsAttribution();
  input.jobs = &attribution;
  const BuildOutput out = BuildSnapshot(input);
  std::string text;
  for (const MetricFamily& family : out.snapshot.families) {
    if (family.name != "xpuperf_job_info" && family.name != "xpuperf_process_memory_bytes") {
      continue;
    }
    for (const ScalarPoint& p : family.points) text += family.name + p.labels.ToString() + "\n";
  }
  ASSERT_FALSE(text.empty());
  EXPECT_NE(text.find("xpuperf_job_info{backend=\"nvidia\",device=\"nvidia0\",job_id=\"30\",source="
                      "\"mapping_dir\"}"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("job_id=\"31\",partition=\"debug\",source=\"cgroup\",user=\"root\"}"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("xpuperf_process_memory_bytes{backend=\"nvidia\",device=\"nvidia0\","
                      "env_rank=\"5\",job_id=\"31\",pid=\"100\"}"),
            std::string::npos)
      << text;
  EXPECT_NE(
      text.find("xpuperf_process_memory_bytes{backend=\"nvidia\",device=\"nvidia0\",pid=\"200\"}"),
      std::string::npos)
      << text;

  // Made writable by others, the directory is refused and said so once; fixed, said again.
  ::chmod(dir_.c_str(), 0777);
  jobs->Refresh();
  jobs->Refresh();
  ::chmod(dir_.c_str(), 0755);
  jobs->Refresh();
  ASSERT_EQ(said.size(), 3u);
  EXPECT_NE(said[1].find("writable by its group or others"), std::string::npos) << said[1];
  EXPECT_EQ(said[2], "");
  // The job ends: its process exits and the epilog empties the device's file.
  fs::remove_all(root / "proc/100");
  Write(dir_ / "0", "");
  jobs->Refresh();
  EXPECT_EQ(jobs->ForProcess(100), std::nullopt);
  EXPECT_TRUE(jobs->ForDevice(gpu).empty());
  EXPECT_EQ(jobs->state().processes, 1u);
}

}  // namespace
}  // namespace xpuperf::exporter
