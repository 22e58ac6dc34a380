// The fleet commands (doc/fleets.md): `node claim` takes node values from
// the registry (registry.hpp) and writes a host's node file; `fleet audit`
// reads every server's values, their sources and binding
// (locality_uuid_binding()) and lists what a fleet must not have, each
// problem with what to do about it; `fleet scan` lists the node values in a
// table's ids.
//
// Every connection pins search_path = pg_catalog, pg_temp (pg_client.cpp)
// and every name is qualified: what a role can create in public or "$user"
// of a registry or an audited database never runs. Every answer is checked
// (rows, NULLs, numbers read whole): an odd answer from one server is a
// problem listed for that server, never the end of the audit.
#include "fleet.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "exit_status.hpp"
#include "host_identity.hpp"
#include "json_text.hpp"
#include "pg_client.hpp"
#include "registry.hpp"
#include "text_format.hpp"

namespace locality_cli {
namespace {

std::string json_string(const std::string &text) { return "\"" + json_escaped(text) + "\""; }

// "1 problem", "2 problems".
std::string counted(std::size_t n, const char *one, const char *many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

// Options of the form --name VALUE (and bare flags), in any order.
struct Options {
    std::map<std::string, std::string> values;
    std::set<std::string> flags;
    bool has(const std::string &name) const { return values.count(name) != 0; }
    std::string get(const std::string &name) const {
        const auto it = values.find(name);
        return it != values.end() ? it->second : std::string();
    }
};

bool parse_options(int argc, char **argv, int first, const std::set<std::string> &with_value,
                   const std::set<std::string> &bare, Options *out, std::string *error) {
    for (int i = first; i < argc; ++i) {
        const std::string arg = argv[i];
        if (bare.count(arg) != 0) {
            out->flags.insert(arg);
        } else if (with_value.count(arg) != 0) {
            if (i + 1 >= argc) {
                *error = arg + " needs a value";
                return false;
            }
            out->values[arg] = argv[++i];
        } else {
            *error = "unknown argument '" + arg + "'";
            return false;
        }
    }
    return true;
}

// Connects to the registry and checks it can be trusted (registry.hpp);
// `create`: node claim's, which makes it if missing.
bool connect_registry(PgConnection &conn, const Options &o, bool create, std::string *error) {
    if (!conn.connect(o.get("--registry"), error)) {
        *error = "could not connect to the registry: " + *error;
        return false;
    }
    return open_registry(conn, o.get("--registry-owner"), create, error);
}

// What is used of the 28-bit node values and the 24-bit machine bytes
// (each row holds one of each, never handed out again).
void print_budget(const Budget &b) {
    std::printf("registry: %s (%s), node values drawn %lld of 268435455, machine bytes used %lld of 16777216\n",
                counted(static_cast<std::size_t>(b.rows), "row", "rows").c_str(),
                counted(static_cast<std::size_t>(b.leases), "lease", "leases").c_str(), b.sequence_at, b.rows);
}

std::string budget_json(const Budget &b) {
    return "{\"rows\":" + std::to_string(b.rows) + ",\"leases\":" + std::to_string(b.leases) +
           ",\"node_values_drawn\":" + std::to_string(b.sequence_at) +
           ",\"node_values_left\":" + std::to_string(268435455LL - b.sequence_at) +
           ",\"machine_bytes_left\":" + std::to_string(16777216LL - b.rows) + "}";
}

// --- fleet registry -----------------------------------------------------------------

// Creates the registry if missing, or updates it to this layout (as its
// owner), checks it as every command does, and prints what it holds: the
// one step before servers lease from it (doc/fleets.md, "Leases").
// With --past N, first moves its node values past N (move_registry_past).
int fleet_registry(int argc, char **argv) {
    Options o;
    std::string error;
    if (!parse_options(argc, argv, 3, {"--registry", "--registry-owner", "--past"}, {"--json"}, &o, &error))
        return usage_error(error);
    if (!o.has("--registry")) return usage_error("fleet registry needs --registry DSN");
    long long past = 0;
    std::string moved_note;
    if (o.has("--past")) {
        char *end = nullptr;
        const std::string text = o.get("--past");
        past = std::strtoll(text.c_str(), &end, 10);
        if (text.empty() || text[0] < '0' || text[0] > '9' || *end != '\0' || past < 1 || past > 268435455)
            return usage_error("--past takes a node value from 1 to 268435455");
    }
    PgConnection conn;
    if (!connect_registry(conn, o, /* create */ true, &error)) return data_error(error);
    if (past > 0) {
        std::string drawn;
        bool moved = false;
        if (!move_registry_past(conn, past, &drawn, &moved, &error)) return data_error(error);
        moved_note = moved ? "node values moved past " + std::to_string(past) + " (drawn up to " + drawn +
                                 " before): the next lease or claim takes a higher one"
                           : "node values already past " + std::to_string(past) + " (drawn up to " + drawn +
                                 "): unchanged";
        if (o.flags.count("--json") == 0) std::printf("%s\n", moved_note.c_str());
    }
    Budget budget;
    if (!read_budget(conn, &budget, &error)) return data_error("could not read the registry's counts: " + error);
    std::string readers;
    if (!wide_readers(conn, o.get("--registry-owner"), &readers, &error)) return data_error(error);
    if (!readers.empty())
        std::fprintf(stderr,
                     "locality-uuid: warning: %s may read every table and use every schema (pg_read_all_data), the "
                     "registry's private one too: a lock such a role holds there, and a request queued behind it, "
                     "can delay every lease and claim; give pg_read_all_data to backups only (doc/fleets.md, \"Who "
                     "may do what\")\n",
                     readers.c_str());
    if (o.flags.count("--json") != 0)
        std::printf("{\"layout\":%d,%s\"budget\":%s}\n", registry_layout(),
                    moved_note.empty() ? "" : ("\"past\":" + json_string(moved_note) + ",").c_str(),
                    budget_json(budget).c_str());
    else {
        std::printf("registry layout %d, trusted\n", registry_layout());
        print_budget(budget);
    }
    std::fflush(stdout);
    const std::string spent = registry_exhausted(budget);
    if (!spent.empty()) return data_error(spent + "; " + kExhaustedFix);
    return kOk;
}

// --- node claim ------------------------------------------------------------------

void print_claim(const Claim &c, bool json, const char *apply) {
    if (json)
        std::printf("{\"node\":%lld,\"machine_name\":%s,\"machine\":\"%s\",\"host\":%s,\"host_id\":\"%s\","
                    "\"data_directory\":%s,\"existing\":%s,\"apply\":\"%s\"}\n",
                    c.node, json_string(c.machine_name).c_str(), c.machine_bytes.c_str(),
                    json_string(c.host_label).c_str(), c.host_id.c_str(), json_string(c.data_directory).c_str(),
                    c.existing ? "true" : "false", apply);
    else
        std::printf("node %lld, machine name %s (bytes %s): %s claim for %s, data directory %s\n", c.node,
                    c.machine_name.c_str(), c.machine_bytes.c_str(), c.existing ? "the existing" : "a new",
                    c.host_label.c_str(), c.data_directory.c_str());
}

int node_claim(int argc, char **argv) {
    Options o;
    std::string error;
    if (!parse_options(argc, argv, 3,
                       {"--registry", "--registry-owner", "--host-id", "--host-identity-file", "--data-directory",
                        "--write", "--block", "--write-dir", "--node-id", "--machine-name"},
                       {"--json"}, &o, &error))
        return usage_error(error);
    if (!o.has("--registry")) return usage_error("node claim needs --registry DSN");
    std::string dir = o.get("--data-directory");
    if (dir.empty() && std::getenv("PGDATA") != nullptr) dir = std::getenv("PGDATA");
    if (dir.empty()) return usage_error("node claim needs --data-directory (or PGDATA)");
    dir = resolved_directory(dir);  // as the server's binding shows it
    const bool block = o.has("--block");
    if (block ? !o.has("--write-dir") || !o.has("--host-id") : !o.has("--write"))
        return usage_error(block ? "a block claim needs --host-id LABEL and --write-dir DIR" : "node claim needs --write FILE");
    if (o.has("--host-id") && o.has("--host-identity-file"))
        return usage_error("give --host-id or --host-identity-file, not both");
    long long adopt_node = 0;
    if (o.has("--node-id")) {
        if (block) return usage_error("--node-id adopts one value: not with --block");
        char *end = nullptr;
        const std::string text = o.get("--node-id");
        adopt_node = std::strtoll(text.c_str(), &end, 10);
        if (text.empty() || *end != '\0' || adopt_node < 1 || adopt_node > 268435455)
            return usage_error("--node-id takes a node value from 1 to 268435455");
    }
    const std::string adopt_name = o.get("--machine-name");
    if (o.has("--machine-name") && (!o.has("--node-id") || !valid_machine_name(adopt_name)))
        return usage_error(o.has("--node-id") ? "--machine-name: 1 to 63 letters, digits, '.', '_' or '-', "
                                                "starting with a letter or digit"
                                              : "--machine-name is adopted with --node-id only");
    const bool json = o.flags.count("--json") != 0;

    PgConnection conn;
    if (!connect_registry(conn, o, /* create */ true, &error)) return data_error(error);

    if (block) {
        long long count = 0;
        char *end = nullptr;
        count = std::strtoll(o.get("--block").c_str(), &end, 10);
        if (*end != '\0' || count < 1 || count > 10000) return usage_error("--block takes 1 to 10000");
        std::vector<Claim> claims;
        if (!claim_block(conn, o.get("--host-id"), dir, static_cast<int>(count), &claims, &error))
            return data_error("could not claim the block: " + error);
        // Per ordinal: its node file and its host identity, for a
        // ConfigMap the pods' init container copies from.
        for (std::size_t i = 0; i < claims.size(); ++i) {
            const std::string base = o.get("--write-dir") + "/ordinal-" + std::to_string(i);
            if (!write_file_atomically(base + ".conf", node_file_text(claims[i], ""), &error) ||
                !write_file_atomically(base + ".host-id", claims[i].host_label + "\n", &error))
                return data_error(error);
            print_claim(claims[i], json, "restart");
        }
        return kOk;
    }

    std::string identity, label, identity_file;
    if (o.has("--host-id")) {
        identity = label = o.get("--host-id");
    } else if (o.has("--host-identity-file")) {
        identity_file = o.get("--host-identity-file");
        if (!valid_setting_value(identity_file))
            return usage_error("--host-identity-file: a path with a control character cannot go into a configuration file");
        char line[1024];
        if (!locality::read_first_line(identity_file.c_str(), line, sizeof line))
            return data_error("could not read a host identity from " + identity_file);
        identity = label = line;
    } else if (!default_host_identity(&identity, &label)) {
        return data_error("could not read this host's identity (machine id and host name)");
    }
    Claim claim;
    if (!claim_node(conn, identity, label, dir, adopt_node, adopt_name, &claim, &error))
        return data_error("could not claim a node value: " + error);
    if (!write_file_atomically(o.get("--write"), node_file_text(claim, identity_file), &error))
        return data_error(error + " (the claim stands: run the same command again to write the file)");
    // node_id and machine_name take effect at a reload; host_identity_file
    // only at a start (the binding is made then).
    const bool restart = !identity_file.empty();
    print_claim(claim, json, restart ? "restart" : "reload");
    if (!json)
        std::printf(restart ? "then restart the server: locality_uuid.host_identity_file takes effect at a start "
                              "(a reload applies node_id and machine_name only)\n"
                            : "then reload the server (pg_ctl reload, or SELECT pg_reload_conf())\n");
    return kOk;
}

// --- fleet audit -----------------------------------------------------------------

struct Server {
    int line = 0;
    std::string where;  // host:port/dbname, never the password
    std::string error;  // could not be read
    long long node = -1;
    std::string node_source, machine, machine_name, machine_source, host, host_source, data_directory,
        system_identifier;
    std::string started;  // pg_postmaster_start_time(): one running server, however it is listed
    bool in_recovery = false;
};

struct Problem {
    std::string kind;
    std::string message;
    std::string fix;
    std::vector<std::string> servers;
};

// host:port/dbname of a conninfo (no password), for reports.
std::string describe(const std::string &conninfo) {
    char *err = nullptr;
    PQconninfoOption *opts = PQconninfoParse(conninfo.c_str(), &err);
    if (opts == nullptr) {
        if (err != nullptr) PQfreemem(err);
        return "(unparsable conninfo)";
    }
    std::string host, port, db;
    for (PQconninfoOption *p = opts; p->keyword != nullptr; ++p) {
        if (p->val == nullptr) continue;
        const std::string k = p->keyword;
        if (k == "host" || k == "hostaddr") host = host.empty() ? p->val : host;
        if (k == "port") port = p->val;
        if (k == "dbname") db = p->val;
    }
    PQconninfoFree(opts);
    return (host.empty() ? "localhost" : host) + ":" + (port.empty() ? "5432" : port) + "/" + (db.empty() ? "-" : db);
}

// The schema the locality_uuid extension is installed in ("" if it is
// not), read from the catalog rather than found on the role's path.
bool extension_schema(PgConnection &conn, std::string *schema, std::string *error) {
    PgResult r;
    if (!conn.exec("SELECT n.nspname::pg_catalog.text FROM pg_catalog.pg_extension e "
                   "JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) e.extnamespace "
                   "WHERE e.extname OPERATOR(pg_catalog.=) 'locality_uuid'",
                   {}, &r, error))
        return false;
    schema->clear();
    if (r.rows() == 1 && !r.text_at(0, 0, schema)) {
        *error = "the catalog gave no schema for the extension";
        return false;
    }
    return true;
}

void read_server(const std::string &conninfo, Server *s) {
    PgConnection conn;
    std::string error, schema;
    if (!conn.connect(conninfo, &error)) {
        s->error = "could not connect: " + error;
        return;
    }
    if (!extension_schema(conn, &schema, &error)) {
        s->error = "could not read pg_extension: " + error;
        return;
    }
    if (schema.empty()) {
        s->error = "the locality_uuid extension is not installed in this database";
        return;
    }
    const std::string ext = conn.identifier(schema);
    PgResult r;
    if (!conn.exec("SELECT b.node, coalesce(b.node_source, ''), coalesce(b.machine, ''), "
                   // (A server waiting for its lease has no machine name yet: it would
                   // refuse to say one.)
                   "CASE WHEN pg_catalog.strpos(b.node_source, ', not held yet') OPERATOR(pg_catalog.>) 0 "
                   "THEN '' ELSE coalesce(" + ext + ".hot_guid_machine_name(), '') END, "
                   "coalesce(b.machine_source, ''), coalesce(b.host, ''), "
                   "coalesce(b.host_source, ''), coalesce(b.data_directory, ''), "
                   "b.system_identifier::pg_catalog.text, pg_catalog.pg_is_in_recovery(), "
                   "pg_catalog.pg_postmaster_start_time()::pg_catalog.text FROM " + ext + ".locality_uuid_binding() b",
                   {}, &r, &error)) {
        s->error = "could not read " + schema + ".locality_uuid_binding(): " + error;
        return;
    }
    std::string directory;
    if (r.rows() != 1 || !r.integer_at(0, 0, 0, 268435455, &s->node) || !r.text_at(0, 1, &s->node_source) ||
        !r.text_at(0, 2, &s->machine) || !r.text_at(0, 3, &s->machine_name) || !r.text_at(0, 4, &s->machine_source) ||
        !r.text_at(0, 5, &s->host) || !r.text_at(0, 6, &s->host_source) || !r.text_at(0, 7, &directory) ||
        !r.text_at(0, 8, &s->system_identifier) || !r.bool_at(0, 9, &s->in_recovery) || !r.text_at(0, 10, &s->started)) {
        s->node = -1;
        s->error = "locality_uuid_binding() gave " +
                   (r.rows() != 1 ? counted(static_cast<std::size_t>(r.rows()), "row", "rows") + ", not one"
                                  : std::string("a missing or malformed field"));
        return;
    }
    // As the registry holds it (PostgreSQL before 16 keeps a "/./" inside
    // the path it was given).
    s->data_directory = normalized_directory(directory);
}

bool starts_with(const std::string &s, const char *prefix) { return s.rfind(prefix, 0) == 0; }

// "host-pgB (digest ee29ab2f35c21c25)" and this server's side of it.
std::string short_digest(const std::string &digest) { return digest.substr(0, 16); }

std::string claim_command(const std::string &dir) {
    return "locality-uuid node claim --registry \"$REGISTRY\" --data-directory " + dir +
           " --write <its node file, outside the data directory>";
}

std::vector<Problem> audit(const std::vector<Server> &servers, const std::vector<Registered> &registry) {
    std::vector<Problem> problems;
    std::map<long long, const Registered *> by_node;
    std::map<std::string, const Registered *> by_bytes;
    for (const Registered &r : registry) {
        by_node[r.node] = &r;
        if (!r.retired) by_bytes[r.machine] = &r;  // a retired row's bytes are no one's to use
    }
    std::set<std::string> seen_places;
    std::map<long long, std::vector<const Server *>> live_nodes;
    std::map<std::string, std::vector<const Server *>> live_bytes;
    const std::string where_fixes = "doc/fleets.md, \"Fixing what the audit finds\"";
    // The highest value any audited server holds: what a registry that went
    // back must be moved past.
    long long highest = 0;
    for (const Server &s : servers)
        if (s.error.empty() && s.node > highest) highest = s.node;
    // A standby makes no ids until its promotion, when its own values (and
    // the checks below) apply. One server listed twice (an address and a
    // name) counts once: the same place and the same postmaster (a clone
    // that kept machine id, host name and path runs a postmaster of its
    // own, and is listed).
    auto count_live = [&](const Server &s) {
        const std::string place = s.system_identifier + " " + s.host + " " + s.data_directory + " " + s.started;
        if (!s.in_recovery && seen_places.insert(place).second) {
            live_nodes[s.node].push_back(&s);
            live_bytes[s.machine].push_back(&s);
        }
    };
    for (const Server &s : servers) {
        if (!s.error.empty()) {
            problems.push_back({"unreadable", s.where + ": " + s.error,
                                "let the audit's role connect to that database and read "
                                "locality_uuid_binding() (CONNECT, and pg_monitor or a grant of EXECUTE), with the "
                                "extension installed there; until then the server is not audited",
                                {s.where}});
            continue;
        }
        // A server still waiting for its lease has no value to audit yet
        // (node 0): what it waits for, not a value no one claimed.
        if (starts_with(s.node_source, "lease ") && s.node_source.find(", not held yet") != std::string::npos) {
            problems.push_back({"lease_not_held", s.where + ": no lease yet: " + s.node_source,
                                "fix what the last error names (doc/fleets.md, \"When the registry cannot be "
                                "reached\"); the server takes its lease without a restart",
                                {s.where}});
            continue;
        }
        const std::string on_host = "on " + s.where + "'s host: " + claim_command(s.data_directory) +
                                    ", include that file from postgresql.conf, then reload (" + where_fixes + ")";
        // Where the values come from: only a file of the host outside the
        // data directory is not carried by copies nor shared by chance.
        // A lease (locality_uuid.registry) is the registry's own word.
        if (!starts_with(s.node_source, "file ") && !starts_with(s.node_source, "lease "))
            problems.push_back({"node_source",
                                s.where + ": node value " + std::to_string(s.node) + " comes from " + s.node_source +
                                    ", not from a file of the host outside the data directory",
                                on_host, {s.where}});
        if (!starts_with(s.machine_source, "file ") && !starts_with(s.machine_source, "lease "))
            problems.push_back({"machine_source",
                                s.where + ": the Hot Guid machine name comes from " + s.machine_source +
                                    ", not from a file of the host outside the data directory",
                                on_host, {s.where}});
        // A server's lease that the registry no longer has, or has as
        // another's: the registry went back (restored from a dump or a
        // backup, recovered to a point in time, failed over without its last
        // leases), and hands out again values servers hold. Not a claim to
        // fix on this server's host: the registry is moved past them.
        const auto node = by_node.find(s.node);
        if (starts_with(s.node_source, "lease from the registry at ")) {
            const Registered *r = node != by_node.end() ? node->second : nullptr;
            if (r == nullptr || r->how != "leased" || r->host_id != s.host || r->data_directory != s.data_directory ||
                r->system_identifier != s.system_identifier) {
                // (Its own row, however the auditor spells the registry's
                // address, says it leased from this one; without one, the
                // registry went back, or the server leases from another.)
                problems.push_back(
                    {"registry_went_back",
                     s.where + ": node value " + std::to_string(s.node) + " was leased by this server (" +
                         s.node_source + "), but the registry " +
                         (r == nullptr ? std::string("has no row for it")
                                       : "records it for " + r->host_label + ", data directory " + r->data_directory +
                                             " (" + r->how + ")") +
                         ": the registry went back, and hands out again values servers hold (unless this server "
                         "leases from another registry: then audit it against that one)",
                     "as the registry's owner: locality-uuid fleet registry --registry \"$REGISTRY\" --past N, "
                         "N above every value the fleet ever leased: at least " + std::to_string(highest) +
                         " (the highest of the audited servers), higher for stopped servers, backups and their "
                         "locality_uuid.lease files, with a margin; then restart every server that leased since "
                         "the registry went back (doc/fleets.md, \"Restoring or failing over the registry\")",
                     {s.where}});
                count_live(s);  // (its sharing with other live servers is still judged below)
                continue;
            }
        }
        // The registry: the value is claimed, for this host and directory,
        // with these machine bytes.
        if (node == by_node.end()) {
            problems.push_back(
                {"node_unregistered", s.where + ": node value " + std::to_string(s.node) + " is not in the registry",
                 "if value " + std::to_string(s.node) + " was given to this server before the registry, adopt it on " +
                     s.where + "'s host: " + claim_command(s.data_directory) + " --node-id " + std::to_string(s.node) +
                     (s.machine_name.empty() ? "" : " --machine-name " + s.machine_name) +
                     " (refused if another host has it); otherwise claim a new value there and reload (" +
                     where_fixes + ")",
                 {s.where}});
        } else {
            const Registered &r = *node->second;
            if (r.retired)
                problems.push_back({"node_retired",
                                    s.where + ": node value " + std::to_string(s.node) + " is retired in the registry",
                                    "a retired value is never used again: " + on_host, {s.where}});
            if (r.how == "leased" && r.system_identifier != s.system_identifier &&
                r.host_id == s.host && r.data_directory == s.data_directory)
                problems.push_back({"lease_elsewhere",
                                    s.where + ": node value " + std::to_string(s.node) +
                                        " was leased to the cluster with system identifier " + r.system_identifier +
                                        "; this server's is " + s.system_identifier,
                                    "give it locality_uuid.registry, so that its every start leases a value of its "
                                    "own (doc/fleets.md, \"Leases\")",
                                    {s.where}});
            if (r.host_id != s.host || r.data_directory != s.data_directory) {
                const bool same_host = r.host_id == s.host;
                problems.push_back(
                    {"node_elsewhere",
                     s.where + ": node value " + std::to_string(s.node) + " is claimed for " + r.host_label +
                         " (digest " + short_digest(r.host_id) + "), data directory " + r.data_directory +
                         "; this server is " +
                         (same_host ? "on the same host" : "host " + short_digest(s.host) + " (" + s.host_source + ")") +
                         ", data directory " + s.data_directory +
                         (same_host ? ": a copy of that data directory, or a second cluster given its node file"
                                    : ": a copied node file, or a clone"),
                     "the claim's own server keeps value " + std::to_string(s.node) + "; " + on_host, {s.where}});
            }
            if (r.machine != s.machine)
                problems.push_back({"machine_not_claimed",
                                    s.where + ": machine bytes " + s.machine + " are not node " +
                                        std::to_string(s.node) + "'s in the registry (" + r.machine + ", " +
                                        r.machine_name + ")",
                                    "give it the registry's machine name " + r.machine_name + ": on " + s.where +
                                        "'s host, node claim again rewrites its node file; then reload",
                                    {s.where}});
        }
        if (by_bytes.find(s.machine) == by_bytes.end())
            problems.push_back({"machine_unregistered",
                                s.where + ": machine bytes " + s.machine + " are not in the registry",
                                "claim (or adopt with --node-id and --machine-name) on " + s.where + "'s host: " +
                                    claim_command(s.data_directory) + ", then reload",
                                {s.where}});
        count_live(s);
    }
    // Which of the servers sharing a value keeps it: the one the registry
    // claims it for; the others need their own.
    // Servers that all match the claim (a clone that kept host identity and
    // data directory) cannot be told apart, and a claim on such a one's host
    // would return the very same value: it needs a host identity of its own
    // first, or leases.
    auto sharing = [&](const std::vector<const Server *> &list, const Registered *claimed, const std::string &what) {
        std::string names, matching, others;
        std::size_t matches = 0;
        for (const Server *s : list) {
            names += (names.empty() ? "" : ", ") + s->where;
            const bool match = claimed != nullptr && claimed->host_id == s->host &&
                               claimed->data_directory == s->data_directory;
            matches += match ? 1 : 0;
            (match ? matching : others) += ((match ? matching : others).empty() ? "" : ", ") + s->where;
        }
        const std::string others_fix =
            others.empty() ? ""
                           : others + (others.find(", ") == std::string::npos
                                           ? " needs a value of its own: node claim on its host, then reload ("
                                           : " need values of their own: node claim on each one's host, then reload (") +
                                 where_fixes + ")";
        if (matches >= 2)
            return std::vector<std::string>{
                names, matching + " all match the registry's claim of " + what +
                           " (one host identity and data directory: a clone that kept both, such as a VM image or a "
                           "volume restored under the same name), so nothing tells the original: keep one; give each "
                           "other one a host identity of its own (a new line in its locality_uuid.host_identity_file, "
                           "or a new /etc/machine-id), then node claim on its host and restart it (with the old "
                           "identity a claim returns the same value); or lease (doc/fleets.md, \"Leases\")" +
                           (others_fix.empty() ? "" : "; " + others_fix)};
        if (matches == 1) return std::vector<std::string>{names, matching + " keeps " + what + " (the registry's claim); " + others_fix};
        return std::vector<std::string>{names, "no server sharing " + what + " is the one the registry claims it for: each "
                                               "needs a value of its own (node claim on its host, then reload)"};
    };
    for (const auto &[node, where] : live_nodes) {
        if (where.size() < 2) continue;
        const auto it = by_node.find(node);
        const auto text = sharing(where, it == by_node.end() ? nullptr : it->second, "node value " + std::to_string(node));
        std::vector<std::string> list;
        for (const Server *s : where) list.push_back(s->where);
        problems.push_back({"node_shared",
                            "node value " + std::to_string(node) + " is live on " +
                                counted(where.size(), "server", "servers") + ": " + text[0],
                            text[1], list});
    }
    for (const auto &[bytes, where] : live_bytes) {
        if (where.size() < 2) continue;
        const auto it = by_bytes.find(bytes);
        const auto text = sharing(where, it == by_bytes.end() ? nullptr : it->second, "machine bytes " + bytes);
        std::vector<std::string> list;
        for (const Server *s : where) list.push_back(s->where);
        problems.push_back({"machine_shared",
                            "Hot Guid machine bytes " + bytes + " are live on " +
                                counted(where.size(), "server", "servers") + ": " + text[0],
                            text[1], list});
    }
    return problems;
}

int fleet_audit(int argc, char **argv) {
    Options o;
    std::string error;
    if (!parse_options(argc, argv, 3, {"--registry", "--registry-owner", "--targets"}, {"--json"}, &o, &error))
        return usage_error(error);
    if (!o.has("--registry") || !o.has("--targets")) return usage_error("fleet audit needs --registry DSN and --targets FILE");
    std::ifstream targets(o.get("--targets"));
    if (!targets) return data_error("could not read " + o.get("--targets"));
    PgConnection registry_conn;
    std::vector<Registered> registry;
    if (!connect_registry(registry_conn, o, /* create */ false, &error) ||
        !read_registry(registry_conn, &registry, &error))
        return data_error("could not read the registry: " + error);
    std::vector<Server> servers;
    std::string line;
    for (int n = 1; std::getline(targets, line); ++n) {
        const std::size_t first = line.find_first_not_of(" \t\r");
        if (first == std::string::npos || line[first] == '#') continue;
        const std::string conninfo = line.substr(first, line.find_last_not_of(" \t\r") - first + 1);
        Server s;
        s.line = n;
        s.where = describe(conninfo);
        read_server(conninfo, &s);
        servers.push_back(s);
    }
    if (servers.empty()) return usage_error("no server in " + o.get("--targets"));
    std::vector<Problem> problems = audit(servers, registry);
    // The claims seen live where they were claimed get last_seen = now()
    // (the registry's seen function: a role without EXECUTE on it is told).
    std::vector<long long> nodes;
    std::vector<std::string> hosts, dirs;
    for (const Server &s : servers)
        if (s.error.empty()) {
            nodes.push_back(s.node);
            hosts.push_back(s.host);
            dirs.push_back(s.data_directory);
        }
    Budget budget;
    std::string budget_error;
    const bool budget_known = read_budget(registry_conn, &budget, &budget_error);
    if (budget_known && !registry_exhausted(budget).empty())
        problems.push_back({"registry_exhausted", registry_exhausted(budget), kExhaustedFix, {}});
    std::string mark_error;
    if (!mark_seen(registry_conn, nodes, hosts, dirs, &mark_error))
        std::fprintf(stderr, "locality-uuid: last_seen not updated: %s (grant EXECUTE on "
                             "locality_uuid_registry.seen to the audit's role: doc/fleets.md)\n",
                     mark_error.c_str());
    if (o.flags.count("--json") != 0) {
        std::printf("{\"servers\":[");
        for (std::size_t i = 0; i < servers.size(); ++i) {
            const Server &s = servers[i];
            std::printf("%s{\"target\":%s,\"line\":%d", i > 0 ? "," : "", json_string(s.where).c_str(), s.line);
            if (!s.error.empty())
                std::printf(",\"error\":%s}", json_string(s.error).c_str());
            else
                std::printf(",\"node\":%lld,\"node_source\":%s,\"machine\":%s,\"machine_name\":%s,\"machine_source\":%s,"
                            "\"host\":%s,\"host_source\":%s,\"data_directory\":%s,\"system_identifier\":%s,"
                            "\"in_recovery\":%s}",
                            s.node, json_string(s.node_source).c_str(), json_string(s.machine).c_str(),
                            json_string(s.machine_name).c_str(), json_string(s.machine_source).c_str(),
                            json_string(s.host).c_str(), json_string(s.host_source).c_str(),
                            json_string(s.data_directory).c_str(), json_string(s.system_identifier).c_str(),
                            s.in_recovery ? "true" : "false");
        }
        std::printf("],\"problems\":[");
        for (std::size_t i = 0; i < problems.size(); ++i) {
            std::printf("%s{\"kind\":\"%s\",\"message\":%s,\"fix\":%s,\"servers\":[", i > 0 ? "," : "",
                        problems[i].kind.c_str(), json_string(problems[i].message).c_str(),
                        json_string(problems[i].fix).c_str());
            for (std::size_t j = 0; j < problems[i].servers.size(); ++j)
                std::printf("%s%s", j > 0 ? "," : "", json_string(problems[i].servers[j]).c_str());
            std::printf("]}");
        }
        std::printf("]");
        if (budget_known) std::printf(",\"budget\":%s", budget_json(budget).c_str());
        std::printf(",\"ok\":%s}\n", problems.empty() ? "true" : "false");
    } else {
        std::printf("%-28s %10s  %-6s  %-7s  %s\n", "server", "node", "bytes", "state", "node source; machine source");
        for (const Server &s : servers) {
            if (!s.error.empty())
                std::printf("%-28s %10s  %-6s  %-7s  %s\n", s.where.c_str(), "-", "-", "error", s.error.c_str());
            else
                std::printf("%-28s %10lld  %-6s  %-7s  %s; %s\n", s.where.c_str(), s.node, s.machine.c_str(),
                            s.in_recovery ? "standby" : "primary", s.node_source.c_str(), s.machine_source.c_str());
        }
        if (problems.empty())
            std::printf("no problems: %s, %s\n", counted(servers.size(), "server", "servers").c_str(),
                        counted(registry.size(), "registry row", "registry rows").c_str());
        else
            std::printf("%s:\n", counted(problems.size(), "problem", "problems").c_str());
        for (const Problem &p : problems) std::printf("  %s\n    fix: %s\n", p.message.c_str(), p.fix.c_str());
        if (budget_known)
            print_budget(budget);
        else
            std::printf("registry: counts not readable (%s)\n", budget_error.c_str());
    }
    std::fflush(stdout);
    return problems.empty() ? kOk : kBadData;
}

// --- fleet scan ------------------------------------------------------------------

// The node value and milliseconds of every Locality UUID (version b) of
// the column, grouped, from pg_catalog's built-ins alone (the bytes of
// uuid_send, as the SQL edition's readers read them): the scan needs no
// extension in the database it reads, and calls nothing a role could
// plant. It reads each table and materialized view of the locked tree
// ($1, see below) with ONLY, so a child attached meanwhile is not read;
// the column is quoted by the server (%I); below 100% it reads pages at
// random (TABLESAMPLE SYSTEM), and a value's time range is then that of
// its sample.
const char kScanQuerySql[] = R"SQL(
SELECT pg_catalog.format($q$
SELECT ((pg_catalog.get_byte(b, 6) OPERATOR(pg_catalog.&) 15) OPERATOR(pg_catalog.<<) 24)
       OPERATOR(pg_catalog.|) (pg_catalog.get_byte(b, 7) OPERATOR(pg_catalog.<<) 16)
       OPERATOR(pg_catalog.|) (pg_catalog.get_byte(b, 8) OPERATOR(pg_catalog.<<) 8)
       OPERATOR(pg_catalog.|) pg_catalog.get_byte(b, 9) AS node,
       pg_catalog.count(*),
       pg_catalog.min(('x' OPERATOR(pg_catalog.||) pg_catalog.encode(pg_catalog.substring(b, 11, 6), 'hex'))
                      ::pg_catalog.bit(48)::pg_catalog.int8),
       pg_catalog.max(('x' OPERATOR(pg_catalog.||) pg_catalog.encode(pg_catalog.substring(b, 11, 6), 'hex'))
                      ::pg_catalog.bit(48)::pg_catalog.int8)
FROM (%s) s
WHERE b IS NOT NULL AND (pg_catalog.get_byte(b, 6) OPERATOR(pg_catalog.&) 240) OPERATOR(pg_catalog.=) 176
GROUP BY 1 ORDER BY 1$q$,
    COALESCE((SELECT pg_catalog.string_agg(pg_catalog.format('SELECT pg_catalog.uuid_send(%I) AS b FROM ONLY %s %s',
                                                             $2::pg_catalog.text, c.oid::pg_catalog.regclass,
                                                             CASE WHEN $3::pg_catalog.float8 OPERATOR(pg_catalog.<) 100
                                                                  THEN pg_catalog.format('TABLESAMPLE SYSTEM (%s)', $3::pg_catalog.float8)
                                                                  ELSE '' END), ' UNION ALL ')
              FROM pg_catalog.pg_class c
              WHERE c.oid OPERATOR(pg_catalog.=) ANY ($1::pg_catalog.oid[])
                AND c.relkind OPERATOR(pg_catalog.=) ANY ('{r,m}'::pg_catalog."char"[])),
             'SELECT NULL::pg_catalog.bytea AS b WHERE false'))
)SQL";

// The table and every partition or child under it, as an array of oids,
// and the statement that locks its tables (LOCK TABLE takes no
// materialized view: one is read under the read's own ACCESS SHARE; any
// other kind is refused below, by kScanTargetSql's answer): no view can replace a table
// meanwhile, and (SHARE UPDATE EXCLUSIVE, where the scanner may take it:
// writes go on) no index or statistics object can be added between the
// check of what planning would run (kScanCodeSql) and the planning. A
// scanner with SELECT alone takes ACCESS SHARE, as the scan would
// (doc/fleets.md says so). MAINTAIN is not asked: before 17 the privilege
// does not exist.
const char kScanTreeSql[] = R"SQL(
WITH RECURSIVE tree(oid) AS (
    SELECT $1::pg_catalog.oid
    UNION
    SELECT i.inhrelid FROM pg_catalog.pg_inherits i JOIN tree ON i.inhparent OPERATOR(pg_catalog.=) tree.oid)
SELECT pg_catalog.array_agg(tree.oid)::pg_catalog.text,
       COALESCE('LOCK TABLE ' OPERATOR(pg_catalog.||)
                pg_catalog.string_agg(pg_catalog.format('ONLY %s', tree.oid::pg_catalog.regclass), ', ')
                    FILTER (WHERE c.relkind OPERATOR(pg_catalog.=) ANY ('{r,p}'::pg_catalog."char"[])) OPERATOR(pg_catalog.||)
                CASE WHEN pg_catalog.bool_and(pg_catalog.has_table_privilege(tree.oid, 'UPDATE, DELETE, TRUNCATE'))
                     THEN ' IN SHARE UPDATE EXCLUSIVE MODE' ELSE ' IN ACCESS SHARE MODE' END, '')
FROM tree JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) tree.oid
)SQL";

