#include "registry.hpp"

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "host_identity.hpp"
#include "hot_guid.hpp"
#include "answer.hpp"
#include "registry_sql.hpp"

namespace locality_cli {
namespace {

using namespace locality_registry;

// The registry's layout version, in its schema's comment ("locality_uuid
// registry, layout N").
const char kLayoutCommentPrefix[] = "locality_uuid registry, layout ";

std::string layout_comment() { return kLayoutCommentPrefix + std::to_string(kRegistryLayout); }
// The functions' revision, in the comment of lease().
const char kRevisionCommentPrefix[] = "locality_uuid registry functions, revision ";

// kTrustSql's rows (its problems), as one line.
std::string trust_problems(const PgResult &problems) {
    std::string list;
    for (int i = 0; i < problems.rows(); ++i) list += (i > 0 ? "; " : "") + problems.text(i, 0);
    return list;
}

bool rollback_with(PgConnection &conn, const std::string &message, std::string *error) {
    std::string ignored;
    conn.exec("ROLLBACK", &ignored);
    *error = message;
    return false;
}

// The registry's layout (0: no registry), its owner and whether the
// connecting role acts as that owner.
struct Found {
    long long layout = 0;
    long long revision = 1;  // of the functions (kRegistryFunctionsRevision)
    std::string owner;
    bool is_owner = false;
    bool current() const { return layout == kRegistryLayout && revision >= kRegistryFunctionsRevision; }
};

// N from "<prefix>N" (N > 0), or 0.
long long number_after(const std::string &text, const char *prefix) {
    if (text.rfind(prefix, 0) != 0) return 0;
    char *end = nullptr;
    const long long v = std::strtoll(text.c_str() + std::strlen(prefix), &end, 10);
    return *end == '\0' && v > 0 ? v : 0;
}

bool find_registry(PgConnection &conn, Found *out, std::string *error) {
    PgResult r;
    if (!conn.exec("SELECT pg_catalog.pg_get_userbyid(n.nspowner), "
                   "pg_catalog.pg_has_role(pg_catalog.current_user(), n.nspowner, 'MEMBER'), "
                   "pg_catalog.obj_description(n.oid, 'pg_namespace'), "
                   "(SELECT pg_catalog.obj_description(p.oid, 'pg_proc') FROM pg_catalog.pg_proc p "
                   " WHERE p.pronamespace OPERATOR(pg_catalog.=) n.oid AND p.proname OPERATOR(pg_catalog.=) 'lease' LIMIT 1) "
                   "FROM pg_catalog.pg_namespace n WHERE n.nspname OPERATOR(pg_catalog.=) 'locality_uuid_registry'",
                   {}, &r, error))
        return false;
    *out = Found{};
    if (r.rows() == 0) return true;
    if (!r.text_at(0, 0, &out->owner) || !r.bool_at(0, 1, &out->is_owner)) {
        *error = "could not read the registry schema's owner";
        return false;
    }
    // A schema without our comment: layout 0, refused unless its owner
    // makes it ours (the trust check then judges what is in it).
    std::string comment;
    out->layout = r.text_at(0, 2, &comment) ? number_after(comment, kLayoutCommentPrefix) : 0;
    std::string revision;
    if (r.text_at(0, 3, &revision) && number_after(revision, kRevisionCommentPrefix) > 0)
        out->revision = number_after(revision, kRevisionCommentPrefix);
    return true;
}

// What to do when CREATE SCHEMA failed with `error`: nothing to add, or
// the hint for a name taken (42P06) or a privilege missing (42501).
std::string schema_hint(const std::string &error, const std::string &owner) {
    if (error.rfind("42P06:", 0) == 0)
        return " (a schema of that name made beforehand is not the registry's: if it holds nothing, drop it, then run "
               "this again)";
    if (error.rfind("42501:", 0) == 0)
        return " (the registry needs two schemas of its own: as the database's owner, GRANT CREATE ON DATABASE to "
               "role " + owner + ")";
    return "";
}

// Creates or updates the registry to this layout as role `as_role` (the
// connecting role if empty; else a role it is a member of, so that the
// objects are that role's), under a lock that serializes creators (the
// registry is looked at again under it).
// A registry found in place is judged before anything runs in it: a
// trigger, a grant or a function another role planted would otherwise run
// the update's statements with the owner's rights (and commit what it
// did). A new schema is created plainly, so that one another role creates
// meanwhile is an error, not a registry.
bool make_registry(PgConnection &conn, const std::string &as_role, const std::string &trusted, std::string *error) {
    if (!conn.exec("BEGIN", error)) return false;
    PgResult ignored;
    if (!as_role.empty() &&
        !conn.exec("SELECT pg_catalog.set_config('role', $1, true)", {as_role}, &ignored, error))
        return rollback_with(conn, *error, error);
    Found f;
    if (!conn.exec("SELECT pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtext('locality_uuid_registry'))", error) ||
        !find_registry(conn, &f, error))
        return rollback_with(conn, *error, error);
    if (f.current()) return conn.exec("COMMIT", error);
    if (f.owner.empty()) {
        if (!conn.exec("CREATE SCHEMA locality_uuid_registry", error))
            return rollback_with(conn, *error + schema_hint(*error, trusted), error);
    } else {
        PgResult problems;
        if (!conn.exec(kTrustSql, {trusted, "false"}, &problems, error)) return rollback_with(conn, *error, error);
        if (problems.rows() > 0) {
            return rollback_with(conn, "it is not role " + trusted + "'s alone, so nothing was changed in it: " +
                                           trust_problems(problems) +
                                           " (doc/fleets.md, \"Who may do what\")", error);
        }
    }
    // The comment is this program's constant, not input. A newer revision
    // of the functions alone replaces them and touches no table: the
    // migration's ALTER TABLE would wait for every lock any role holds on
    // them, and queue every claim and lease behind it. An older layout's
    // relations move to the private schema first (each move bounded in
    // time: kRegistryMoveSql), which is created plainly: one another role
    // made first is an error, not a registry.
    const bool functions_only = f.layout == kRegistryLayout;
    if (!functions_only && !f.owner.empty() && f.layout == 0) {
        // A schema without our layout comment whose tables are in the
        // private schema: a registry of layout 3 or later restored without
        // its comments (pg_dump --no-comments), not one to make again.
        PgResult r;
        if (!conn.exec("SELECT pg_catalog.count(*) FROM pg_catalog.pg_class c "
                       "WHERE c.relnamespace OPERATOR(pg_catalog.=) "
                       "      (SELECT n.oid FROM pg_catalog.pg_namespace n "
                       "       WHERE n.nspname OPERATOR(pg_catalog.=) 'locality_uuid_registry_private') "
                       "  AND (c.relname, c.relkind) IN (('nodes', 'r'), ('node_values', 'S'))",
                       {}, &r, error))
            return rollback_with(conn, *error, error);
        long long held = 0;
        if (!r.integer_at(0, 0, 0, 1LL << 40, &held) || held > 0)
            return rollback_with(conn, "schema locality_uuid_registry has no layout comment, and "
                                       "locality_uuid_registry_private holds relations: a registry restored without "
                                       "its comments (pg_dump --no-comments)? As role " + trusted +
                                       ", give its layout back (COMMENT ON SCHEMA locality_uuid_registry IS "
                                       "'locality_uuid registry, layout " + std::to_string(kRegistryLayout) +
                                       "') and run this again; its identity went with the comments (doc/fleets.md, "
                                       "\"Restoring or failing over the registry\")",
                                 error);
    }
    if (!functions_only && !conn.exec("CREATE SCHEMA locality_uuid_registry_private", error))
        return rollback_with(conn, *error + schema_hint(*error, trusted), error);
    // A registry being made keeps no privilege default ones gave
    // (kRegistryGrantsSql); an update keeps its delegations, whatever a
    // setting made beforehand says.
    if (!conn.exec("SELECT pg_catalog.set_config('locality_uuid_registry.making', $1, true)",
                   {f.owner.empty() ? "on" : "off"}, &ignored, error))
        return rollback_with(conn, *error, error);
    if ((!functions_only &&
         (!conn.exec(kRegistryMoveSql, error) || !conn.exec(kRegistryMigrationSql, error) ||
          !conn.exec(kRegistryTablesSql, error))) ||
        !conn.exec(kRegistryFunctionsSql, error) || (!functions_only && !conn.exec(kRegistryGrantsSql, error)) ||
        !conn.exec("COMMENT ON SCHEMA locality_uuid_registry IS '" + layout_comment() + "'", error) ||
        !conn.exec("COMMENT ON FUNCTION locality_uuid_registry.lease(text, text, text, text, timestamptz) IS '" +
                       (kRevisionCommentPrefix + std::to_string(kRegistryFunctionsRevision)) + "'",
                   error))
        return rollback_with(conn, *error, error);
    // What was made is judged before it commits: a registry this update
    // would leave untrusted (a default privilege on what it created, say)
    // is left as it was.
    PgResult problems;
    if (!conn.exec(kTrustSql, {trusted, "true"}, &problems, error)) return rollback_with(conn, *error, error);
    if (problems.rows() > 0)
        return rollback_with(conn, "it would not be role " + trusted + "'s alone, so nothing was changed in it: " +
                                       trust_problems(problems) + " (doc/fleets.md, \"Who may do what\")",
                             error);
    return conn.exec("COMMIT", error);
}

// The claim function's rows, each checked.
bool read_claims(const PgResult &r, std::vector<Claim> *out, std::string *error) {
    for (int i = 0; i < r.rows(); ++i) {
        Claim c;
        bool existing = false;
        if (!r.integer_at(i, 0, 1, 268435455, &c.node) || !r.text_at(i, 1, &c.machine_name) ||
            !r.text_at(i, 2, &c.machine_bytes) || !r.text_at(i, 3, &c.host_label) || !r.bool_at(i, 4, &existing)) {
            *error = "the registry's claim returned a row with a missing or malformed field";
            return false;
        }
        c.existing = existing;
        out->push_back(c);
    }
    return true;
}

// A quoted element of a PostgreSQL array literal.
std::string array_element(const std::string &text) {
    std::string out = "\"";
    for (const char c : text) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
    }
    return out + "\"";
}

// What claims read back must be: each a node value in range, a machine name
// a configuration file can carry whose MD5 bytes are the ones returned,
// and no other row of the registry with that node value, machine name or
// machine bytes (the registry's own constraints say so; this says so
// again for what these hosts will use). One statement for all of them:
// the rows that hold any of their values, names or bytes are read through
// holders() (by the table's unique indexes) and joined by hash.
bool check_claims(PgConnection &conn, const std::vector<Claim> &claims, std::string *error) {
    std::string nodes = "{", bytes = "{", names = "{", hosts = "{", dirs = "{";
    for (std::size_t i = 0; i < claims.size(); ++i) {
        const Claim &c = claims[i];
        const char *why = nullptr;
        if (!answer_holds(c.node, c.machine_name.c_str(), c.machine_bytes.c_str(), &why)) {
            *error = "the registry returned node " + std::to_string(c.node) + ", machine name '" + c.machine_name +
                     "', bytes " + c.machine_bytes + ": " + why;
            return false;
        }
        const std::string sep = i > 0 ? "," : "";
        nodes += sep + std::to_string(c.node);
        bytes += sep + array_element(c.machine_bytes);
        names += sep + array_element(c.machine_name);
        hosts += sep + array_element(c.host_id);
        dirs += sep + array_element(c.data_directory);
    }
    PgResult r;
    if (!conn.exec("WITH c AS (SELECT * FROM ROWS FROM (pg_catalog.unnest($1::pg_catalog.int4[]), "
                   "                 pg_catalog.unnest($2::pg_catalog.text[]), pg_catalog.unnest($3::pg_catalog.text[]), "
                   "                 pg_catalog.unnest($4::pg_catalog.text[]), pg_catalog.unnest($5::pg_catalog.text[])) "
                   "                 AS c(node, bytes, name, host, dir)), "
                   "n AS (SELECT r.node_id, r.machine_name, r.machine_bytes, r.host_id, r.data_directory, "
                   "             r.retired_at IS NULL AS live "
                   "      FROM locality_uuid_registry.holders($1::pg_catalog.int4[], $3::pg_catalog.text[], "
                   "           ARRAY(SELECT pg_catalog.decode(b, 'hex') FROM pg_catalog.unnest($2::pg_catalog.text[]) b)) r), "
                   "m AS (SELECT c.node AS claim, n.* FROM c JOIN n ON n.node_id OPERATOR(pg_catalog.=) c.node "
                   "      UNION SELECT c.node, n.* FROM c JOIN n "
                   "            ON n.machine_bytes OPERATOR(pg_catalog.=) pg_catalog.decode(c.bytes, 'hex') "
                   "      UNION SELECT c.node, n.* FROM c JOIN n ON n.machine_name OPERATOR(pg_catalog.=) c.name) "
                   "SELECT c.node, pg_catalog.count(m.node_id) FILTER (WHERE m.node_id OPERATOR(pg_catalog.=) c.node "
                   "  AND m.machine_name OPERATOR(pg_catalog.=) c.name AND m.host_id OPERATOR(pg_catalog.=) c.host "
                   "  AND m.data_directory OPERATOR(pg_catalog.=) c.dir AND m.live), pg_catalog.count(m.node_id) "
                   "FROM c LEFT JOIN m ON m.claim OPERATOR(pg_catalog.=) c.node GROUP BY c.node",
                   {nodes + "}", bytes + "}", names + "}", hosts + "}", dirs + "}"}, &r, error)) {
        *error = "could not check the claim: " + *error;
        return false;
    }
    if (r.rows() != static_cast<int>(claims.size())) {
        *error = "could not check the claim: " + std::to_string(r.rows()) + " answers for " +
                 std::to_string(claims.size()) + " claims";
        return false;
    }
    for (int i = 0; i < r.rows(); ++i) {
        long long node = 0, own = 0, all = 0;
        if (!r.integer_at(i, 0, 1, 268435455, &node) || !r.integer_at(i, 1, 0, 1, &own) ||
            !r.integer_at(i, 2, 0, 1000000, &all) || own != 1 || all != 1) {
            const Claim *c = &claims[0];
            for (const Claim &k : claims)
                if (k.node == node) c = &k;
            *error = "the registry does not hold node value " + std::to_string(c->node) + " and machine name " +
                     c->machine_name + " once, for this host and data directory alone";
            return false;
        }
    }
    return true;
}

}  // namespace

