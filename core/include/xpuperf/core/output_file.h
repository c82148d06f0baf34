// The one policy for every file xpuperf writes (reports, results, traces, exports), in one place.
// docs/POLICIES.md states it for users:
//   - "-" is standard output.
//   - A path that does not exist or names a regular file is written atomically: into a temporary
//     file in the same directory ("<name>.tmp-<pid>-<n>"), renamed over the target only once every
//     byte was written and flushed. Readers never see half a file; a failure or a cancellation
//     leaves the previous file (or nothing) and removes the temporary.
//   - A symbolic link is followed: the file it points to is written (atomically, next to that file)
//     and the link itself stays a link. A dangling link, or a loop of links, is refused.
//   - A character device (/dev/null, /dev/stdout, a terminal) or a FIFO is written directly and
//     never replaced by a file; a write error there (ENOSPC on /dev/full) is an error.
//   - A directory, a block device or a socket is refused.
// Writability (the directory exists and may be written, the target is not a directory...) is
// checked by PrepareOutput before the work starts, so a long run never ends in an unwritable path.
//
// Thread-safety: distinct OutputFile objects may be used from distinct threads; one object is not
// synchronised.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "xpuperf/core/status.h"

namespace xpuperf {

enum class OutputKind {
  kStdout,   // "-": standard output
  kRegular,  // written atomically through a temporary file and a rename
  kDirect,   // a character device or FIFO, opened and written in place
};

struct OutputTarget {
  std::string path;      // as given (used in messages)
  std::string resolved;  // after following symbolic links: the file actually written
  OutputKind kind = OutputKind::kRegular;
};

// Applies the policy to `path` without writing anything: kInvalidArgument naming the path and the
// reason (a directory, a dangling link, a loop, a missing or unwritable directory...).
Result<OutputTarget> PrepareOutput(const std::string& path);

// A file being written under the policy. Open, Write (or use stream()), then Commit; an object
// destroyed without a successful Commit removes its temporary file and leaves the target as it was.
class OutputFile {
 public:
  static Result<OutputFile> Open(const std::string& path);

  OutputFile(OutputFile&& other) noexcept;
  OutputFile& operator=(OutputFile&& other) noexcept;
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  ~OutputFile();

  // Appends bytes; kIo naming the path on a failed write (the error is also kept for Commit).
  Status Write(std::string_view bytes);
  // The underlying stdio stream, for writers that format as they go. Valid until Commit.
  std::FILE* stream() { return file_; }
  // Flushes, closes and (for regular files) renames into place. kIo on any failed write, flush,
  // close or rename; the temporary file is removed on failure.
  Status Commit();
  // Removes the temporary file without touching the target (also done by the destructor).
  void Abandon();

  const OutputTarget& target() const { return target_; }
  // The temporary file's path ("" unless kind is kRegular).
  const std::string& temporary_path() const { return temporary_; }

 private:
  OutputFile() = default;

  OutputTarget target_;
  std::string temporary_;
  std::FILE* file_ = nullptr;
  int cleanup_slot_ = -1;  // in the cancellation handler's list of temporary files
};

// Refuses an output that is one of the command's input files: the same file (device and inode,
// through symbolic and hard links). A command that reads a directory passes the files it reads
// there. kInvalidArgument "cannot write OUT: it is the input IN; choose another path". Ok when
// the output does not exist yet, is "-", or is a character device or FIFO (written in place,
// never replaced). Empty inputs are skipped.
Status CheckOutputIsNotAnInput(const std::string& output, const std::vector<std::string>& inputs);
// The files a command reads at `path`, for CheckOutputIsNotAnInput: `path` itself unless it is a
// directory; else the entries directly inside whose names end with one of `suffixes`.
std::vector<std::string> InputFilesAt(const std::string& path,
                                      const std::vector<std::string>& suffixes);

// Writes `contents` to `path` under the policy (Open + Write + Commit).
Status WriteOutputFile(const std::string& path, std::string_view contents);

// Flushes standard output and reports whether everything written to it arrived: kIo "standard
// output: No space left on device" for `> /dev/full`, a closed pipe and similar. Commands call it
// before exiting 0.
Status FlushStandardOutput();

}  // namespace xpuperf