// What planning the scan would run with the scanner's rights: the planner
// folds index expressions and predicates, CHECK constraints, partition keys
// (a partition's bound is its ancestors' key), extended statistics'
// expressions and virtual generated columns, so a function or operator in
// them that is not pg_catalog's would run as the one who scans. Each of
// those records a pg_depend row for every function and operator it calls
// that is not built in (built-ins are pinned and record none), the same
// from 13 to 19. $1: the tree (oid[]), $2: the table, $3: the column.
// One row per call found, as the refusal says it.
const char kScanCodeSql[] = R"SQL(
WITH rels AS (SELECT t.oid FROM pg_catalog.unnest($1::pg_catalog.oid[]) t(oid)
              UNION SELECT a.relid FROM pg_catalog.pg_partition_ancestors($2::pg_catalog.oid) a),
holders(classid, objid, what) AS (
    SELECT 'pg_catalog.pg_class'::pg_catalog.regclass::pg_catalog.oid, x.indexrelid,
           pg_catalog.format('index %s', x.indexrelid::pg_catalog.regclass)
    FROM pg_catalog.pg_index x JOIN rels r ON x.indrelid OPERATOR(pg_catalog.=) r.oid
    UNION ALL
    SELECT 'pg_catalog.pg_constraint'::pg_catalog.regclass::pg_catalog.oid, c.oid,
           pg_catalog.format('constraint %I of %s', c.conname, c.conrelid::pg_catalog.regclass)
    FROM pg_catalog.pg_constraint c JOIN rels r ON c.conrelid OPERATOR(pg_catalog.=) r.oid
    UNION ALL
    SELECT 'pg_catalog.pg_class'::pg_catalog.regclass::pg_catalog.oid, r.oid,
           pg_catalog.format('the partition key of %s', r.oid::pg_catalog.regclass)
    FROM rels r
    UNION ALL
    SELECT 'pg_catalog.pg_statistic_ext'::pg_catalog.regclass::pg_catalog.oid, s.oid,
           pg_catalog.format('statistics object %I', s.stxname)
    FROM pg_catalog.pg_statistic_ext s JOIN rels r ON s.stxrelid OPERATOR(pg_catalog.=) r.oid
    UNION ALL
    SELECT 'pg_catalog.pg_attrdef'::pg_catalog.regclass::pg_catalog.oid, d.oid,
           pg_catalog.format('generated column %I of %s', a.attname, a.attrelid::pg_catalog.regclass)
    FROM pg_catalog.pg_attribute a JOIN rels r ON a.attrelid OPERATOR(pg_catalog.=) r.oid
         JOIN pg_catalog.pg_attrdef d ON d.adrelid OPERATOR(pg_catalog.=) a.attrelid AND d.adnum OPERATOR(pg_catalog.=) a.attnum
    WHERE a.attname OPERATOR(pg_catalog.=) $3::pg_catalog.name AND a.attgenerated::pg_catalog.text OPERATOR(pg_catalog.=) 'v')
