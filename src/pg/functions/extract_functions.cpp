// Reading a Locality UUID's fields back.  IMMUTABLE STRICT PARALLEL SAFE; a
// uuid whose version nibble is not 'b' yields NULL, as PostgreSQL's own
// uuid_extract_timestamp does for other versions.
#include "pg_boundary.hpp"

#include "generator.hpp"
#include "locality_id.hpp"

namespace {

// Decodes argument 0, or returns false for a non-Locality UUID.
bool locality_arg(FunctionCallInfo fcinfo, locality::LocalityFields *fields) {
    const locality::Uuid16 u = locality_pg::uuid_arg(fcinfo, 0);
    if (!locality::is_locality(u)) return false;
    *fields = locality::decode_locality(u);
    return true;
}

}  // namespace

LOCALITY_SQL_FUNCTION(locality_uuid_timestamp) {
    locality::LocalityFields f;
    if (!locality_arg(fcinfo, &f)) PG_RETURN_NULL();
    return locality_pg::timestamptz_from_unix_micros(static_cast<int64>(f.millis) * 1000);
}

LOCALITY_SQL_FUNCTION(locality_uuid_pid) {
    locality::LocalityFields f;
    if (!locality_arg(fcinfo, &f)) PG_RETURN_NULL();
    PG_RETURN_INT32(f.pid);
}

LOCALITY_SQL_FUNCTION(locality_uuid_mac) {
    locality::LocalityFields f;
    if (!locality_arg(fcinfo, &f)) PG_RETURN_NULL();
    std::uint8_t mac[6];
    locality::mac_from_node(f.node, mac);
    return locality_pg::macaddr_datum(mac);
}

LOCALITY_SQL_FUNCTION(locality_uuid_node) {
    locality::LocalityFields f;
    if (!locality_arg(fcinfo, &f)) PG_RETURN_NULL();
    PG_RETURN_INT32(static_cast<int32>(f.node));
}

// locality_uuid_counter(id uuid, sequential boolean DEFAULT false): the id
// has no mode bit, so the caller says how its counter was written.
LOCALITY_SQL_FUNCTION(locality_uuid_counter) {
    locality::LocalityFields f;
    if (!locality_arg(fcinfo, &f)) PG_RETURN_NULL();
    const auto mode = PG_GETARG_BOOL(1) ? locality::Mode::sequential : locality::Mode::variable;
    PG_RETURN_INT64(static_cast<int64>(locality::counter_of(f, mode)));
}

// The version nibble as one hex character, for any uuid ('b' for ours).
LOCALITY_SQL_FUNCTION(locality_uuid_version) {
    const locality::Uuid16 u = locality_pg::uuid_arg(fcinfo, 0);
    const char digit[2] = {"0123456789abcdef"[locality::version_nibble(u)], '\0'};
    PG_RETURN_TEXT_P(cstring_to_text(digit));
}