bool host_digest(const std::string &identity, std::string *out) {
    char hex[33];
    if (!locality::identity_digest(identity.data(), identity.size(), hex)) return false;
    *out = hex;
    return true;
}

bool default_host_identity(std::string *identity, std::string *label) {
    // As the server's binding (src/pg/identity/binding.cpp): the machine id
    // and the host name, one line each.
    char machine_id[128];
    const bool has_id = locality::read_first_line("/etc/machine-id", machine_id, sizeof machine_id);
    char host[256];
    if (gethostname(host, sizeof host) != 0) return false;
    host[sizeof host - 1] = '\0';
    *identity = std::string(has_id ? machine_id : "") + "\n" + host;
    *label = has_id ? "machine-id and host name (" + std::string(host) + ")" : "host name (" + std::string(host) + ")";
    return true;
}

bool open_registry(PgConnection &conn, const std::string &owner, bool create, std::string *error) {
    PgResult me;
    std::string current;
    if (!conn.exec("SELECT pg_catalog.current_user()::pg_catalog.text", {}, &me, error)) return false;
    if (!me.text_at(0, 0, &current)) {
        *error = "could not read the connecting role";
        return false;
    }
    const std::string trusted = owner.empty() ? current : owner;
    Found f;
    if (!find_registry(conn, &f, error)) return false;
    if (f.layout > kRegistryLayout) {
        *error = "the registry has layout " + std::to_string(f.layout) + ", newer than this locality-uuid's (" +
                 std::to_string(kRegistryLayout) + "): use a newer locality-uuid";
        return false;
    }
    if (f.owner.empty() && !create) {
        *error = "there is no registry in this database (locality-uuid fleet registry or node claim creates it)";
        return false;
    }
    // Made, or updated to this layout, only by its owner (or a member of
    // that role, acting as it); anything else is judged as it stands.
    if (create && (f.owner.empty() || (f.owner == trusted && f.is_owner && !f.current()))) {
        if (!make_registry(conn, trusted == current ? "" : trusted, trusted, error)) {
            *error = (f.owner.empty() ? "could not create the registry: " : "could not update the registry: ") + *error;
            return false;
        }
        if (!find_registry(conn, &f, error)) return false;
    }
    if (!f.owner.empty() && f.owner != trusted) {
        *error = "the registry is owned by role " + f.owner + ", not role " + trusted +
                 (owner.empty() ? ": if role " + f.owner + " is its owner, pass --registry-owner " + f.owner
                                : std::string(": refusing it (whoever may write it decides node values)"));
        return false;
    }
    PgResult problems;
    if (!conn.exec(kTrustSql, {trusted, "true"}, &problems, error)) {
        *error = "could not check the registry: " + *error;
        return false;
    }
    if (problems.rows() > 0) {
        *error = "refusing the registry: whoever may write it decides node values, and it is not role " + trusted +
                 "'s alone, or lacks what keeps a value from being handed out twice: " + trust_problems(problems) +
                 " (doc/fleets.md, \"Who may do what\")";
        return false;
    }
    if (f.layout < kRegistryLayout) {
        *error = "the registry has " + (f.layout == 0 ? std::string("no locality_uuid layout") : "layout " + std::to_string(f.layout)) +
                 ", this locality-uuid needs layout " + std::to_string(kRegistryLayout) +
                 ": run locality-uuid fleet registry once as role " + f.owner + " to update it";
        return false;
    }
    // Older functions still hand values out once; they only wait for locks
    // another role can hold (registry_sql.hpp).
    if (f.revision < kRegistryFunctionsRevision)
        std::fprintf(stderr,
                     "locality-uuid: warning: the registry's functions are revision %lld, this locality-uuid's %d: %s; "
                     "run locality-uuid fleet registry once as role %s to update them\n",
                     f.revision, kRegistryFunctionsRevision,
                     f.revision < 2   ? "a lock any role with USAGE on the schema can hold stalls every claim and lease"
                     : f.revision < 3 ? "the registry has no identity, so a server cannot tell it restored at another "
                                        "address"
                                      : "an auditor's transaction left open after seen() delays a claim again of the "
                                        "rows it marked",
                     f.owner.c_str());
    return true;
}

