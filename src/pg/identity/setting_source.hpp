// Where a setting's value comes from, as pg_settings' source and
// sourcefile tell it: for the node value and machine name, a file of this
// host outside the data directory is what a copy of the data directory
// does not carry.
#pragma once

#include "pg_boundary.hpp"

namespace locality_pg {

enum class SettingSource : uint8 {
    host_file,            // a configuration file outside the data directory
    data_directory_file,  // postgresql.auto.conf (ALTER SYSTEM) or another file in the data directory
    command_line,         // postgres -c, PGOPTIONS of the postmaster's environment
    not_set,              // the default
    other,
};

// The source of setting `name`, and a description into buf ("file PATH",
// "data directory file PATH", "command line", "default").
SettingSource setting_source(const char *name, char *buf, size_t size);

}  // namespace locality_pg
