// locality_uuid.binding: where the counters in locality_uuid.state were
// last bound (binding.hpp), beside it in the data directory, as text a DBA
// can read. A file of its own, so that the state file's format, which
// older libraries read, stays as it was.
#pragma once

#include "pg_boundary.hpp"

#include "binding.hpp"

namespace locality_pg {

constexpr const char *kBindingFile = "locality_uuid.binding";

enum class BindingRead : uint8 { ok, missing, corrupt, io_error };

// Reads it from the current directory (the data directory).
BindingRead read_binding_file(Binding *b);

// Writes it durably (a temporary file, fsynced, renamed, the directory
// fsynced); false, errno set, if it could not. Raises nothing.
bool write_binding_file(const Binding &b);

}  // namespace locality_pg