bool claim_node(PgConnection &conn, const std::string &host_identity, const std::string &host_label,
                const std::string &data_directory, long long adopt_node, const std::string &adopt_name, Claim *out,
                std::string *error) {
    std::string host_id;
    if (!host_digest(host_identity, &host_id)) {
        *error = "MD5 is unavailable";
        return false;
    }
    if (!conn.exec("BEGIN", error)) return false;
    PgResult r;
    std::vector<Claim> claims;
    if (!conn.exec("SELECT c.node_id, c.machine_name, c.machine_bytes, c.host_label, c.existing "
                   "FROM locality_uuid_registry.claim($1, $2, $3, "
                   "  CASE WHEN $4 OPERATOR(pg_catalog.=) '' THEN NULL ELSE $4::integer END, "
                   "  CASE WHEN $5 OPERATOR(pg_catalog.=) '' THEN NULL ELSE $5 END) c",
                   {host_id, host_label, data_directory, adopt_node > 0 ? std::to_string(adopt_node) : "", adopt_name},
                   &r, error) ||
        !read_claims(r, &claims, error))
        return rollback_with(conn, *error, error);
    if (claims.size() != 1) return rollback_with(conn, "the registry's claim returned no row", error);
    *out = claims[0];
    out->host_id = host_id;
    out->data_directory = data_directory;
    if (!check_claims(conn, {*out}, error)) return rollback_with(conn, *error, error);
    return conn.commit_durably(error);
}

