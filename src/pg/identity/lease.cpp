// This start's lease (lease.hpp): its place in shared memory, the worker
// that takes it from the registry over libpq, and what ids read of it.
//
// The worker runs from the postmaster's start (a standby takes its own
// lease too), needs no database of this server, and after taking the
// lease stays, idle, until the server stops: a crash restart kills it with
// every other process and starts it again, and the new shared memory holds
// this postmaster's lease already (keep_lease). Every wait is on its latch
// (WaitLatchOrSocket, interruptible, wait event type Extension), with a
// deadline; the one wait libpq makes itself is the resolver's
// (getaddrinfo, in PQconnectStartParams), during which a SIGTERM waits too:
// doc/fleets.md recommends hostaddr for that reason.
#include "identity/lease.hpp"

extern "C" {
#include "access/xlog.h"  // GetSystemIdentifier
#include "miscadmin.h"     // IsBinaryUpgrade
#include "port/pg_crc32c.h"
#include "storage/ipc.h"  // on_shmem_exit
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"  // SignalHandlerForConfigReload
#include "utils/guc.h"  // ProcessConfigFile
#include "tcop/tcopprot.h"  // die
#include "storage/fd.h"  // AcquireExternalFD
#include "storage/latch.h"
#include "storage/spin.h"
#if PG_VERSION_NUM >= 140000
#include "utils/wait_event.h"
#endif
}

#include <libpq-fe.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "answer.hpp"
#include "binding.hpp"
#include "identity/lease_record.hpp"
#include "log_quota.hpp"
#include "registry_sql.hpp"
#include "settings.hpp"
#include "strong_random.hpp"

