// The C++/PostgreSQL boundary.
//
// PostgreSQL reports errors with longjmp, which skips C++ destructors, and it
// knows nothing of C++ exceptions.  So, in every file under src/pg/:
//  * the whole extension is compiled with -fno-exceptions -fno-rtti (see
//    Makefile): no exception exists that could reach PostgreSQL;
//  * src/core functions are noexcept, never allocate with new, never call
//    PostgreSQL; they return status codes, which the glue turns into ereport;
//  * SQL entry points only hold trivially destructible values (ints, Uuid16,
//    plain structs), so a longjmp out of ereport, palloc or
//    CHECK_FOR_INTERRUPTS leaves nothing behind.
// This header is the single place PostgreSQL headers enter C++.
#pragma once

// The module is compiled with -fvisibility=hidden: only what PostgreSQL
// looks up (SQL functions, the magic block, _PG_init) is exported, and calls
// inside the module are direct, not through the PLT. PostgreSQL 16+ defines
// PGDLLEXPORT this way itself; 15 leaves it empty unless it is predefined.
#ifndef PGDLLEXPORT
#define PGDLLEXPORT __attribute__((visibility("default")))
#endif

extern "C" {
#include "postgres.h"

#include "common/int.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "port/atomics.h"
#include "storage/condition_variable.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/inet.h"
#include "utils/timestamp.h"
#include "utils/uuid.h"
}

#include <cstring>

#include "uuid16.hpp"

// SQL-callable functions need C linkage and PostgreSQL's V1 calling
// convention (PG_FUNCTION_ARGS, spelled out: functions without arguments
// leave fcinfo unused, which -Wextra would flag).
#define LOCALITY_SQL_FUNCTION(name) \
    extern "C" {                    \
    PG_FUNCTION_INFO_V1(name);      \
    }                               \
    extern "C" PGDLLEXPORT Datum name([[maybe_unused]] FunctionCallInfo fcinfo)

namespace locality_pg {

inline locality::Uuid16 uuid_arg(FunctionCallInfo fcinfo, int n) {
    locality::Uuid16 u;
    std::memcpy(u.bytes, PG_GETARG_UUID_P(n)->data, 16);
    return u;
}

inline Datum uuid_datum(const locality::Uuid16 &u) {
    auto *out = static_cast<pg_uuid_t *>(palloc(sizeof(pg_uuid_t)));
    std::memcpy(out->data, u.bytes, 16);
    return UUIDPGetDatum(out);
}

inline Datum macaddr_datum(const std::uint8_t mac[6]) {
    auto *out = static_cast<macaddr *>(palloc(sizeof(macaddr)));
    out->a = mac[0];
    out->b = mac[1];
    out->c = mac[2];
    out->d = mac[3];
    out->e = mac[4];
    out->f = mac[5];
    return MacaddrPGetDatum(out);
}

// Microseconds between the Unix epoch and PostgreSQL's (2000-01-01).
constexpr int64 kUnixToPgEpochMicros =
    int64{POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE} * SECS_PER_DAY * USECS_PER_SEC;

// A finite timestamptz as Unix microseconds; false for +-infinity or a value
// too large to shift (beyond every range this extension accepts anyway).
inline bool unix_micros_of(TimestampTz ts, int64 *out) {
    if (TIMESTAMP_NOT_FINITE(ts)) return false;
    return !pg_add_s64_overflow(ts, kUnixToPgEpochMicros, out);
}

inline Datum timestamptz_from_unix_micros(int64 unix_micros) {
    return TimestampTzGetDatum(unix_micros - kUnixToPgEpochMicros);
}

// Unix milliseconds as this session prints a timestamptz (for messages).
inline const char *unix_millis_text(int64 unix_millis) {
    int64 micros;
    if (pg_mul_s64_overflow(unix_millis - kUnixToPgEpochMicros / 1000, 1000, &micros)) return "(beyond any timestamp)";
    return timestamptz_to_str(micros);
}

}  // namespace locality_pg