SELECT DISTINCT pg_catalog.format('%s calls %s', h.what,
         CASE WHEN p.oid IS NOT NULL THEN 'function ' OPERATOR(pg_catalog.||) p.oid::pg_catalog.regprocedure::pg_catalog.text
              ELSE 'operator ' OPERATOR(pg_catalog.||) o.oid::pg_catalog.regoperator::pg_catalog.text END)
FROM holders h
JOIN pg_catalog.pg_depend d ON d.classid OPERATOR(pg_catalog.=) h.classid AND d.objid OPERATOR(pg_catalog.=) h.objid
LEFT JOIN pg_catalog.pg_proc p ON d.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_proc'::pg_catalog.regclass::pg_catalog.oid
                               AND p.oid OPERATOR(pg_catalog.=) d.refobjid
LEFT JOIN pg_catalog.pg_operator o ON d.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_operator'::pg_catalog.regclass::pg_catalog.oid
                                   AND o.oid OPERATOR(pg_catalog.=) d.refobjid
WHERE p.pronamespace OPERATOR(pg_catalog.<>) 'pg_catalog'::pg_catalog.regnamespace::pg_catalog.oid
   OR o.oprnamespace OPERATOR(pg_catalog.<>) 'pg_catalog'::pg_catalog.regnamespace::pg_catalog.oid
