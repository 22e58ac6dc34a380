// Where a server's counters and node value are bound: the host (a digest
// of its identity), the data directory, the cluster's system identifier,
// and the node value and Hot Guid machine bytes with where each comes
// from. identity/binding.cpp says what this server's binding is now;
// reservations/ keeps the one the counters were last bound to in
// locality_uuid.binding beside the state file, and moves every counter
// past a fresh random point when a server starts somewhere else or after
// replaying another server's WAL (reservations/dealign.cpp): a copy of a
// data directory (a restored backup, a clone) and its origin then continue
// from unrelated places.
#pragma once

#include "pg_boundary.hpp"

#include "counter_cells.hpp"

namespace locality_pg {

// What the binding file says of the counters: bound there; to be moved
// before their first id (written at the start of a server that replays
// another server's WAL, so that a restart after its promotion still
// moves); or moving to the target recorded with it (written before a
// move is applied, so that a move interrupted by a crash is completed
// with the same target, never drawn again: two moves from one mark could
// land near where the first started).
enum class BindingState : uint8 { bound, due, moving };

// Where a move goes: each counter and held run, and the new run start.
struct MoveTarget {
    uint64 variable;
    uint64 explicit_sequential;
    uint64 hot_guid;
    uint64 runs[locality::kRunSlots];  // 0: the slot holds no run
    uint32 run_start;
};

struct Binding {
    char host[33];              // 32 hex digits of the host identity's digest; "" unknown
    char host_source[MAXPGPATH + 32];  // "machine-id and host name", "host name", "file PATH"
    char data_directory[MAXPGPATH];
    uint64 system_identifier;   // 0: unknown
    int32 node;                 // -1: unknown
    char node_source[MAXPGPATH + 32];  // "file PATH", "data directory file PATH", "command line", "mac IFACE", "none"
    char machine[7];            // 6 hex digits of the Hot Guid machine bytes; "" unknown
    char machine_source[MAXPGPATH + 32];  // as node_source, or "host name"
    int64 since;                // Unix seconds it was bound at; 0 unknown
    uint32 run_start;           // bound, moving: where window runs start (below 2^24); due: the origin's
    BindingState state;
    MoveTarget target;          // moving only
};

// This host's identity as text (locality_uuid.host_identity_file's first
// line, or "machine-id and host name (HOST)"): what a lease records beside
// its digest.
void current_host_label(char *buf, size_t size);

// This server's binding now (node and machine as the settings say), with
// `since` the current time and run_start 0 (a binding's own is drawn when
// it is made: dealign.hpp). Called by the postmaster at start and at the
// end of recovery, and by a backend that finds the node value or machine
// name reloaded.
void current_binding(Binding *out);

// Whether locality_uuid.host_identity_file is set and cannot be read now
// (read again at each call): the host is then unknown, which is an error
// to fix, not another host.
bool host_identity_unreadable();

// Whether two bindings are the same place: host, data directory (as
// resolved: realpath) and system identifier, all known and equal. A move
// or a copy changes at least one; a new node value or machine name does
// not.
bool same_place(const Binding &a, const Binding &b);

// Whether the node value, the machine bytes and where each comes from agree
// (a re-key, or a value moved to another file, otherwise).
bool same_values(const Binding &a, const Binding &b);

// One line describing b, for logs: "host 9f00e1aa... (machine-id and host
// name), data directory /srv/pg, system identifier 7301..., node 17 (file
// /etc/...), machine f52bb9 (file /etc/...), since 2026-11-26 20:00:00+00".
void describe_binding(const Binding &b, char *buf, size_t size);

}  // namespace locality_pg