namespace locality_pg {
namespace {

struct LeaseState {
    // 1 once this start's lease is held: written after the values below
    // (write barrier), read before them (read barrier).
    pg_atomic_uint32 held;
    int32 node;
    char machine_name[64];
    char source[256];    // lease_source()
    // The last attempt that failed, for the error ids get meanwhile (under
    // the spinlock: the worker writes it while backends read it).
    // This start: the shared memory's making (a crash restart makes it
    // anew; PostgreSQL's own start time stays the postmaster's).
    TimestampTz started_at;
    // Of node, machine_name and source, set with them: what a crash restart
    // keeps is checked against it (a crashing process may have written
    // anywhere in shared memory).
    pg_crc32c crc;
    slock_t mutex;
    uint32 attempts;
    TimestampTz failed_at;
    char error[512];
    // The error every id meets until the lease is held: in the server log
    // once per kNoLeaseLogInterval, server-wide (report_no_lease).
    LogQuota no_lease_log;
};

LeaseState *state = nullptr;

// This postmaster's lease, kept across a crash restart: the postmaster is
// one process from its start to its stop (nothing can have copied what it
// holds), and a crash restart is not a start. Copied out of the shared
// memory being discarded (keep_lease, in the postmaster), into the new one
// (lease_shmem_startup). A registry that is down then does not stop ids.
struct KeptLease {
    bool kept;
    int32 node;
    char machine_name[sizeof(((LeaseState *) nullptr)->machine_name)];
    char source[sizeof(((LeaseState *) nullptr)->source)];
};
KeptLease kept_lease;
bool held_from_kept = false;  // the postmaster: this shared memory's lease is kept_lease's

pg_crc32c lease_crc(const LeaseState *s) {
    pg_crc32c crc;
    INIT_CRC32C(crc);
    COMP_CRC32C(crc, &s->node, sizeof s->node);
    COMP_CRC32C(crc, s->machine_name, sizeof s->machine_name);
    COMP_CRC32C(crc, s->source, sizeof s->source);
    FIN_CRC32C(crc);
    return crc;
}

// on_shmem_exit in the postmaster: before a crash restart discards the
// shared memory (registered after the segment's own callbacks, so run
// before them: still attached), or at the server's stop (then unused).
void keep_lease(int, Datum) {
    kept_lease.kept = false;
    if (state == nullptr || pg_atomic_read_u32(&state->held) == 0) return;
    pg_read_barrier();  // the values after the flag
    if (!EQ_CRC32C(lease_crc(state), state->crc)) return;  // damaged: the new memory leases anew
    kept_lease.node = state->node;
    memcpy(kept_lease.machine_name, state->machine_name, sizeof kept_lease.machine_name);
    memcpy(kept_lease.source, state->source, sizeof kept_lease.source);
    kept_lease.kept = true;
}

#if PG_VERSION_NUM >= 150000
shmem_request_hook_type prev_shmem_request_hook = nullptr;
#endif
shmem_startup_hook_type prev_shmem_startup_hook = nullptr;

void lease_shmem_request() {
#if PG_VERSION_NUM >= 150000
    if (prev_shmem_request_hook) prev_shmem_request_hook();
#endif
    RequestAddinShmemSpace(MAXALIGN(sizeof(LeaseState)));
}

void lease_shmem_startup() {
    if (prev_shmem_startup_hook) prev_shmem_startup_hook();
    LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
    bool found;
    state = static_cast<LeaseState *>(ShmemInitStruct("locality_uuid lease", sizeof(LeaseState), &found));
    if (!found) {
        memset(state, 0, sizeof *state);
        pg_atomic_init_u32(&state->held, 0);
        log_quota_init(&state->no_lease_log);
        SpinLockInit(&state->mutex);
        state->started_at = GetCurrentTimestamp();
        strlcpy(state->error, "the lease worker has not answered yet", sizeof state->error);
        if (!IsUnderPostmaster) held_from_kept = false;
        if (!IsUnderPostmaster && kept_lease.kept) {
            state->node = kept_lease.node;
            memcpy(state->machine_name, kept_lease.machine_name, sizeof state->machine_name);
            memcpy(state->source, kept_lease.source, sizeof state->source);
            state->crc = lease_crc(state);
            pg_write_barrier();  // the values before the flag
            pg_atomic_write_u32(&state->held, 1);
            held_from_kept = true;
            ereport(LOG, (errmsg("locality_uuid: this postmaster keeps its lease across the crash restart (node value "
                                 "%d, Hot Guid machine name \"%s\")",
                                 state->node, state->machine_name)));
        }
    }
    LWLockRelease(AddinShmemInitLock);
    if (!IsUnderPostmaster) on_shmem_exit(keep_lease, 0);
}

// The registry as reports name it: host:port/dbname of the conninfo, never
// its password.
void describe_registry(char *out, size_t size) {
    char *err = nullptr;
    PQconninfoOption *opts = PQconninfoParse(setting_registry != nullptr ? setting_registry : "", &err);
    if (opts == nullptr) {
        if (err != nullptr) PQfreemem(err);
        strlcpy(out, "(an unparsable locality_uuid.registry)", size);
        return;
    }
    const char *host = "", *port = "", *db = "";
    for (PQconninfoOption *p = opts; p->keyword != nullptr; ++p) {
        if (p->val == nullptr) continue;
        if ((strcmp(p->keyword, "host") == 0 || strcmp(p->keyword, "hostaddr") == 0) && host[0] == '\0') host = p->val;
        if (strcmp(p->keyword, "port") == 0) port = p->val;
        if (strcmp(p->keyword, "dbname") == 0) db = p->val;
    }
    snprintf(out, size, "%s:%s/%s", host[0] != '\0' ? host : "localhost", port[0] != '\0' ? port : "5432",
             db[0] != '\0' ? db : "-");
    PQconninfoFree(opts);
}

// --- the worker ---------------------------------------------------------------------

// Milliseconds from now to deadline (0 if past).
long ms_until(TimestampTz deadline) {
    const TimestampTz now = GetCurrentTimestamp();
    return deadline > now ? static_cast<long>((deadline - now) / 1000) : 0;
}

// Waits until conn's socket is ready for `events` (WL_SOCKET_*); false if
// the deadline passes first. A latch set meanwhile (a signal) is served
// (CHECK_FOR_INTERRUPTS) and the wait goes on: libpq is called only once
// its socket is ready, as its nonblocking contract asks.
bool wait_socket(PGconn *conn, int events, TimestampTz deadline) {
    for (;;) {
        const long ms = ms_until(deadline);
        if (ms <= 0) return false;
        const int rc = WaitLatchOrSocket(MyLatch, WL_LATCH_SET | WL_EXIT_ON_PM_DEATH | WL_TIMEOUT | events,
                                         PQsocket(conn), ms, PG_WAIT_EXTENSION);
        if (rc & WL_LATCH_SET) ResetLatch(MyLatch);
        CHECK_FOR_INTERRUPTS();
        if (rc & events) return true;
    }
}

// Marks where libpq's own text starts in an error: the registry's address
// and the login name, for the server log and locality_uuid_binding()
// (superusers and pg_monitor), not for every role whose id fails.
constexpr char kLibpqText = '\x1f';

// error without the mark (into out).
void shown_whole(const char *error, char *out, size_t size) {
    size_t n = 0;
    for (const char *c = error; *c != '\0' && n + 1 < size; ++c)
        if (*c != kLibpqText) out[n++] = *c;
    out[n] = '\0';
}

void set_error(char *error, size_t size, const char *what, const char *detail, bool libpq_text = false) {
    snprintf(error, size, "%s%s%s%s", what, detail != nullptr && detail[0] != '\0' ? ": " : "",
             libpq_text && detail != nullptr && detail[0] != '\0' ? "\x1f" : "", detail != nullptr ? detail : "");
    // libpq's messages end in a newline, and may hold more lines: one line.
    for (size_t n = strlen(error); n > 0 && (error[n - 1] == '\n' || error[n - 1] == ' '); --n) error[n - 1] = '\0';
    for (char *c = error; *c != '\0'; ++c)
        if (*c == '\n' || *c == '\t') *c = ' ';
}

// One host of the registry's connection string: its host, hostaddr and
// port entries (comma-separated lists in the string) as their i-th items.
// *out: the item (in buf), or nullptr if the list has none for i. False
// if the item does not fit buf: dropped, it would leave libpq its default
// host (perhaps this very server).
bool list_item(const char *list, int i, char *buf, size_t size, const char **out) {
    *out = nullptr;
    if (list == nullptr) return true;
    const char *p = list;
    for (int k = 0; k < i; ++k) {
        p = strchr(p, ',');
        if (p == nullptr) {
            if (i > 0 && strchr(list, ',') == nullptr) *out = list;  // one item: for all
            return true;
        }
        ++p;
    }
    const char *end = strchr(p, ',');
    const size_t n = end != nullptr ? static_cast<size_t>(end - p) : strlen(p);
    if (n >= size) return false;
    memcpy(buf, p, n);
    buf[n] = '\0';
    *out = buf;
    return true;
}

int list_length(const char *list) {
    if (list == nullptr || list[0] == '\0') return 0;
    int n = 1;
    for (const char *c = list; *c != '\0'; ++c) n += *c == ',';
    return n;
}

// Connects to one host without blocking the worker (PQconnectPoll, waits
// on the latch): by `deadline`, or nullptr and *error.
PGconn *connect_one(const char *const *keys, const char *const *vals, TimestampTz deadline, char *error,
                    size_t size) {
    PGconn *conn = PQconnectStartParams(keys, vals, 0);
    if (conn == nullptr) {
        set_error(error, size, "could not connect to the registry", "out of memory");
        return nullptr;
    }
    PostgresPollingStatusType st = PGRES_POLLING_WRITING;
    while (PQstatus(conn) != CONNECTION_BAD && st != PGRES_POLLING_OK && st != PGRES_POLLING_FAILED) {
        const int events = st == PGRES_POLLING_READING ? WL_SOCKET_READABLE : WL_SOCKET_WRITEABLE;
        if (!wait_socket(conn, events, deadline)) {
            set_error(error, size, "could not connect to the registry", "timeout");
            PQfinish(conn);
            return nullptr;
        }
        st = PQconnectPoll(conn);
    }
    if (PQstatus(conn) != CONNECTION_OK) {
        set_error(error, size, "could not connect to the registry", PQerrorMessage(conn), true);
        PQfinish(conn);
        return nullptr;
    }
    // Every later call too: a send or a flush returns rather than block.
    if (PQsetnonblocking(conn, 1) != 0) {
        set_error(error, size, "could not connect to the registry", PQerrorMessage(conn), true);
        PQfinish(conn);
        return nullptr;
    }
    return conn;
}

// What the worker's connection has unless the string says otherwise (and,
// where env is given, unless a service file entry or the environment
// does).
struct ConnDefault {
    const char *keyword, *value, *env;
};
constexpr ConnDefault kConnDefault[] = {
    {"application_name", "locality_uuid lease", nullptr},  // pg_stat_activity on the registry
    // A lease is a write: a registry standby listed first (after the
    // registry's failover) is passed over for the next host, not tried
    // for ever.
    {"target_session_attrs", "read-write", "PGTARGETSESSIONATTRS"},
    // GSSAPI encryption's negotiation may ask a KDC, inside libpq and
    // blocking: only where the string asks for it.
    {"gssencmode", "disable", "PGGSSENCMODE"},
};
constexpr int kConnDefaults = sizeof kConnDefault / sizeof kConnDefault[0];

// Connects to the registry: each host of its connection string in turn,
// each with a deadline of its own (its connect_timeout, else 10 s), since
// libpq's own connect_timeout, which moves it to the next host, is not
// applied to a nonblocking connection. A host that answers as a standby
// under target_session_attrs=read-write is refused by libpq: the next one.
// nullptr and *error (the last host's) on failure.
PGconn *connect_registry(char *error, size_t size) {
    char *parse_error = nullptr;
    PQconninfoOption *opts = PQconninfoParse(setting_registry != nullptr ? setting_registry : "", &parse_error);
    if (opts == nullptr) {
        // libpq's reason quotes the part it could not read, which may be a
        // password: only the server log (once: the setting holds until a
        // restart) has it, never the error every role sees.
        static bool logged = false;
        if (!logged)
            ereport(LOG, (errmsg("locality_uuid: locality_uuid.registry cannot be parsed: %s",
                                 parse_error != nullptr ? parse_error : "out of memory")));
        logged = true;
        set_error(error, size, "locality_uuid.registry cannot be parsed", "libpq's reason is in the server log");
        if (parse_error != nullptr) PQfreemem(parse_error);
        return nullptr;
    }
    const char *hosts = nullptr, *addrs = nullptr, *ports = nullptr;
    long timeout_s = 10;
    bool given[kConnDefaults] = {}, has_service = false;
    constexpr int kMaxKeys = 64;
    // + the defaults, host, hostaddr, port, the end
    const char *keys[kMaxKeys + kConnDefaults + 4];
    const char *vals[kMaxKeys + kConnDefaults + 4];
    int n = 0;
    for (PQconninfoOption *o = opts; o->keyword != nullptr; ++o) {
        if (o->val == nullptr) continue;
        if (strcmp(o->keyword, "host") == 0) hosts = o->val;
        else if (strcmp(o->keyword, "hostaddr") == 0) addrs = o->val;
        else if (strcmp(o->keyword, "port") == 0) ports = o->val;
        else if (n < kMaxKeys) {
            // (0, libpq's "wait for ever", and anything unreadable: 10 s.)
            if (strcmp(o->keyword, "connect_timeout") == 0) timeout_s = atol(o->val) > 0 ? Max(2L, atol(o->val)) : 10;
            for (int d = 0; d < kConnDefaults; ++d) given[d] |= strcmp(o->keyword, kConnDefault[d].keyword) == 0;
            if (strcmp(o->keyword, "service") == 0) has_service = true;
            keys[n] = o->keyword;
            vals[n] = o->val;
            ++n;
        }
    }
    for (int d = 0; d < kConnDefaults; ++d) {
        const ConnDefault &c = kConnDefault[d];
        if (given[d] || (c.env != nullptr && (has_service || getenv(c.env) != nullptr))) continue;
        keys[n] = c.keyword;
        vals[n] = c.value;
        ++n;
    }
    const int base = n;
    const int count = Max(1, Max(list_length(hosts), list_length(addrs)));
    PGconn *conn = nullptr;
    char host[256], addr[256], port[32];
    for (int i = 0; i < count && conn == nullptr; ++i) {
        n = base;
        const char *h, *a, *p;
        if (!list_item(hosts, i, host, sizeof host, &h) || !list_item(addrs, i, addr, sizeof addr, &a) ||
            !list_item(ports, i, port, sizeof port, &p)) {
            set_error(error, size, "locality_uuid.registry cannot be used", "a host, hostaddr or port in it is too long");
            break;
        }
        if (h != nullptr) { keys[n] = "host"; vals[n] = h; ++n; }
        if (a != nullptr) { keys[n] = "hostaddr"; vals[n] = a; ++n; }
        if (p != nullptr) { keys[n] = "port"; vals[n] = p; ++n; }
        keys[n] = nullptr;
        vals[n] = nullptr;
        conn = connect_one(keys, vals, GetCurrentTimestamp() + timeout_s * USECS_PER_SEC, error, size);
    }
    PQconninfoFree(opts);
    return conn;
}

// Runs sql with text parameters and returns its last result (the caller
// clears it); nullptr and *error ("SQLSTATE: message") on failure.
PGresult *run(PGconn *conn, const char *sql, int nparams, const char *const *params, TimestampTz deadline,
              char *error, size_t size) {
    if (!PQsendQueryParams(conn, sql, nparams, nullptr, params, nullptr, nullptr, 0)) {
        set_error(error, size, "could not send a statement to the registry", PQerrorMessage(conn), true);
        return nullptr;
    }
    int flushed;
    while ((flushed = PQflush(conn)) == 1)
        if (!wait_socket(conn, WL_SOCKET_WRITEABLE, deadline)) {
            set_error(error, size, "the registry did not answer", "timeout");
            return nullptr;
        }
    PGresult *last = nullptr;
    for (;;) {
        while (flushed == 0 && PQisBusy(conn)) {
            if (!wait_socket(conn, WL_SOCKET_READABLE, deadline) || !PQconsumeInput(conn)) {
                if (last != nullptr) PQclear(last);
                set_error(error, size, "the registry did not answer",
                          ms_until(deadline) > 0 ? PQerrorMessage(conn) : "timeout");
                return nullptr;
            }
        }
        PGresult *r = PQgetResult(conn);
        if (r == nullptr) break;
        if (last != nullptr) PQclear(last);
        last = r;
    }
    const ExecStatusType status = last != nullptr ? PQresultStatus(last) : PGRES_FATAL_ERROR;
    if (status != PGRES_TUPLES_OK && status != PGRES_COMMAND_OK) {
        const char *state_code = last != nullptr ? PQresultErrorField(last, PG_DIAG_SQLSTATE) : nullptr;
        const char *message = last != nullptr ? PQresultErrorField(last, PG_DIAG_MESSAGE_PRIMARY) : nullptr;
        char what[16];
        snprintf(what, sizeof what, "%s", state_code != nullptr ? state_code : "error");
        set_error(error, size, what, message != nullptr ? message : PQerrorMessage(conn), message == nullptr);
        if (last != nullptr) PQclear(last);
        return nullptr;
    }
    return last;
}

// A WARNING from the registry while the lease is taken: above all
// "canceling wait for synchronous replication ... the transaction has
// already committed locally, but might not have been replicated", after
// which a failover of the registry could hand the value out again. The
// attempt fails; the value is wasted, never used. (libpq calls this while
// it reads input: it only copies.)
struct RegistryWarning {
    bool seen = false;
    char message[256] = "";
};
void note_warning(void *arg, const PGresult *notice) {
    auto *w = static_cast<RegistryWarning *>(arg);
    const char *severity = PQresultErrorField(notice, PG_DIAG_SEVERITY_NONLOCALIZED);
    if (severity == nullptr || strcmp(severity, "WARNING") != 0 || w->seen) return;
    const char *message = PQresultErrorField(notice, PG_DIAG_MESSAGE_PRIMARY);
    w->seen = true;
    strlcpy(w->message, message != nullptr ? message : "", sizeof w->message);
}

// The registry's identity from the comment of its node_values sequence
// (registry_sql.hpp): a uuid, or "" if it has none (made before 1.5, or a
// comment that is not one).
void registry_identity_of(const char *comment, char *identity, size_t size) {
    identity[0] = '\0';
    const size_t prefix = strlen(locality_registry::kIdentityCommentPrefix);
    if (strncmp(comment, locality_registry::kIdentityCommentPrefix, prefix) != 0) return;
    const char *id = comment + prefix;
    if (strlen(id) != 36 || strspn(id, "0123456789abcdef-") != 36 || size <= 36) return;
    strlcpy(identity, id, size);
}

// The steps of one attempt over an open connection, in order; each
// returns false with the reason in error (a query's own, or the check's).
// Every PGresult is cleared before its step returns.

// Pins the session (whatever the registry's role or database sets, and
// again in the lease's own statement: lease_from) and reads the login's
// name, for the trust check where locality_uuid.registry_owner is empty.
bool pin_session(PGconn *conn, TimestampTz deadline, char *login, size_t login_size, bool *may_read_control,
                 char *error, size_t size) {
    // synchronous_commit on: a lease acknowledged before it is durable (and
    // on a synchronous standby) could be handed out again after the
    // registry's crash or failover.
    PGresult *r = run(conn,
                      "SELECT pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', false), "
                      "pg_catalog.set_config('statement_timeout', '30s', false), "
                      "pg_catalog.current_user()::pg_catalog.text, "
                      "pg_catalog.set_config('synchronous_commit', 'on', false), "
                      "pg_catalog.has_function_privilege('pg_catalog.pg_control_system()', 'EXECUTE')",
                      0, nullptr, deadline, error, size);
    if (r == nullptr) return false;
    strlcpy(login, PQgetvalue(r, 0, 2), login_size);
    *may_read_control = strcmp(PQgetvalue(r, 0, 4), "t") == 0;
    PQclear(r);
    return true;
}

// A registry in this server's own cluster is refused: every snapshot,
// clone, backup and standby of this server carries it, and restored or
// reverted with it, it hands out again the very values its lost timeline
// leased. Told by the registry's system identifier, where the leaser may
// read it (PUBLIC may, unless revoked; its own statement: EXECUTE is
// checked when a statement is planned, whatever a CASE would skip).
bool registry_is_elsewhere(PGconn *conn, TimestampTz deadline, bool may_read_control, char *error, size_t size) {
    if (!may_read_control) {
        // Said once a worker: the check a DBA may believe in is not made.
        static bool said = false;
        if (!said)
            ereport(LOG, (errmsg("locality_uuid: the registry's system identifier cannot be read (the leaser may not "
                                 "execute pg_control_system()), so a registry in this server's own cluster "
                                 "cannot be refused"),
                          errhint("GRANT EXECUTE ON FUNCTION pg_catalog.pg_control_system() TO the leaser, on the "
                                  "registry's server (PUBLIC has it by default).")));
        said = true;
        return true;
    }
    PGresult *r = run(conn, "SELECT c.system_identifier::pg_catalog.text FROM pg_catalog.pg_control_system() c", 0,
                      nullptr, deadline, error, size);
    if (r == nullptr) return false;
    char own_system[32];
    snprintf(own_system, sizeof own_system, INT64_FORMAT, static_cast<int64>(GetSystemIdentifier()));  // (signed, as bigint)
    const bool own = strcmp(PQgetvalue(r, 0, 0), own_system) == 0;
    PQclear(r);
    if (own)
        set_error(error, size, "refusing the registry: it is in this server's own cluster",
                  "its system identifier is this server's (or its primary's); every snapshot, clone or restore "
                  "of this server carries it and would lease again what it leased: keep the registry on a "
                  "server outside what is copied with the fleet");
    return !own;
}

// The registry's schema is there, owned by owner, with a layout this
// library leases from (kOldestLeasableLayout to kRegistryLayout: a fleet's
// servers are upgraded before its registry). Read in the same statement:
// the comment of the node_values sequence where that layout keeps it (the
// private schema from layout 3, the API schema before), the registry's
// identity, into *identity_comment ("" if none): an update committing
// between two statements could move it.
bool registry_layout_holds(PGconn *conn, TimestampTz deadline, const char *owner, char *identity_comment,
                           size_t comment_size, char *error, size_t size) {
    PGresult *r = run(conn,
                      "SELECT pg_catalog.obj_description(n.oid, 'pg_namespace'), pg_catalog.pg_get_userbyid(n.nspowner), "
                      "coalesce((SELECT pg_catalog.obj_description(c.oid, 'pg_class') FROM pg_catalog.pg_class c "
                      "          WHERE c.relnamespace OPERATOR(pg_catalog.=) n.oid "
                      "            AND c.relname OPERATOR(pg_catalog.=) 'node_values'), ''), "
                      "coalesce((SELECT pg_catalog.obj_description(c.oid, 'pg_class') FROM pg_catalog.pg_class c "
                      "          JOIN pg_catalog.pg_namespace p ON p.oid OPERATOR(pg_catalog.=) c.relnamespace "
                      "          WHERE p.nspname OPERATOR(pg_catalog.=) 'locality_uuid_registry_private' "
                      "            AND c.relname OPERATOR(pg_catalog.=) 'node_values'), '') "
                      "FROM pg_catalog.pg_namespace n WHERE n.nspname OPERATOR(pg_catalog.=) 'locality_uuid_registry'",
                      0, nullptr, deadline, error, size);
    if (r == nullptr) return false;
    if (PQntuples(r) != 1) {
        PQclear(r);
        set_error(error, size, "there is no registry in that database", "locality-uuid fleet registry creates it");
        return false;
    }
    char layout[64], found_layout[128], found_owner[NAMEDATALEN * 2];
    snprintf(layout, sizeof layout, "locality_uuid registry, layout %d", locality_registry::kRegistryLayout);
    strlcpy(found_layout, PQgetvalue(r, 0, 0), sizeof found_layout);
    strlcpy(found_owner, PQgetvalue(r, 0, 1), sizeof found_owner);
    char comments[2][256];
    strlcpy(comments[0], PQgetvalue(r, 0, 2), sizeof comments[0]);
    strlcpy(comments[1], PQgetvalue(r, 0, 3), sizeof comments[1]);
    PQclear(r);
    if (strcmp(found_owner, owner) != 0) {
        char detail[sizeof found_owner * 2 + 64];
        snprintf(detail, sizeof detail, "it is owned by role %s, not %s (locality_uuid.registry_owner)", found_owner,
                 owner);
        set_error(error, size, "refusing the registry", detail);
        return false;
    }
    // "..., layout N" (N: digits alone), or no layout comment at all (0).
    const size_t stem = strlen("locality_uuid registry, layout ");
    int found = 0;
    if (strncmp(found_layout, layout, stem) == 0 && found_layout[stem] >= '1' && found_layout[stem] <= '9') {
        char *end = nullptr;
        const long n = strtol(found_layout + stem, &end, 10);
        found = *end == '\0' && n < 10000 ? static_cast<int>(n) : 0;
    }
    if (found >= locality_registry::kOldestLeasableLayout && found <= locality_registry::kRegistryLayout) {
        strlcpy(identity_comment, comments[found >= 3 ? 1 : 0], comment_size);
        return true;
    }
    char detail[sizeof found_layout + 96];
    if (found > locality_registry::kRegistryLayout)
        snprintf(detail, sizeof detail, "it has layout %d, newer than this library's %d: install this "
                 "library's newer version", found, locality_registry::kRegistryLayout);
    else
        snprintf(detail, sizeof detail, "it has %s, this library needs layout %d or %d: run locality-uuid "
                 "fleet registry of this version once as its owner", found > 0 ? found_layout + strlen("locality_uuid registry, ") : "no layout",
                 locality_registry::kOldestLeasableLayout, locality_registry::kRegistryLayout);
    set_error(error, size, "the registry's layout is not this library's", detail);
    return false;
}

// No role but the owner may write, lock or own what the registry holds,
// and its unique constraints are in place (registry_sql.hpp, kTrustSql).
bool registry_is_owners_alone(PGconn *conn, TimestampTz deadline, const char *owner, char *error, size_t size) {
    const char *params[] = {owner, "true"};  // (and the structure too: kTrustSql's $2)
    PGresult *r = run(conn, locality_registry::kTrustSql, 2, params, deadline, error, size);
    if (r == nullptr) return false;
    const bool alone = PQntuples(r) == 0;
    if (!alone) {
        char detail[384];
        snprintf(detail, sizeof detail, "%s%s", PQgetvalue(r, 0, 0), PQntuples(r) > 1 ? "; ..." : "");
        set_error(error, size, "refusing the registry: it is not its owner's alone", detail);
    }
    PQclear(r);
    return alone;
}

// The registry's identity from its comment (read through the catalogs,
// no privilege on the sequence needed: registry_layout_holds): "" for a
// registry without one, which is then known by its address alone (true
// either way).
bool read_registry_identity(const char *comment, char *identity, size_t identity_size) {
    registry_identity_of(comment, identity, identity_size);
    // A comment that says it is an identity and is not one (edited by
    // hand, cut short): this registry is then known by its address alone.
    const bool malformed = identity[0] == '\0' && strncmp(comment, locality_registry::kIdentityCommentPrefix,
                                                          strlen(locality_registry::kIdentityCommentPrefix)) == 0;
    char shown[80];
    strlcpy(shown, comment, sizeof shown);
    if (malformed)
        ereport(LOG, (errmsg("locality_uuid: the registry's identity is malformed: \"%s\"", shown),
                      errdetail("Leases from it are checked against its address alone, not its identity "
                                "(doc/fleets.md, \"Restoring or failing over the registry\")."),
                      errhint("As the registry's owner, put back the comment a dump or backup of it holds.")));
    return true;
}

// The lease itself: one statement, one transaction, with
// synchronous_commit pinned again for that transaction (set_config's
// is_local): behind a transaction pooler the session's pins may have been
// made on another server connection, or reset (DISCARD ALL) since. The
// commit reads the setting after the statement, whichever of its function
// scans ran first; the answer says what it was. The answer is checked
// before it is used.
bool lease_from(PGconn *conn, TimestampTz deadline, RegistryWarning *warning, int32 *node, char *name,
                size_t name_size, char *error, size_t size) {
    Binding here;
    current_binding(&here);
    if (here.host[0] == '\0') {
        set_error(error, size, "this host's identity cannot be read", here.host_source);
        return false;
    }
    char label[512], sysid[32];
    current_host_label(label, sizeof label);
    snprintf(sysid, sizeof sysid, UINT64_FORMAT, static_cast<uint64>(GetSystemIdentifier()));
    const char *params[] = {here.host, label, here.data_directory, sysid, timestamptz_to_str(state->started_at)};
    PQsetNoticeReceiver(conn, note_warning, warning);
    PGresult *r = run(conn,
                      "SELECT l.node_id, l.machine_name, l.machine_bytes, "
                      "pg_catalog.current_setting('synchronous_commit') "
                      "FROM pg_catalog.set_config('synchronous_commit', 'on', true) AS pin, "
                      "locality_uuid_registry.lease($1, $2, $3, $4, $5::pg_catalog.timestamptz) l",
                      5, params, deadline, error, size);
    if (r == nullptr) {
        // The node values' sequence at its end (nextval's 2200H).
        if (strncmp(error, "2200H:", 6) == 0)
            set_error(error, size, "the registry has no node value left",
                      "all 268435455 are drawn, and nothing gives values back (doc/fleets.md, \"The budget\")");
        return false;
    }
    bool ok = false;
    const char *why = nullptr;
    if (warning->seen) {
        set_error(error, size, "the registry warned while it leased, so the lease is not used", warning->message);
    } else if (PQntuples(r) != 1) {
        set_error(error, size, "the registry's lease returned no row", nullptr);
    } else if (strcmp(PQgetvalue(r, 0, 3), "on") != 0) {
        char detail[128];
        snprintf(detail, sizeof detail, "synchronous_commit was %s for its commit, not on", PQgetvalue(r, 0, 3));
        set_error(error, size, "the registry's lease may not be durable, so it is not used", detail);
    } else {
        char *end = nullptr;
        const long long got = strtoll(PQgetvalue(r, 0, 0), &end, 10);
        if (*end != '\0' || !locality_registry::answer_holds(got, PQgetvalue(r, 0, 1), PQgetvalue(r, 0, 2), &why)) {
            set_error(error, size, "the registry's lease cannot be used", why != nullptr ? why : "no number");
        } else {
            *node = static_cast<int32>(got);
            strlcpy(name, PQgetvalue(r, 0, 1), name_size);
            ok = true;
        }
    }
    PQclear(r);
    return ok;
}

// One attempt: connect, pin the session, check the registry can be
// trusted (not in this server's own cluster; owned by
// locality_uuid.registry_owner, or the login, alone; its unique
// constraints in place; this layout), read its identity, take the lease,
// check the answer. True with the lease in *node and *name, and the
// registry's identity (or "") in *identity.
bool take_lease(int32 *node, char *name, size_t name_size, char *identity, size_t identity_size, char *error,
                size_t size) {
    identity[0] = '\0';
    // libpq's socket counts against this process's files, as fd.c keeps
    // them (postgres_fdw and dblink do the same).
    if (!AcquireExternalFD()) {
        set_error(error, size, "could not connect to the registry", "no file descriptor left (max_files_per_process)");
        return false;
    }
    PGconn *conn = connect_registry(error, size);
    if (conn == nullptr) {
        ReleaseExternalFD();
        return false;
    }
    const TimestampTz deadline = GetCurrentTimestamp() + 30 * USECS_PER_SEC;
    char login[NAMEDATALEN * 2];
    bool may_read_control = false;
    RegistryWarning warning;  // (libpq's notice receiver holds it until PQfinish)
    const char *configured = setting_registry_owner != nullptr ? setting_registry_owner : "";
    char identity_comment[256] = "";
    const bool ok = pin_session(conn, deadline, login, sizeof login, &may_read_control, error, size) &&
                    registry_is_elsewhere(conn, deadline, may_read_control, error, size) &&
                    registry_layout_holds(conn, deadline, configured[0] != '\0' ? configured : login, identity_comment,
                                          sizeof identity_comment, error, size) &&
                    registry_is_owners_alone(conn, deadline, configured[0] != '\0' ? configured : login, error, size) &&
                    read_registry_identity(identity_comment, identity, identity_size) &&
                    lease_from(conn, deadline, &warning, node, name, name_size, error, size);
    PQfinish(conn);
    ReleaseExternalFD();
    return ok;
}

// The data directory's lease record (lease_record.hpp), read before each
// attempt: false, with the reason in error, if it cannot be read (no value
// is taken from the registry then). A missing record is an empty one.
bool read_last_lease(LeaseRecord *last, char *error, size_t size) {
    const LeaseRecordRead read = read_lease_record(last);
    if (read == LeaseRecordRead::ok || read == LeaseRecordRead::missing) return true;
    char detail[256];
    snprintf(detail, sizeof detail, "%s; without it a registry that went back cannot be told: put it back, or "
             "remove it if the registry is known not to have gone back",
             read == LeaseRecordRead::corrupt ? "it is not a lease record" : strerror(errno));
    set_error(error, size, "the record of this data directory's last lease (\"locality_uuid.lease\") cannot be read",
              detail);
    return false;
}

// How far below a data directory's recorded lease a registry's values may
// be for its worker to pass them at once, and how many refused attempts it
// makes without waiting in all (each one value of the registry's, which
// only grow).
constexpr int32 kGapPassedAtOnce = 256;

// Whether a lease just taken may be used: above the highest value this data
// directory leased from the same registry (last, its entry), and recorded
// as such, durably, before any id can carry it. False with the reason in
// error: the worker tries again (a registry that went back by a few values
// moves past them with the refused attempts' own leases). A refusal sets
// gap to how many values the registry must still hand out before one is
// above the record (0 for any other failure).
bool lease_goes_forward(LeaseRecord *last, int32 node, const char *name, const char *registry,
                        const char *identity, int32 *gap, char *error, size_t size) {
    *gap = 0;
    LeaseEntry lease{};
    strlcpy(lease.registry, registry, sizeof lease.registry);
    for (char *c = lease.registry; *c != '\0'; ++c)
        if (*c == '\n' || *c == '\r') *c = '?';
    strlcpy(lease.identity, identity, sizeof lease.identity);
    const LeaseEntry *held = highest_lease_for(*last, lease.registry, lease.identity);
    if (held != nullptr && node <= held->node) {
        char what[256], detail[320];
        snprintf(what, sizeof what, "refusing node value %d: this data directory leased node value %d from this "
                 "registry%s on %s, and a registry's values only grow",
                 node, held->node, strcmp(held->registry, lease.registry) == 0 ? "" : " (by its identity, at another address)",
                 timestamptz_to_str(time_t_to_timestamptz(static_cast<pg_time_t>(held->at))));
        snprintf(detail, sizeof detail, "the registry went back (restored, recovered to a point in time, or failed "
                 "over without its last leases); as its owner, move it past every value the fleet holds: "
                 "locality-uuid fleet registry --past N, N at least %d (doc/fleets.md)",
                 held->node);
        set_error(error, size, what, detail);
        *gap = held->node - node + 1;
        return false;
    }
    lease.node = node;
    strlcpy(lease.machine_name, name, sizeof lease.machine_name);
    lease.at = static_cast<int64>(time(nullptr));
    record_lease(last, lease);
    if (!write_lease_record(*last)) {
        set_error(error, size, "could not record the lease in \"locality_uuid.lease\", so it is not used",
                  strerror(errno));
        return false;
    }
    return true;
}

// Backend-private copies of the held lease (it never changes within a
// shared-memory lifetime), so that an id reads shared memory once.
bool local_held = false;
int32 local_node = 0;
char local_machine[64];
char local_source[256];

bool read_held() {
    if (local_held) return true;
    if (state == nullptr || pg_atomic_read_u32(&state->held) == 0) return false;
    pg_read_barrier();  // the values after the flag
    local_node = state->node;
    strlcpy(local_machine, state->machine_name, sizeof local_machine);
    strlcpy(local_source, state->source, sizeof local_source);
    // Kept only in a backend or worker: the postmaster outlives a crash
    // restart's new shared memory, which may take a new lease
    // (forget_kept_lease).
    local_held = IsUnderPostmaster;
    return true;
}

// The worker once this start holds its lease: idle until the server stops
// (or a crash restart ends this shared memory, and this worker with it; the
// new one keeps the lease: keep_lease).
void idle_until_stopped() {
    for (;;) {
        (void) WaitLatch(MyLatch, WL_LATCH_SET | WL_EXIT_ON_PM_DEATH, -1L, PG_WAIT_EXTENSION);
        ResetLatch(MyLatch);
        CHECK_FOR_INTERRUPTS();
    }
}

}  // namespace

bool leases_on() { return setting_registry != nullptr && setting_registry[0] != '\0'; }

void request_lease() {
#if PG_VERSION_NUM >= 150000
    prev_shmem_request_hook = shmem_request_hook;
    shmem_request_hook = lease_shmem_request;
#else
    lease_shmem_request();
#endif
    prev_shmem_startup_hook = shmem_startup_hook;
    shmem_startup_hook = lease_shmem_startup;
    // pg_upgrade's servers (binary upgrade) make no id: no lease spent on
    // them, and no WARNING if the registry is out of their reach.
    if (IsBinaryUpgrade) return;

    BackgroundWorker worker;
    memset(&worker, 0, sizeof worker);
    // A connection to no database, so that pg_stat_activity shows it; such
    // a worker starts once the server is consistent (a hot standby's too:
    // it takes its own lease before any promotion).
    worker.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
    worker.bgw_start_time = BgWorkerStart_ConsistentState;
    worker.bgw_restart_time = 5;  // seconds: a worker that died is started again
    strlcpy(worker.bgw_library_name, "locality_uuid", sizeof worker.bgw_library_name);
    strlcpy(worker.bgw_function_name, "locality_uuid_lease_main", sizeof worker.bgw_function_name);
    strlcpy(worker.bgw_name, "locality_uuid lease", sizeof worker.bgw_name);
#if PG_VERSION_NUM >= 110000
    strlcpy(worker.bgw_type, "locality_uuid lease", sizeof worker.bgw_type);
#endif
    RegisterBackgroundWorker(&worker);
}

// The lease a crash restart forgets because the data directory went back
// under the postmaster: its lease record went back with it, and may not
// hold this lease. Recorded again (raising only, keeping the entry's
// registry identity), so the next lease goes above it even if the registry
// went back too. A record that cannot be read is left to the worker, whose
// read stops leases with its error.
void record_forgotten_lease(int32 node, const char *machine_name) {
    LeaseRecord record;
    const LeaseRecordRead read = read_lease_record(&record);
    if (read != LeaseRecordRead::ok && read != LeaseRecordRead::missing) return;
    char registry[sizeof record.entries[0].registry];
    describe_registry(registry, sizeof registry);
    for (char *c = registry; *c != '\0'; ++c)
        if (*c == '\n' || *c == '\r') *c = '?';
    const LeaseEntry *held = highest_lease_for(record, registry, "");
    if (held != nullptr && held->node >= node) return;
    LeaseEntry lease = held != nullptr ? *held : LeaseEntry{};
    strlcpy(lease.registry, registry, sizeof lease.registry);
    lease.node = node;
    strlcpy(lease.machine_name, machine_name, sizeof lease.machine_name);
    lease.at = static_cast<int64>(time(nullptr));
    record_lease(&record, lease);
    if (write_lease_record(record))
        ereport(LOG, (errmsg("locality_uuid: the lease this postmaster leaves (node value %d) is recorded in \"%s\": "
                             "the next one goes above it",
                             node, kLeaseRecordFile)));
    else
        ereport(WARNING, (errcode_for_file_access(),
                          errmsg("locality_uuid: could not record the lease this postmaster leaves (node value %d) "
                                 "in \"%s\": %m",
                                 node, kLeaseRecordFile),
                          errdetail("The next lease is checked against the record as the data directory holds it.")));
}

void forget_kept_lease(const char *why) {
    const bool had = kept_lease.kept || held_from_kept;
    if (had) {
        // (The kept lease, or this shared memory's copy of it: the same.)
        const bool in_state = held_from_kept && state != nullptr;
        char name[sizeof kept_lease.machine_name];
        strlcpy(name, in_state ? state->machine_name : kept_lease.machine_name, sizeof name);
        ereport(LOG, (errmsg("locality_uuid: this start takes a new lease after the crash restart: %s", why)));
        record_forgotten_lease(in_state ? state->node : kept_lease.node, name);
    }
    kept_lease.kept = false;
    if (held_from_kept && state != nullptr) {
        // No process but the postmaster yet: nothing has read it.
        pg_atomic_write_u32(&state->held, 0);
        state->node = 0;
        state->machine_name[0] = state->source[0] = '\0';
        held_from_kept = false;
    }
}

bool lease_held() { return read_held(); }
uint32 lease_node() { return read_held() ? static_cast<uint32>(local_node) : 0; }
const char *lease_machine_name() { return read_held() ? local_machine : ""; }
const char *lease_source() {
    if (read_held()) return local_source;
    // Not held yet: with the worker's attempts and last error, so that
    // locality_uuid_binding() is all a monitoring query needs.
    static char waiting[sizeof(((Binding *) nullptr)->node_source)];
    char registry[128];
    describe_registry(registry, sizeof registry);
    char error[512] = "";
    uint32 attempts = 0;
    if (state != nullptr) {
        char marked[512];
        SpinLockAcquire(&state->mutex);
        strlcpy(marked, state->error, sizeof marked);
        attempts = state->attempts;
        SpinLockRelease(&state->mutex);
        shown_whole(marked, error, sizeof error);  // (superusers and pg_monitor: locality_uuid_binding())
    }
    if (attempts > 0)
        snprintf(waiting, sizeof waiting, "lease from the registry at %s, not held yet (%u %s failed, the last: %s)",
                 registry, attempts, attempts == 1 ? "attempt" : "attempts", error);
    else
        snprintf(waiting, sizeof waiting, "lease from the registry at %s, not held yet", registry);
    return waiting;
}

// The start of the error ids meet without a lease (report_no_lease's
// errmsg), and how often the server log gets one.
constexpr char kNoLeaseMessage[] = "locality_uuid: no lease of a node value yet";
constexpr int kNoLeaseLogInterval = 10;

void report_no_lease() {
    char registry[128];
    describe_registry(registry, sizeof registry);
    if (state == nullptr)
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("locality_uuid.registry is set, but the library is not preloaded"),
                        errdetail("Leases are taken at the server's start by a worker of the preloaded library; "
                                  "without one no id can carry a leased value, and none other is used."),
                        errhint("Put locality_uuid into shared_preload_libraries and restart.")));
    char error[512];
    uint32 attempts;
    TimestampTz failed_at;
    SpinLockAcquire(&state->mutex);
    strlcpy(error, state->error, sizeof error);
    attempts = state->attempts;
    failed_at = state->failed_at;
    SpinLockRelease(&state->mutex);
    // Any role's id meets this error: libpq's text (the registry's address,
    // the login name) stays in the server log and locality_uuid_binding().
    char *libpq_text = strchr(error, kLibpqText);
    if (libpq_text != nullptr)
        strlcpy(libpq_text, "libpq's message is in the server log and in locality_uuid_binding()",
                sizeof error - static_cast<size_t>(libpq_text - error));
    char detail[512];
    snprintf(detail, sizeof detail,
             "Every start of this server takes a node value and a Hot Guid machine name the registry never handed "
             "out (locality_uuid.registry); until then server-wide ids wait, and no other value is used. %u %s so "
             "far%s%s.",
             attempts, attempts == 1 ? "attempt" : "attempts", failed_at != 0 ? ", the last at " : "",
             failed_at != 0 ? timestamptz_to_str(failed_at) : "");
    // Every id of every session meets this error: the server log gets one
    // per interval, with how many it left out; each client gets its own.
    uint32 left_out = 0;
    const bool logged = log_quota_take(&state->no_lease_log, kNoLeaseLogInterval, ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE,
                                       kNoLeaseMessage, &left_out);
    ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                    errmsg("locality_uuid: no lease of a node value yet from the registry at %s: %s", registry, error),
                    errdetail("%s", detail),
                    logged && left_out > 0
                        ? errdetail_log("%s %u more like it (from every session) were left out of the server log "
                                        "since the last one written (one every %d s is).",
                                        detail, left_out, kNoLeaseLogInterval)
                        : 0,
                    attempts > 0 ? errhint("The lease worker tries again by itself (at once after SELECT pg_reload_conf()); "
                                           "ids are made once it has one, without a restart.")
                                 : errhint("If this lasts, look in the server log for the worker \"locality_uuid lease\" "
                                           "(max_worker_processes may leave no room for it).")));
    pg_unreachable();
}

}  // namespace locality_pg