ORDER BY 1
)SQL";

// What the scan would read, once locked: the relkinds of the tree's
// relations (as one string), and whether the column is a uuid (or a
// domain over uuid).
const char kScanTargetSql[] = R"SQL(
SELECT (SELECT pg_catalog.string_agg(DISTINCT c.relkind::pg_catalog.text, '')
        FROM pg_catalog.pg_class c WHERE c.oid OPERATOR(pg_catalog.=) ANY ($3::pg_catalog.oid[])),
       COALESCE((SELECT t.oid OPERATOR(pg_catalog.=) 'pg_catalog.uuid'::pg_catalog.regtype::pg_catalog.oid
                        OR t.typbasetype OPERATOR(pg_catalog.=) 'pg_catalog.uuid'::pg_catalog.regtype::pg_catalog.oid
                 FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_type t ON t.oid OPERATOR(pg_catalog.=) a.atttypid
                 WHERE a.attrelid OPERATOR(pg_catalog.=) $1::pg_catalog.oid
                   AND a.attname OPERATOR(pg_catalog.=) $2::pg_catalog.name
                   AND a.attnum OPERATOR(pg_catalog.>) 0 AND NOT a.attisdropped), false)
)SQL";

std::string iso_millis(long long millis) {
    char iso[40];
    locality::format_iso8601_micros(static_cast<std::int64_t>(millis) * 1000, true, iso);
    return iso;
}