bool claim_block(PgConnection &conn, const std::string &label, const std::string &data_directory, int count,
                 std::vector<Claim> *out, std::string *error) {
    std::string ids = "{", labels = "{";
    std::vector<std::string> digests;
    for (int i = 0; i < count; ++i) {
        const std::string l = label + "/" + std::to_string(i);
        std::string d;
        if (!host_digest(l, &d)) {
            *error = "MD5 is unavailable";
            return false;
        }
        digests.push_back(d);
        ids += (i > 0 ? "," : "") + d;
        std::string quoted = "\"";
        for (const char c : l) quoted += c == '"' || c == '\\' ? std::string("\\") + c : std::string(1, c);
        labels += (i > 0 ? "," : "") + quoted + "\"";
    }
    ids += "}";
    labels += "}";
    if (!conn.exec("BEGIN", error)) return false;
    PgResult r;
    if (!conn.exec("SELECT c.node_id, c.machine_name, c.machine_bytes, c.host_label, c.existing "
                   "FROM locality_uuid_registry.claim_block($1, $2, $3::pg_catalog.text[], $4::pg_catalog.text[]) c",
                   {label, data_directory, ids, labels}, &r, error) ||
        !read_claims(r, out, error))
        return rollback_with(conn, *error, error);
    if (out->size() != static_cast<std::size_t>(count))
        return rollback_with(conn, "the registry's block claim returned " + std::to_string(out->size()) + " rows, not " +
                                       std::to_string(count),
                             error);
    for (std::size_t i = 0; i < out->size(); ++i) {
        Claim &c = (*out)[i];
        c.host_id = digests[i];
        c.data_directory = data_directory;
        if (c.host_label != label + "/" + std::to_string(i) || (i > 0 && c.node != (*out)[0].node + static_cast<long long>(i)))
            return rollback_with(conn, "the registry's block claim returned its rows out of order", error);
    }
    if (!check_claims(conn, *out, error)) return rollback_with(conn, *error, error);
    return conn.commit_durably(error);
}

