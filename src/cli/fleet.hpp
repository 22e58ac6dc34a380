// The fleet commands of the CLI (fleet.cpp): `node claim`, `fleet audit`,
// `fleet scan`. Each returns the exit status: 0 ok, 1 problems found (or a
// claim or read that failed), 2 bad usage.
#pragma once

namespace locality_cli {

int node_command(int argc, char **argv);
int fleet_command(int argc, char **argv);

}  // namespace locality_cli
