// The fleet commands (doc/fleets.md): `node claim` takes node values from
// the registry (registry.hpp) and writes a host's node file; `fleet audit`
// reads every server's values, their sources and binding
// (locality_uuid_binding()) and lists what a fleet must not have; `fleet
// scan` lists the node values in a table's ids.
#include "fleet.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "host_identity.hpp"
#include "exit_status.hpp"
#include "json_text.hpp"
#include "pg_client.hpp"
#include "registry.hpp"

namespace locality_cli {
namespace {

std::string json_string(const std::string &text) { return "\"" + json_escaped(text) + "\""; }

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

// --- node claim ------------------------------------------------------------------

void print_claim(const Claim &c, bool json) {
    if (json)
        std::printf("{\"node\":%lld,\"machine_name\":%s,\"machine\":\"%s\",\"host\":%s,\"host_id\":\"%s\","
                    "\"data_directory\":%s,\"existing\":%s}\n",
                    c.node, json_string(c.machine_name).c_str(), c.machine_bytes.c_str(),
                    json_string(c.host_label).c_str(), c.host_id.c_str(), json_string(c.data_directory).c_str(),
                    c.existing ? "true" : "false");
    else
        std::printf("node %lld, machine name %s (bytes %s): %s claim for %s, data directory %s\n", c.node,
                    c.machine_name.c_str(), c.machine_bytes.c_str(), c.existing ? "the existing" : "a new",
                    c.host_label.c_str(), c.data_directory.c_str());
}

int node_claim(int argc, char **argv) {
    Options o;
    std::string error;
    if (!parse_options(argc, argv, 3,
                       {"--registry", "--host-id", "--host-identity-file", "--data-directory", "--write", "--block",
                        "--write-dir"},
                       {"--json"}, &o, &error))
        return usage_error(error);
    if (!o.has("--registry")) return usage_error("node claim needs --registry DSN");
    std::string dir = o.get("--data-directory");
    if (dir.empty() && std::getenv("PGDATA") != nullptr) dir = std::getenv("PGDATA");
    if (dir.empty()) return usage_error("node claim needs --data-directory (or PGDATA)");
    dir = normalized_directory(dir);  // as the server's binding shows it
    const bool block = o.has("--block");
    if (block ? !o.has("--write-dir") || !o.has("--host-id") : !o.has("--write"))
        return usage_error(block ? "a block claim needs --host-id LABEL and --write-dir DIR" : "node claim needs --write FILE");
    if (o.has("--host-id") && o.has("--host-identity-file"))
        return usage_error("give --host-id or --host-identity-file, not both");

    PgConnection conn;
    if (!conn.connect(o.get("--registry"), &error)) return data_error("could not connect to the registry: " + error);
    if (!ensure_registry(conn, &error)) return data_error("could not create the registry: " + error);
    const bool json = o.flags.count("--json") != 0;

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
        for (const Claim &c : claims)
            if (!valid_machine_name(c.machine_name))
                return data_error("the registry holds machine name '" + c.machine_name + "' for node " +
                               std::to_string(c.node) + ", which cannot be written into a configuration file");
        for (std::size_t i = 0; i < claims.size(); ++i) {
            const std::string base = o.get("--write-dir") + "/ordinal-" + std::to_string(i);
            if (!write_file_atomically(base + ".conf", node_file_text(claims[i], ""), &error) ||
                !write_file_atomically(base + ".host-id", claims[i].host_label + "\n", &error))
                return data_error(error);
            print_claim(claims[i], json);
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
    if (!claim_node(conn, identity, label, dir, &claim, &error)) return data_error("could not claim a node value: " + error);
    if (!valid_machine_name(claim.machine_name))
        return data_error("the registry holds machine name '" + claim.machine_name + "' for node " +
                       std::to_string(claim.node) + ", which cannot be written into a configuration file");
    if (!write_file_atomically(o.get("--write"), node_file_text(claim, identity_file), &error))
        return data_error(error + " (the claim stands: run the same command again to write the file)");
    print_claim(claim, json);
    return kOk;
}

// --- fleet audit -----------------------------------------------------------------

struct Server {
    int line = 0;
    std::string where;  // host:port/dbname, never the password
    std::string error;  // could not be read
    long long node = -1;
    std::string node_source, machine, machine_source, host, data_directory, system_identifier;
    std::string started;  // pg_postmaster_start_time(): one running server, however it is listed
    bool in_recovery = false;
};

struct Problem {
    std::string kind;
    std::string message;
    std::vector<std::string> servers;
};

struct Registered {
    long long node;
    std::string machine_name, machine, host_id, host_label, data_directory;
    bool retired;
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

void read_server(const std::string &conninfo, Server *s) {
    PgConnection conn;
    std::string error;
    if (!conn.connect(conninfo, &error)) {
        s->error = "could not connect: " + error;
        return;
    }
    PgResult r;
    if (!conn.exec("SELECT node, coalesce(node_source, ''), coalesce(machine, ''), coalesce(machine_source, ''), "
                   "coalesce(host, ''), coalesce(data_directory, ''), system_identifier::text, pg_is_in_recovery(), "
                   "pg_postmaster_start_time()::text FROM locality_uuid_binding()",
                   {}, &r, &error)) {
        s->error = "could not read locality_uuid_binding(): " + error;
        return;
    }
    s->node = std::stoll(r.text(0, 0));
    s->node_source = r.text(0, 1);
    s->machine = r.text(0, 2);
    s->machine_source = r.text(0, 3);
    s->host = r.text(0, 4);
    // As the registry holds it (PostgreSQL before 16 keeps a "/./" inside
    // the path it was given).
    s->data_directory = normalized_directory(r.text(0, 5));
    s->system_identifier = r.text(0, 6);
    s->in_recovery = r.text(0, 7) == "t";
    s->started = r.text(0, 8);
}

bool starts_with(const std::string &s, const char *prefix) { return s.rfind(prefix, 0) == 0; }

std::vector<Problem> audit(const std::vector<Server> &servers, const std::vector<Registered> &registry) {
    std::vector<Problem> problems;
    std::map<long long, const Registered *> by_node;
    std::map<std::string, const Registered *> by_bytes;
    for (const Registered &r : registry) {
        by_node[r.node] = &r;
        if (!r.retired) by_bytes[r.machine] = &r;  // a retired row's bytes are no one's to use
    }
    std::set<std::string> seen_places;
    std::map<long long, std::vector<std::string>> live_nodes;
    std::map<std::string, std::vector<std::string>> live_bytes;
    for (const Server &s : servers) {
        if (!s.error.empty()) {
            problems.push_back({"unreadable", s.where + ": " + s.error, {s.where}});
            continue;
        }
        // Where the values come from: only a file of the host outside the
        // data directory is not carried by copies nor shared by chance.
        if (!starts_with(s.node_source, "file "))
            problems.push_back({"node_source",
                                s.where + ": node value " + std::to_string(s.node) + " comes from " + s.node_source +
                                    ", not from a file of the host outside the data directory",
                                {s.where}});
        if (!starts_with(s.machine_source, "file "))
            problems.push_back({"machine_source",
                                s.where + ": the Hot Guid machine name comes from " + s.machine_source +
                                    ", not from a file of the host outside the data directory",
                                {s.where}});
        // The registry: the value is claimed, for this host and directory,
        // with these machine bytes.
        const auto node = by_node.find(s.node);
        if (node == by_node.end()) {
            problems.push_back({"node_unregistered",
                                s.where + ": node value " + std::to_string(s.node) + " is not in the registry",
                                {s.where}});
        } else {
            const Registered &r = *node->second;
            if (r.retired)
                problems.push_back({"node_retired",
                                    s.where + ": node value " + std::to_string(s.node) + " is retired in the registry",
                                    {s.where}});
            if (r.host_id != s.host || r.data_directory != s.data_directory)
                problems.push_back({"node_elsewhere",
                                    s.where + ": node value " + std::to_string(s.node) + " is claimed for " +
                                        r.host_label + ", data directory " + r.data_directory +
                                        "; this server is host " + s.host.substr(0, 16) + ", data directory " +
                                        s.data_directory,
                                    {s.where}});
            if (r.machine != s.machine)
                problems.push_back({"machine_not_claimed",
                                    s.where + ": machine bytes " + s.machine + " are not node " +
                                        std::to_string(s.node) + "'s in the registry (" + r.machine + ", " +
                                        r.machine_name + ")",
                                    {s.where}});
        }
        if (by_bytes.find(s.machine) == by_bytes.end())
            problems.push_back(
                {"machine_unregistered", s.where + ": machine bytes " + s.machine + " are not in the registry", {s.where}});
        // A standby makes no ids until its promotion, when its own values
        // (and the checks above) apply.
        // One server listed twice (an address and a name) counts once: the
        // same place and the same postmaster (a clone that kept machine id,
        // host name and path runs a postmaster of its own, and is listed).
        const std::string place = s.system_identifier + " " + s.host + " " + s.data_directory + " " + s.started;
        if (!s.in_recovery && seen_places.insert(place).second) {
            live_nodes[s.node].push_back(s.where);
            live_bytes[s.machine].push_back(s.where);
        }
    }
    auto list = [](const std::vector<std::string> &where) {
        std::string out;
        for (const std::string &w : where) out += (out.empty() ? "" : ", ") + w;
        return out;
    };
    for (const auto &[node, where] : live_nodes)
        if (where.size() > 1)
            problems.push_back({"node_shared",
                                "node value " + std::to_string(node) + " is live on " + std::to_string(where.size()) +
                                    " servers: " + list(where),
                                where});
    for (const auto &[bytes, where] : live_bytes)
        if (where.size() > 1)
            problems.push_back({"machine_shared",
                                "Hot Guid machine bytes " + bytes + " are live on " + std::to_string(where.size()) +
                                    " servers: " + list(where),
                                where});
    return problems;
}

bool read_registry(const std::string &dsn, std::vector<Registered> *out, std::string *error) {
    PgConnection conn;
    if (!conn.connect(dsn, error)) return false;
    PgResult r;
    if (!conn.exec("SELECT node_id, machine_name, encode(machine_bytes, 'hex'), host_id, host_label, data_directory, "
                   "retired_at IS NOT NULL FROM locality_uuid_registry.nodes",
                   {}, &r, error))
        return false;
    for (int i = 0; i < r.rows(); ++i)
        out->push_back(Registered{std::stoll(r.text(i, 0)), r.text(i, 1), r.text(i, 2), r.text(i, 3), r.text(i, 4),
                                  r.text(i, 5), r.text(i, 6) == "t"});
    return true;
}

// The claims seen live where they were claimed get last_seen = now() (best
// effort: an auditor with read-only rights on the registry skips it).
// A quoted element of a PostgreSQL array literal.
std::string array_element(const std::string &text) {
    std::string out = "\"";
    for (const char c : text) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
    }
    return out + "\"";
}

void touch_registry(const std::string &dsn, const std::vector<Server> &servers) {
    std::string nodes = "{", hosts = "{", dirs = "{", error;
    for (const Server &s : servers) {
        if (!s.error.empty()) continue;
        const std::string sep = nodes.size() > 1 ? "," : "";
        nodes += sep + std::to_string(s.node);
        hosts += sep + array_element(s.host);
        dirs += sep + array_element(s.data_directory);
    }
    PgConnection conn;
    if (!conn.connect(dsn, &error)) return;
    PgResult ignored;
    conn.exec("UPDATE locality_uuid_registry.nodes n SET last_seen = now() "
              "FROM unnest($1::int[], $2::text[], $3::text[]) s(node, host, dir) "
              "WHERE n.node_id = s.node AND n.host_id = s.host AND n.data_directory = s.dir AND n.retired_at IS NULL",
              {nodes + "}", hosts + "}", dirs + "}"}, &ignored, &error);
}

int fleet_audit(int argc, char **argv) {
    Options o;
    std::string error;
    if (!parse_options(argc, argv, 3, {"--registry", "--targets"}, {"--json"}, &o, &error)) return usage_error(error);
    if (!o.has("--registry") || !o.has("--targets")) return usage_error("fleet audit needs --registry DSN and --targets FILE");
    std::ifstream targets(o.get("--targets"));
    if (!targets) return data_error("could not read " + o.get("--targets"));
    std::vector<Registered> registry;
    if (!read_registry(o.get("--registry"), &registry, &error)) return data_error("could not read the registry: " + error);
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
    const std::vector<Problem> problems = audit(servers, registry);
    touch_registry(o.get("--registry"), servers);
    if (o.flags.count("--json") != 0) {
        std::printf("{\"servers\":[");
        for (std::size_t i = 0; i < servers.size(); ++i) {
            const Server &s = servers[i];
            std::printf("%s{\"target\":%s,\"line\":%d", i > 0 ? "," : "", json_string(s.where).c_str(), s.line);
            if (!s.error.empty())
                std::printf(",\"error\":%s}", json_string(s.error).c_str());
            else
                std::printf(",\"node\":%lld,\"node_source\":%s,\"machine\":\"%s\",\"machine_source\":%s,\"host\":\"%s\","
                            "\"data_directory\":%s,\"system_identifier\":\"%s\",\"in_recovery\":%s}",
                            s.node, json_string(s.node_source).c_str(), s.machine.c_str(),
                            json_string(s.machine_source).c_str(), s.host.c_str(), json_string(s.data_directory).c_str(),
                            s.system_identifier.c_str(), s.in_recovery ? "true" : "false");
        }
        std::printf("],\"problems\":[");
        for (std::size_t i = 0; i < problems.size(); ++i) {
            std::printf("%s{\"kind\":\"%s\",\"message\":%s,\"servers\":[", i > 0 ? "," : "", problems[i].kind.c_str(),
                        json_string(problems[i].message).c_str());
            for (std::size_t j = 0; j < problems[i].servers.size(); ++j)
                std::printf("%s%s", j > 0 ? "," : "", json_string(problems[i].servers[j]).c_str());
            std::printf("]}");
        }
        std::printf("],\"ok\":%s}\n", problems.empty() ? "true" : "false");
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
            std::printf("no problems: %zu servers, %zu registry rows\n", servers.size(), registry.size());
        else
            std::printf("%zu problems:\n", problems.size());
        for (const Problem &p : problems) std::printf("  %s\n", p.message.c_str());
    }
    std::fflush(stdout);
    return problems.empty() ? kOk : kBadData;
}

// --- fleet scan ------------------------------------------------------------------

int fleet_scan(int argc, char **argv) {
    Options o;
    std::string error;
    if (!parse_options(argc, argv, 3, {"--dsn", "--table", "--column", "--sample", "--registry"}, {"--json"}, &o,
                       &error))
        return usage_error(error);
    if (!o.has("--dsn") || !o.has("--table") || !o.has("--column"))
        return usage_error("fleet scan needs --dsn DSN, --table TABLE and --column COLUMN");
    const std::string sample = o.has("--sample") ? o.get("--sample") : "100";
    char *end = nullptr;
    const double percent = std::strtod(sample.c_str(), &end);
    if (*end != '\0' || !(percent > 0 && percent <= 100)) return usage_error("--sample takes a percentage above 0, up to 100");
    std::vector<Registered> registry;
    const bool has_registry = o.has("--registry");
    if (has_registry && !read_registry(o.get("--registry"), &registry, &error))
        return data_error("could not read the registry: " + error);
    PgConnection conn;
    if (!conn.connect(o.get("--dsn"), &error)) return data_error("could not connect: " + error);
    // The table and column are quoted by the server (regclass, quote_ident);
    // only version-b ids count. A sample below 100% reads pages at random
    // (TABLESAMPLE SYSTEM): a value's time range is then that of its sample.
    PgResult q;
    if (!conn.exec("SELECT format('SELECT locality_uuid_node(c), count(*), "
                   "to_char(min(locality_uuid_timestamp(c)) AT TIME ZONE ''UTC'', ''YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"''), "
                   "to_char(max(locality_uuid_timestamp(c)) AT TIME ZONE ''UTC'', ''YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"'') "
                   "FROM (SELECT %I AS c FROM %s %s) s "
                   "WHERE c IS NOT NULL AND substr(c::text, 15, 1) = ''b'' GROUP BY 1 ORDER BY 1', $2::text, "
                   "$1::regclass, CASE WHEN $3::float8 < 100 THEN format('TABLESAMPLE SYSTEM (%s)', $3::float8) ELSE '' END)",
                   {o.get("--table"), o.get("--column"), sample}, &q, &error))
        return data_error(error);
    PgResult r;
    if (!conn.exec(q.text(0, 0), {}, &r, &error)) return data_error(error);
    std::map<long long, const Registered *> by_node;
    for (const Registered &reg : registry) by_node[reg.node] = &reg;
    const bool json = o.flags.count("--json") != 0;
    int unclaimed = 0;
    if (!json) std::printf("%10s  %10s  %-24s  %-24s  %s\n", "node", "ids", "first", "last", "claim");
    for (int i = 0; i < r.rows(); ++i) {
        const long long node = std::stoll(r.text(i, 0));
        std::string claim = "-";
        if (has_registry) {
            const auto it = by_node.find(node);
            claim = it == by_node.end() ? "not in the registry" : it->second->host_label + " " + it->second->data_directory;
            if (it == by_node.end()) ++unclaimed;
        }
        if (json)
            std::printf("{\"node\":%lld,\"ids\":%s,\"first\":\"%s\",\"last\":\"%s\",\"claim\":%s}\n", node,
                        r.text(i, 1).c_str(), r.text(i, 2).c_str(), r.text(i, 3).c_str(), json_string(claim).c_str());
        else
            std::printf("%10lld  %10s  %-24s  %-24s  %s\n", node, r.text(i, 1).c_str(), r.text(i, 2).c_str(),
                        r.text(i, 3).c_str(), claim.c_str());
    }
    std::fflush(stdout);
    return unclaimed == 0 ? kOk : kBadData;
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
    return usage_error("fleet needs a subcommand: audit or scan");
}

}  // namespace locality_cli