bool read_registry(PgConnection &conn, std::vector<Registered> *out, std::string *error) {
    PgResult r;
    if (!conn.exec("SELECT n.node_id, n.machine_name, pg_catalog.encode(n.machine_bytes, 'hex'), n.host_id, "
                   "n.host_label, n.data_directory, n.retired_at IS NOT NULL, n.how, "
                   "coalesce(n.system_identifier, ''), "
                   "coalesce(pg_catalog.to_char(n.started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'), ''), "
                   "coalesce(pg_catalog.floor(pg_catalog.date_part('epoch', n.started_at) OPERATOR(pg_catalog.*) 1000)"
                   "::pg_catalog.int8, -1) "
                   "FROM locality_uuid_registry.nodes() n",
                   {}, &r, error))
        return false;
    for (int i = 0; i < r.rows(); ++i) {
        Registered g;
        if (!r.integer_at(i, 0, 1, 268435455, &g.node) || !r.text_at(i, 1, &g.machine_name) ||
            !r.text_at(i, 2, &g.machine) || !r.text_at(i, 3, &g.host_id) || !r.text_at(i, 4, &g.host_label) ||
            !r.text_at(i, 5, &g.data_directory) || !r.bool_at(i, 6, &g.retired) || !r.text_at(i, 7, &g.how) ||
            !r.text_at(i, 8, &g.system_identifier) || !r.text_at(i, 9, &g.started_at) ||
            !r.integer_at(i, 10, -1, 9223372036854775807LL, &g.started_ms)) {
            *error = "row " + std::to_string(i + 1) + " of locality_uuid_registry.nodes() has a missing or malformed field";
            return false;
        }
        out->push_back(g);
    }
    return true;
}

