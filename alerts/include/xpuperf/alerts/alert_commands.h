// `xpuperf alert check FILE...`, `alert test FILE...` and `alert list`: validate rule files
// against the built-in engine's subset, run promtool-format rule tests with the built-in engine,
// and show the alert states a `serve --rules` instance keeps in its state file.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace xpuperf::alerts {

struct AlertCheckOptions {
  std::vector<std::string> files;
};

struct AlertTestOptions {
  std::vector<std::string> files;
  std::string timeline_out;  // write the engine's full alert timeline as a promtool test file
};

struct AlertListOptions {
  std::string state_file = "/var/lib/xpuperf/alerts.json";
  bool json = false;
};

// 0 when every file is valid, 1 when one is not (its first problem printed with file:line:col).
int RunAlertCheck(const AlertCheckOptions& options, std::ostream& out, std::ostream& err);
// 0 when every test passes, 1 on a failed test or a bad file.
int RunAlertTest(const AlertTestOptions& options, std::ostream& out, std::ostream& err);
// 0 with the table (or JSON), 1 when the state file is missing or malformed.
int RunAlertList(const AlertListOptions& options, std::ostream& out, std::ostream& err);

}  // namespace xpuperf::alerts
