// Commands of the parts a build leaves out (-DXPUPERF_WITH_BENCHMARKS=OFF, ...): they stay in
// --help and, given any arguments, say why they cannot run instead of being unknown.
#include <iostream>

#include "command_wiring.h"

namespace xpuperf::cli {

void AddUnavailableCommand(CLI::App& app, CommandActions& actions, const std::string& name,
                           const std::string& description, const std::string& reason) {
  CLI::App* command = app.add_subcommand(name, description + " (not in this build)");
  command->allow_extras();
  actions.push_back({command, [name, reason] {
                       std::cerr << "xpuperf " << name << ": error: unsupported: " << reason
                                 << "\n";
                       return kExitFailure;
                     }});
}

}  // namespace xpuperf::cli