bool move_registry_past(PgConnection &conn, long long past, std::string *drawn, bool *moved, std::string *error) {
    PgResult r;
    const std::string n = std::to_string(past);
    if (!conn.exec("BEGIN", error)) return false;
    if (!conn.exec("LOCK TABLE locality_uuid_registry_private.nodes IN SHARE UPDATE EXCLUSIVE MODE", error) ||
        !conn.exec("SELECT CASE WHEN s.is_called THEN s.last_value::pg_catalog.text ELSE 'none' END, "
                   "CASE WHEN s.is_called AND s.last_value OPERATOR(pg_catalog.>=) $1 "
                   "OR NOT s.is_called AND s.last_value OPERATOR(pg_catalog.>) $1 THEN 'no' ELSE "
                   "pg_catalog.setval('locality_uuid_registry_private.node_values', $1)::pg_catalog.text END "
                   "FROM locality_uuid_registry_private.node_values s",
                   {n}, &r, error))
        return rollback_with(conn, "could not move the registry's node values past " + n + ": " + *error, error);
    std::string how;
    if (!r.text_at(0, 0, drawn) || !r.text_at(0, 1, &how) || !conn.commit_durably(error))
        return rollback_with(conn, "the registry's node values may or may not have moved past " + n + " (" +
                                       (error->empty() ? "no answer read" : *error) + "): run it again",
                             error);
    *moved = how != "no";
    return true;
}

