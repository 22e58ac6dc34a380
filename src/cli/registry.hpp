// The fleet's registry of node values (doc/fleets.md): plain tables in a
// schema of any PostgreSQL database the fleet already has, which the CLI
// creates. Node values come from a sequence that never cycles (1 to
// 2^28 - 1) and are never handed out twice; each claim picks a Hot Guid
// machine name whose MD5 bytes no other claim has (a unique constraint on
// the bytes, not only the names); each row is bound to a host identity
// and a data directory, and a second claim of that pair returns the first.
#pragma once

#include <string>
#include <vector>

#include "pg_client.hpp"

namespace locality_cli {

constexpr const char *kRegistrySchema = "locality_uuid_registry";

struct Claim {
    long long node = 0;
    std::string machine_name;
    std::string machine_bytes;  // 6 hex digits
    std::string host_id;        // 32 hex digits: the digest of the host's identity
    std::string host_label;     // the identity as given (or "machine-id and host name")
    std::string data_directory;
    bool existing = false;      // returned an earlier claim
};

// The digest the server's binding records for a host identity text
// (locality_uuid_binding().host): 32 hex digits of its MD5.
bool host_digest(const std::string &identity, std::string *out);

// This host's identity as a server finds it without
// locality_uuid.host_identity_file: /etc/machine-id and the host name.
bool default_host_identity(std::string *identity, std::string *label);

// Opens the registry: with `create`, makes it if it does not exist and
// updates an older layout (both only as its owner); then checks that it
// can be trusted: the schema and everything in it owned by `owner` (the
// connecting role if empty), no other role able to create in it, write
// its tables or set its sequence, no trigger, rule or row security
// policy, and the unique constraints and sequence limits that keep a
// value from being handed out twice. False and *error otherwise.
bool open_registry(PgConnection &conn, const std::string &owner, bool create, std::string *error);

// One claim (the registry's claim function, one transaction): the live
// claim of (host identity, data directory), or a new one; adopt_node > 0
// takes that value instead (refused if the registry has or had it), with
// adopt_name as its machine name if not empty. What comes back is checked
// (check_claim) before it is returned.
bool claim_node(PgConnection &conn, const std::string &host_identity, const std::string &host_label,
                const std::string &data_directory, long long adopt_node, const std::string &adopt_name, Claim *out,
                std::string *error);

// One transaction: `count` consecutive node values for a StatefulSet (or
// any set of ordinals): host identities "<label>/0" .. "<label>/<count-1>",
// each with its own machine name; the existing block if there is one.
bool claim_block(PgConnection &conn, const std::string &label, const std::string &data_directory, int count,
                 std::vector<Claim> *out, std::string *error);

// The registry's rows, for the audit and the scan.
struct Registered {
    long long node;
    std::string machine_name, machine, host_id, host_label, data_directory;
    bool retired;
    std::string how;                // claimed, adopted or leased
    std::string system_identifier;  // leases: the cluster's
    std::string started_at;         // leases: its postmaster's start (UTC, ISO 8601)
    long long started_ms = -1;      // leases: the same in Unix milliseconds (-1: none)
};
bool read_registry(PgConnection &conn, std::vector<Registered> *out, std::string *error);

// What the registry has handed out, of what it can: node values (rows and
// the sequence's position) and machine bytes (one per row).
struct Budget {
    long long rows = 0, leases = 0, sequence_at = 0;
};
// What is spent for good (doc/fleets.md, "The budget"), or "": every
// claim and lease from now on fails (nothing gives values back).
inline std::string registry_exhausted(const Budget &b) {
    if (b.sequence_at >= 268435455)
        return "the registry has no node value left: all 268435455 are drawn, and every claim and lease now fails";
    if (b.rows >= 16777216)
        return "the registry has no Hot Guid machine bytes left: all 16777216 are used, and every claim and lease "
               "now fails";
    return "";
}
constexpr const char *kExhaustedFix =
    "nothing gives values back, and a second registry would hand out this one's again: this fleet's servers "
    "keep the values they hold; plan from the budget (doc/fleets.md, \"The budget\")";
bool read_budget(PgConnection &conn, Budget *out, std::string *error);

// The roles, quoted and comma-separated ("" for none), that are members of
// pg_read_all_data (14+) and act neither as the registry's owner (`owner`,
// or the connecting role if empty) nor as superusers: it may use every
// schema, the private one included, and so name the registry's tables and
// hold locks on them (doc/fleets.md, "Who may do what"). A warning, not a
// refusal: backups need that role.
bool wide_readers(PgConnection &conn, const std::string &owner, std::string *roles, std::string *error);

// Moves the node values past `past`, never back (the repair after the
// registry went back: doc/fleets.md), under the claimers' lock (a lease's
// nextval cannot slip between the read and the setval), committed as a claim
// is. *drawn: the last value drawn before ("none"); *moved: whether it moved.
// On failure *error says whether the values may have moved all the same
// (setval is not undone by a rollback).
bool move_registry_past(PgConnection &conn, long long past, std::string *drawn, bool *moved, std::string *error);

// The registry layout this build makes and reads (registry_sql.hpp).
int registry_layout();

// The audit's mark on the claims it found live where they were claimed
// (the registry's seen function); false if the role may not run it.
bool mark_seen(PgConnection &conn, const std::vector<long long> &nodes, const std::vector<std::string> &hosts,
               const std::vector<std::string> &dirs, std::string *error);

// A value a configuration file line can carry: no control characters.
bool valid_setting_value(const std::string &text);

// Whether a machine name may be written into a configuration file (and
// the registry holds it): letters, digits, '.', '_', '-', 1 to 63.
bool valid_machine_name(const std::string &name);

// A data directory as the server names it: absolute, without '.', '..',
// repeated or trailing slashes (links not followed, as PostgreSQL does).
std::string normalized_directory(const std::string &dir);

// The data directory as the server's binding shows it (resolved through
// symbolic links: realpath) where it exists on this host, as a claim made
// on the host sees it; otherwise normalized_directory's.
std::string resolved_directory(const std::string &dir);

// The node file's text: locality_uuid.node_id and machine_name lines (and
// host_identity_file when given), as README's Node identity section uses.
std::string node_file_text(const Claim &c, const std::string &host_identity_file);

// Writes text to path atomically: a temporary file beside it, fsynced,
// renamed over it, the directory fsynced.
bool write_file_atomically(const std::string &path, const std::string &text, std::string *error);

}  // namespace locality_cli