using locality_pg::state;

void locality_uuid_lease_main(Datum) {
    pqsignal(SIGTERM, die);
    // A reload (pg_ctl reload, pg_reload_conf()) makes a waiting worker try
    // at once: the operator's way to say "the registry is back".
    pqsignal(SIGHUP, SignalHandlerForConfigReload);
    BackgroundWorkerUnblockSignals();
    char registry[128];
    locality_pg::describe_registry(registry, sizeof registry);
    // Shown in pg_stat_activity (backend_type "locality_uuid lease", its
    // waits as Extension); no database: it reads none of this server's.
    BackgroundWorkerInitializeConnection(nullptr, nullptr, 0);
    char error[512], last_logged[512] = "";
    char name[64];
    int32 node = 0;
    long wait_ms = 1000;
    int32 passed_at_once = 0;  // refused values passed without waiting
    bool passing = false;      // the last attempt was such a value
    // A worker started again (killed, or exited, or after a crash restart
    // that kept the lease) while this start holds its lease: the lease
    // stands for the life of the postmaster, and backends may have read it;
    // never a second one.
    if (pg_atomic_read_u32(&state->held) != 0) {
        pg_read_barrier();
        ereport(LOG, (errmsg("locality_uuid: this start holds its lease already (node value %d): the lease worker, "
                             "started again, takes no other",
                             state->node)));
        locality_pg::idle_until_stopped();
    }
    for (uint32 attempt = 1;; ++attempt) {
        CHECK_FOR_INTERRUPTS();
        locality_pg::LeaseRecord last;
        char identity[40];
        int32 gap = 0;
        if (locality_pg::read_last_lease(&last, error, sizeof error) &&
            locality_pg::take_lease(&node, name, sizeof name, identity, sizeof identity, error, sizeof error) &&
            locality_pg::lease_goes_forward(&last, node, name, registry, identity, &gap, error, sizeof error))
            break;
        const TimestampTz failed_at = GetCurrentTimestamp();  // (a system call: not under the spinlock)
        SpinLockAcquire(&state->mutex);
        strlcpy(state->error, error, sizeof state->error);
        state->attempts = attempt;
        state->failed_at = failed_at;
        SpinLockRelease(&state->mutex);
        // Said once per kind of failure (and each time it changes), not at
        // every attempt.
        if (strcmp(error, last_logged) != 0) {
            char whole[512];
            locality_pg::shown_whole(error, whole, sizeof whole);
            // A refusal of a value is a WARNING, the registry went back;
            // the values refused after it in one pass at once (up to 256,
            // as fast as the registry answers) are each a LOG line.
            const bool warn = gap > 0 ? !passing : attempt == 1;
            ereport(warn ? WARNING : LOG,
                    (errmsg("locality_uuid: could not lease a node value from the registry at %s: %s", registry, whole),
                     errdetail("Server-wide ids wait until this start holds a lease; the worker tries again "
                               "within 45 s of each failed attempt, and at once after a reload "
                               "(pg_reload_conf()).")));
            strlcpy(last_logged, error, sizeof last_logged);
        }
        // A registry that went back by a few values (recovered to a point in
        // time, or failed over, without the leases of a burst of starts) is
        // passed at once, a refused attempt a value: ids wait seconds, not
        // the backoff's half hour. A wider gap (a dump restored from long
        // ago, or another registry at this one's address) waits as any
        // failure does, for its owner's repair (fleet registry --past).
        if (gap > 0 && gap <= locality_pg::kGapPassedAtOnce && passed_at_once < locality_pg::kGapPassedAtOnce) {
            ++passed_at_once;
            passing = true;
            continue;
        }
        passing = false;
        // Up to half as long again, at random: servers started together
        // (a fleet after a power cut) spread their attempts.
        const long jitter = static_cast<long>(locality_pg::strong_random_u32() % static_cast<uint32>(wait_ms / 2 + 1));
        // (A reload during the attempt, whose waits reset the latch, counts too.)
        if (!ConfigReloadPending)
            (void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, wait_ms + jitter,
                             PG_WAIT_EXTENSION);
        ResetLatch(MyLatch);
        wait_ms = wait_ms * 2 > 30000 ? 30000 : wait_ms * 2;
        if (ConfigReloadPending) {
            ConfigReloadPending = false;
            ProcessConfigFile(PGC_SIGHUP);
            ereport(LOG, (errmsg("locality_uuid: the configuration was reloaded: the lease worker tries the registry "
                                 "at once")));
            wait_ms = 1000;
        }
    }
    uint8 bytes[3];
    char hex[7] = "";
    if (locality::hot_guid_machine(name, strlen(name), bytes)) locality::format_machine(bytes, hex);
    state->node = node;
    strlcpy(state->machine_name, name, sizeof state->machine_name);
    snprintf(state->source, sizeof state->source, "lease from the registry at %s, %s", registry,
             timestamptz_to_str(GetCurrentTimestamp()));
    state->crc = lease_crc(state);
    // Logged before ids can carry it: a log line names every value in use.
    // With interrupts held from the line to the flag: a SIGTERM served in
    // the log call would leave a value logged as this start's that no id
    // carries, and the next worker would lease another.
    HOLD_INTERRUPTS();
    ereport(LOG, (errmsg("locality_uuid: leased node value %d and Hot Guid machine name \"%s\" (bytes %s) for this "
                         "start from the registry at %s",
                         node, name, hex, registry)));
    pg_write_barrier();  // the values before the flag
    pg_atomic_write_u32(&state->held, 1);
    RESUME_INTERRUPTS();
    locality_pg::idle_until_stopped();
}