int registry_layout() { return kRegistryLayout; }

bool read_budget(PgConnection &conn, Budget *out, std::string *error) {
    PgResult r;
    if (!conn.exec("SELECT b.rows, b.leases, b.sequence_at FROM locality_uuid_registry.budget() b", {}, &r, error))
        return false;
    if (!r.integer_at(0, 0, 0, 1LL << 40, &out->rows) || !r.integer_at(0, 1, 0, 1LL << 40, &out->leases) ||
        !r.integer_at(0, 2, 0, 1LL << 40, &out->sequence_at)) {
        *error = "the registry's counts were malformed";
        return false;
    }
    return true;
}

bool mark_seen(PgConnection &conn, const std::vector<long long> &nodes, const std::vector<std::string> &hosts,
               const std::vector<std::string> &dirs, std::string *error) {
    std::string n = "{", h = "{", d = "{";
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        const char *sep = i > 0 ? "," : "";
        n += sep + std::to_string(nodes[i]);
        h += sep + array_element(hosts[i]);
        d += sep + array_element(dirs[i]);
    }
    PgResult ignored;
    return conn.exec("SELECT locality_uuid_registry.seen($1::pg_catalog.int4[], $2::pg_catalog.text[], "
                     "$3::pg_catalog.text[])",
                     {n + "}", h + "}", d + "}"}, &ignored, error);
}

bool wide_readers(PgConnection &conn, const std::string &owner, std::string *roles, std::string *error) {
    PgResult r;
    if (!conn.exec("SELECT coalesce(pg_catalog.string_agg(pg_catalog.quote_ident(m.rolname::pg_catalog.text), ', ' "
                   "                                      ORDER BY m.rolname), '') "
                   "FROM pg_catalog.pg_roles w "
                   "JOIN pg_catalog.pg_auth_members a ON a.roleid OPERATOR(pg_catalog.=) w.oid "
                   "JOIN pg_catalog.pg_roles m ON m.oid OPERATOR(pg_catalog.=) a.member "
                   "WHERE w.rolname OPERATOR(pg_catalog.=) 'pg_read_all_data' AND NOT m.rolsuper "
                   "  AND NOT pg_catalog.pg_has_role(m.oid, coalesce((SELECT o.oid FROM pg_catalog.pg_roles o "
                   "      WHERE o.rolname::pg_catalog.text OPERATOR(pg_catalog.=) $1), "
                   "    (SELECT o.oid FROM pg_catalog.pg_roles o WHERE o.rolname OPERATOR(pg_catalog.=) pg_catalog.current_user())), "
                   "    'MEMBER')",
                   {owner}, &r, error))
        return false;
    if (!r.text_at(0, 0, roles)) {
        *error = "could not read pg_read_all_data's members";
        return false;
    }
    return true;
}

namespace {

// Text for a comment line: no line breaks or other control characters.
std::string comment_text(const std::string &text) {
    std::string out;
    for (const unsigned char c : text) out += c < 0x20 || c == 0x7f ? '?' : static_cast<char>(c);
    return out;
}

// A configuration file's quoted value: quotes and backslashes doubled
// (PostgreSQL reads backslash escapes there); no control characters (a
// value with one is refused before: valid_setting_value).
std::string quoted_value(const std::string &text) {
    std::string out = "'";
    for (const char c : text) out += c == '\'' ? std::string("''") : c == '\\' ? std::string("\\\\") : std::string(1, c);
    return out + "'";
}

}  // namespace

