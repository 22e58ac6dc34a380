// The machine identity written into Hot Guids: MD5 of the machine name,
// where the name is locality_uuid.machine_name when set, else the host
// name up to its first '.' (what .NET's Environment.MachineName gives on
// Linux, so a .NET service and this server on one host agree).
#pragma once

#include "pg_boundary.hpp"

#include "hot_guid_generator.hpp"

namespace locality_pg {

// Machine bytes and this backend's pid mod 65536; raises an ERROR if the
// host name or MD5 is unavailable.
locality::HotStamp current_hot_stamp();

// The machine name in use (NUL-terminated, in a static buffer).
const char *current_machine_name();

// The machine bytes, without raising anything: false if the host name or
// MD5 is unavailable (the postmaster's start must not fail for them).
bool machine_bytes_quietly(std::uint8_t out[3]);

}  // namespace locality_pg
