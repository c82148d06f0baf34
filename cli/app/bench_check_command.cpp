// Placeholder until the command is wired: adds nothing to the command line.
#include "command_wiring.h"

namespace xpuperf::cli {

void AddBenchCheckCommand(CLI::App& bench, CommandActions& actions) {
  (void)bench;
  (void)actions;
}

}  // namespace xpuperf::cli
