// Placeholder until the command is wired: adds nothing to the command line.
#include "command_wiring.h"

namespace xpuperf::cli {

void AddCompareCommand(CLI::App& app, CommandActions& actions) {
  (void)app;
  (void)actions;
}

}  // namespace xpuperf::cli