bool valid_setting_value(const std::string &text) {
    for (const unsigned char c : text)
        if (c < 0x20 || c == 0x7f) return false;
    return true;
}

bool valid_machine_name(const std::string &name) {
    return locality_registry::valid_machine_name(name.data(), name.size());
}

std::string node_file_text(const Claim &c, const std::string &host_identity_file) {
    std::string text = "# Written by locality-uuid node claim: node value " + std::to_string(c.node) +
                       " of the registry, claimed for " + comment_text(c.host_label) + ", data directory " +
                       comment_text(c.data_directory) +
                       ".\n# Keep this file on this host only (README, \"Node identity\").\n";
    text += "locality_uuid.node_id = " + std::to_string(c.node) + "\n";
    text += "locality_uuid.machine_name = " + quoted_value(c.machine_name) + "\n";
    if (!host_identity_file.empty())
        text += "locality_uuid.host_identity_file = " + quoted_value(host_identity_file) + "\n";
    return text;
}

std::string resolved_directory(const std::string &dir) {
    char resolved[PATH_MAX];
    if (realpath(dir.c_str(), resolved) != nullptr) return resolved;
    return normalized_directory(dir);
}

std::string normalized_directory(const std::string &dir) {
    // Absolute and canonical as PostgreSQL makes its data directory
    // (make_absolute_path, canonicalize_path), links not followed: for a
    // path of another host (a claim made elsewhere, a server audited).
    std::string path = dir;
    if (path.empty() || path[0] != '/') {
        char cwd[4096];
        if (getcwd(cwd, sizeof cwd) != nullptr) path = std::string(cwd) + "/" + path;
    }
    std::vector<std::string> parts;
    std::size_t i = 0;
    while (i <= path.size()) {
        const std::size_t j = path.find('/', i);
        const std::string part = path.substr(i, j == std::string::npos ? std::string::npos : j - i);
        if (part == "..") {
            if (!parts.empty()) parts.pop_back();
        } else if (!part.empty() && part != ".") {
            parts.push_back(part);
        }
        if (j == std::string::npos) break;
        i = j + 1;
    }
    std::string out;
    for (const std::string &p : parts) out += "/" + p;
    return out.empty() ? "/" : out;
}

bool write_file_atomically(const std::string &path, const std::string &text, std::string *error) {
    const std::size_t slash = path.rfind('/');
    const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
    auto fail = [&](const std::string &what) {
        *error = "could not " + what + ": " + std::strerror(errno);
        return false;
    };
    // A temporary name of this run's own beside the file (mkostemp creates
    // it, O_EXCL: never a link's target), so that two runs writing one file
    // cannot rename each other's half-written one.
    const std::string pattern = path + ".tmp.XXXXXX";
    std::vector<char> name(pattern.c_str(), pattern.c_str() + pattern.size() + 1);
    const int fd = mkostemp(name.data(), O_CLOEXEC);
    const std::string temp(name.data());
    if (fd < 0) return fail("create " + temp);
    auto abandon = [&](const std::string &what) {
        const int saved = errno != 0 ? errno : ENOSPC;  // a write of 0 bytes: the disk is full
        close(fd);
        unlink(temp.c_str());
        errno = saved;
        return fail(what + " " + temp);
    };
    if (fchmod(fd, 0644) != 0) return abandon("chmod");  // mkostemp made it 0600
    std::size_t done = 0;
    while (done < text.size()) {
        errno = 0;
        const ssize_t w = write(fd, text.data() + done, text.size() - done);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return abandon("write");
        done += static_cast<std::size_t>(w);
    }
    if (fsync(fd) != 0) return abandon("fsync");
    if (close(fd) != 0) {
        const int saved = errno;
        unlink(temp.c_str());
        errno = saved;
        return fail("close " + temp);
    }
    if (rename(temp.c_str(), path.c_str()) != 0) return fail("rename " + temp + " to " + path);
    const int dfd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0) return fail("open " + dir);
    const bool synced = fsync(dfd) == 0;
    const int saved = errno;
    close(dfd);
    errno = saved;
    return synced || fail("fsync " + dir);
}

}  // namespace locality_cli