int fleet_scan(int argc, char **argv) {
    Options o;
    std::string error;
    if (!parse_options(argc, argv, 3, {"--dsn", "--table", "--column", "--sample", "--registry", "--registry-owner"},
                       {"--json"}, &o, &error))
        return usage_error(error);
    if (!o.has("--dsn") || !o.has("--table") || !o.has("--column"))
        return usage_error("fleet scan needs --dsn DSN, --table TABLE and --column COLUMN");
    const std::string sample = o.has("--sample") ? o.get("--sample") : "100";
    char *end = nullptr;
    const double percent = std::strtod(sample.c_str(), &end);
    if (*end != '\0' || !(percent > 0 && percent <= 100)) return usage_error("--sample takes a percentage above 0, up to 100");
    std::vector<Registered> registry;
    const bool has_registry = o.has("--registry");
    if (has_registry) {
        PgConnection registry_conn;
        if (!connect_registry(registry_conn, o, /* create */ false, &error) ||
            !read_registry(registry_conn, &registry, &error))
            return data_error("could not read the registry: " + error);
    }
    PgConnection conn;
    if (!conn.connect(o.get("--dsn"), &error)) return data_error("could not connect: " + error);
    // The table as the user names it, under the user's own path (as psql
    // would find it); everything the scan calls is pg_catalog's.
    // (Two statements: a cast of a parameter is folded when the statement
    // is planned, before the first one's set_config runs.)
    PgResult t;
    std::string table;
    if (!conn.exec("BEGIN", &error) ||
        !conn.exec("SELECT pg_catalog.set_config('search_path', $1, true)", {conn.user_search_path()}, &t, &error) ||
        !conn.exec("SELECT $1::pg_catalog.regclass::pg_catalog.oid", {o.get("--table")}, &t, &error) ||
        !t.text_at(0, 0, &table) || !conn.exec("ROLLBACK", &error))
        return data_error(error.empty() ? "could not find table " + o.get("--table") : error);
    // Only stored rows, read as stored: a view's body, a foreign table's
    // wrapper or a cast into uuid would run code the table's owner wrote,
    // with the scanner's rights; row security would run its policies
    // (off: a table with one is an error, not a partial answer). Checked
    // and read in one transaction, under the locks the scan takes anyway.
    PgResult k;
    std::string tree, lock, kinds, is_uuid;
    if (!conn.exec("SELECT pg_catalog.set_config('row_security', 'off', false)", {}, &k, &error) ||
        !conn.exec("BEGIN", &error))
        return data_error(error);
    if (!conn.exec(kScanTreeSql, {table}, &k, &error) || !k.text_at(0, 0, &tree) || !k.text_at(0, 1, &lock) ||
        (!lock.empty() && !conn.exec(lock, &error)) ||
        !conn.exec(kScanTargetSql, {table, o.get("--column"), tree}, &k, &error) || !k.text_at(0, 0, &kinds) ||
        !k.text_at(0, 1, &is_uuid))
        return data_error(error.empty() ? "could not read what " + o.get("--table") + " is" : error);
    if (kinds.find_first_not_of("rpm") != std::string::npos)
        return data_error("fleet scan reads tables, partitioned tables and materialized views, with their partitions and "
                          "children: " + o.get("--table") + " is or holds another kind of relation (pg_class.relkind '" +
                          kinds + "'), whose reading would run its owner's code");
    if (is_uuid != "t")
        return data_error("column " + o.get("--column") + " of " + o.get("--table") + " is not of type uuid");
    PgResult code;
    if (!conn.exec(kScanCodeSql, {tree, table, o.get("--column")}, &code, &error)) return data_error(error);
    if (code.rows() > 0) {
        std::string calls;
        for (int i = 0; i < code.rows(); ++i) {
            std::string call;
            code.text_at(i, 0, &call);
            calls += (i > 0 ? "; " : "") + call;
        }
        return data_error("fleet scan will not read " + o.get("--table") + ": planning the read would run code of its "
                          "owner's with the scanner's rights: " + calls + " (only pg_catalog's functions and operators "
                          "may be called there; doc/fleets.md, \"Finding a shared value\")");
    }
    PgResult q;
    std::string query;
    if (!conn.exec(kScanQuerySql, {tree, o.get("--column"), sample}, &q, &error))
        return data_error(error);
    if (!q.text_at(0, 0, &query)) return data_error("could not build the scan's query");
    PgResult r;
    if (!conn.exec(query, {}, &r, &error)) return data_error(error);
    std::map<long long, const Registered *> by_node;
    for (const Registered &reg : registry) by_node[reg.node] = &reg;
    const bool json = o.flags.count("--json") != 0;
    int unclaimed = 0, before_lease = 0;
    if (!json) std::printf("%10s  %10s  %-24s  %-24s  %s\n", "node", "ids", "first", "last", "claim");
    for (int i = 0; i < r.rows(); ++i) {
        long long node = 0, ids = 0, first = 0, last = 0;
        if (!r.integer_at(i, 0, 0, 268435455, &node) || !r.integer_at(i, 1, 1, 9223372036854775807LL, &ids) ||
            !r.integer_at(i, 2, 0, 281474976710655LL, &first) || !r.integer_at(i, 3, 0, 281474976710655LL, &last))
            return data_error("the scan gave a malformed row");
        std::string claim = "-";
        if (has_registry) {
            const auto it = by_node.find(node);
            if (it == by_node.end())
                claim = "not in the registry";
            else if (it->second->how == "leased") {  // one start's value: say which start
                claim = "lease: " + it->second->host_label + " " + it->second->data_directory + ", started " +
                        it->second->started_at + ", system identifier " + it->second->system_identifier;
                // Ids from before the start that leased the value: another
                // holder's (a registry that went back handed it out again),
                // unless they were given an earlier time (a backfill).
                if (it->second->started_ms >= 0 && first < it->second->started_ms) {
                    claim += "; ids from before that start: an earlier holder's (the registry went back? perhaps "
                             "this data directory's own, before), or given an earlier time";
                    ++before_lease;
                }
            }
            else
                claim = it->second->host_label + " " + it->second->data_directory;
            if (it == by_node.end()) ++unclaimed;
        }
        if (json)
            std::printf("{\"node\":%lld,\"ids\":%lld,\"first\":\"%s\",\"last\":\"%s\",\"claim\":%s}\n", node, ids,
                        iso_millis(first).c_str(), iso_millis(last).c_str(), json_string(claim).c_str());
        else
            std::printf("%10lld  %10lld  %-24s  %-24s  %s\n", node, ids, iso_millis(first).c_str(),
                        iso_millis(last).c_str(), claim.c_str());
    }
    std::fflush(stdout);
    return unclaimed == 0 && before_lease == 0 ? kOk : kBadData;
}

}  // namespace

int node_command(int argc, char **argv) {
    const std::string sub = argc > 2 ? argv[2] : "";
    if (sub == "claim") return node_claim(argc, argv);
    return usage_error("node needs a subcommand: claim");
}

int fleet_command(int argc, char **argv) {
    const std::string sub = argc > 2 ? argv[2] : "";
    if (sub == "audit") return fleet_audit(argc, argv);
    if (sub == "scan") return fleet_scan(argc, argv);
    if (sub == "registry") return fleet_registry(argc, argv);
    return usage_error("fleet needs a subcommand: registry, audit or scan");
}

}  // namespace locality_cli
