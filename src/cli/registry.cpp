#include "registry.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "host_identity.hpp"
#include "hot_guid.hpp"
#include "registry_sql.hpp"

namespace locality_cli {
namespace {

// The registry's layout version, in its schema's comment ("locality_uuid
// registry, layout N").
const char kLayoutCommentPrefix[] = "locality_uuid registry, layout ";

std::string layout_comment() { return kLayoutCommentPrefix + std::to_string(kRegistryLayout); }

// What a registry must be for its claims to be trusted, as rows of
// problems (none: trusted). $1: the role that must own it. Roles that are
// members of the owner act as the owner, and superusers may do anything
// anyway: neither is a problem.
const char kTrustSql[] = R"SQL(
WITH owner AS (SELECT r.oid FROM pg_catalog.pg_roles r WHERE r.rolname::pg_catalog.text OPERATOR(pg_catalog.=) $1::pg_catalog.text),
ns AS (SELECT n.oid, n.nspowner, n.nspacl FROM pg_catalog.pg_namespace n
       WHERE n.nspname OPERATOR(pg_catalog.=) 'locality_uuid_registry'),
rels AS (SELECT c.oid, c.relname, c.relkind, c.relowner, c.relacl, c.relrowsecurity
         FROM pg_catalog.pg_class c JOIN ns ON c.relnamespace OPERATOR(pg_catalog.=) ns.oid),
grants AS (SELECT a.grantee, a.privilege_type,
                  pg_catalog.format('%s %I', CASE c.relkind WHEN 'S' THEN 'sequence' ELSE 'table' END, c.relname) AS obj
           FROM rels c, LATERAL pg_catalog.aclexplode(c.relacl) a
           UNION ALL
           SELECT a.grantee, a.privilege_type, 'schema locality_uuid_registry'
           FROM ns, LATERAL pg_catalog.aclexplode(ns.nspacl) a),
-- Grants to a role other than the owner and its members (0: PUBLIC).
others AS (SELECT g.*, CASE WHEN g.grantee OPERATOR(pg_catalog.=) 0::pg_catalog.oid THEN 'PUBLIC'
                            ELSE pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(g.grantee)::pg_catalog.text) END AS role
           FROM grants g, owner
           WHERE CASE WHEN g.grantee OPERATOR(pg_catalog.=) 0::pg_catalog.oid THEN true
                      ELSE NOT pg_catalog.pg_has_role(g.grantee, owner.oid, 'MEMBER') END),
-- The unique, valid, immediate indexes of nodes, by their columns.
uniq AS (SELECT x.indpred IS NOT NULL AS partial,
                ARRAY(SELECT a.attname::pg_catalog.text
                      FROM pg_catalog.unnest(x.indkey::pg_catalog.int2[]) WITH ORDINALITY k(attnum, i)
                      JOIN pg_catalog.pg_attribute a ON a.attrelid OPERATOR(pg_catalog.=) x.indrelid
                                                    AND a.attnum OPERATOR(pg_catalog.=) k.attnum
                      ORDER BY k.i) AS cols
         FROM pg_catalog.pg_index x JOIN rels c ON x.indrelid OPERATOR(pg_catalog.=) c.oid
         WHERE c.relname OPERATOR(pg_catalog.=) 'nodes' AND x.indisunique AND x.indisvalid AND x.indimmediate
           AND x.indexprs IS NULL)
SELECT p FROM (
    SELECT pg_catalog.format('there is no role %s', pg_catalog.quote_ident($1::pg_catalog.text))
    WHERE NOT EXISTS (SELECT FROM owner)
    UNION ALL
    SELECT pg_catalog.format('schema locality_uuid_registry is owned by role %I', pg_catalog.pg_get_userbyid(ns.nspowner))
    FROM ns, owner WHERE ns.nspowner OPERATOR(pg_catalog.<>) owner.oid
    UNION ALL
    SELECT pg_catalog.format('%s %I is owned by role %I',
                             CASE c.relkind WHEN 'S' THEN 'sequence' WHEN 'i' THEN 'index' WHEN 'r' THEN 'table'
                                            ELSE 'relation' END,
                             c.relname, pg_catalog.pg_get_userbyid(c.relowner))
    FROM rels c, owner WHERE c.relowner OPERATOR(pg_catalog.<>) owner.oid
    UNION ALL
    SELECT pg_catalog.format('function %s is owned by role %I', p.oid::pg_catalog.regprocedure,
                             pg_catalog.pg_get_userbyid(p.proowner))
    FROM pg_catalog.pg_proc p JOIN ns ON p.pronamespace OPERATOR(pg_catalog.=) ns.oid, owner
    WHERE p.proowner OPERATOR(pg_catalog.<>) owner.oid
    UNION ALL
    SELECT pg_catalog.format('type %s is owned by role %I', t.oid::pg_catalog.regtype, pg_catalog.pg_get_userbyid(t.typowner))
    FROM pg_catalog.pg_type t JOIN ns ON t.typnamespace OPERATOR(pg_catalog.=) ns.oid, owner
    WHERE t.typowner OPERATOR(pg_catalog.<>) owner.oid
    UNION ALL
    SELECT pg_catalog.format('role %s has %s on %s', o.role, o.privilege_type, o.obj)
    FROM others o
    WHERE o.privilege_type OPERATOR(pg_catalog.=) ANY ('{CREATE,INSERT,UPDATE,DELETE,TRUNCATE,TRIGGER,REFERENCES}'::pg_catalog.text[])
    UNION ALL
    SELECT pg_catalog.format('table %I has trigger %I', c.relname, t.tgname)
    FROM pg_catalog.pg_trigger t JOIN rels c ON t.tgrelid OPERATOR(pg_catalog.=) c.oid WHERE NOT t.tgisinternal
    UNION ALL
    SELECT pg_catalog.format('table %I has rule %I', c.relname, r.rulename)
    FROM pg_catalog.pg_rewrite r JOIN rels c ON r.ev_class OPERATOR(pg_catalog.=) c.oid
    WHERE r.rulename OPERATOR(pg_catalog.<>) '_RETURN'
    UNION ALL
    SELECT pg_catalog.format('table %I has row security policy %I', c.relname, p.polname)
    FROM pg_catalog.pg_policy p JOIN rels c ON p.polrelid OPERATOR(pg_catalog.=) c.oid
    UNION ALL
    SELECT pg_catalog.format('table %I has row security enabled', c.relname) FROM rels c WHERE c.relrowsecurity
    UNION ALL
    SELECT pg_catalog.format('%s %s is missing', e.kind, e.name)
    FROM (VALUES ('table', 'nodes', 'r'), ('table', 'claims', 'r'), ('sequence', 'node_values', 'S')) e(kind, name, relkind)
    WHERE NOT EXISTS (SELECT FROM rels c WHERE c.relname OPERATOR(pg_catalog.=) e.name
                                            AND c.relkind OPERATOR(pg_catalog.=) e.relkind::pg_catalog."char")
    UNION ALL
    SELECT 'sequence node_values does not run from 1 to 268435455 by 1 without cycling'
    FROM rels c JOIN pg_catalog.pg_sequence s ON s.seqrelid OPERATOR(pg_catalog.=) c.oid
    WHERE c.relname OPERATOR(pg_catalog.=) 'node_values'
      AND NOT (s.seqmin OPERATOR(pg_catalog.=) 1 AND s.seqmax OPERATOR(pg_catalog.=) 268435455
               AND s.seqincrement OPERATOR(pg_catalog.=) 1 AND NOT s.seqcycle)
    UNION ALL
    SELECT pg_catalog.format('table nodes has no unique constraint on (%s)', pg_catalog.array_to_string(e.cols, ', '))
    FROM (VALUES ('{node_id}'::pg_catalog.text[], false), ('{machine_name}', false), ('{machine_bytes}', false),
                 ('{host_id,data_directory}', true)) e(cols, partial)
    WHERE EXISTS (SELECT FROM rels c WHERE c.relname OPERATOR(pg_catalog.=) 'nodes')
      AND NOT EXISTS (SELECT FROM uniq u WHERE u.cols OPERATOR(pg_catalog.=) e.cols
                                           AND u.partial OPERATOR(pg_catalog.=) e.partial)
) problems(p)
)SQL";

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
    std::string owner;
    bool is_owner = false;
};

bool find_registry(PgConnection &conn, Found *out, std::string *error) {
    PgResult r;
    if (!conn.exec("SELECT pg_catalog.pg_get_userbyid(n.nspowner), "
                   "pg_catalog.pg_has_role(pg_catalog.current_user(), n.nspowner, 'MEMBER'), "
                   "pg_catalog.obj_description(n.oid, 'pg_namespace') "
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
    out->layout = 0;
    if (r.text_at(0, 2, &comment) && comment.rfind(kLayoutCommentPrefix, 0) == 0) {
        char *end = nullptr;
        const long long v = std::strtoll(comment.c_str() + std::strlen(kLayoutCommentPrefix), &end, 10);
        if (*end == '\0' && v > 0) out->layout = v;
    }
    return true;
}

// Creates or updates the registry to this layout as role `as_role` (the
// connecting role if empty; else a role it is a member of, so that the
// objects are that role's), under a lock that serializes creators (the
// registry is looked at again under it).
bool make_registry(PgConnection &conn, const std::string &as_role, std::string *error) {
    if (!conn.exec("BEGIN", error)) return false;
    PgResult ignored;
    if (!as_role.empty() &&
        !conn.exec("SELECT pg_catalog.set_config('role', $1, true)", {as_role}, &ignored, error))
        return rollback_with(conn, *error, error);
    Found f;
    if (!conn.exec("SELECT pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtext('locality_uuid_registry'))", error) ||
        !find_registry(conn, &f, error))
        return rollback_with(conn, *error, error);
    if (f.layout == kRegistryLayout) return conn.exec("COMMIT", error);
    // The comment is this program's constant, not input.
    if (!conn.exec(kRegistryTablesSql, error) || !conn.exec(kRegistryFunctionsSql, error) ||
        !conn.exec("COMMENT ON SCHEMA locality_uuid_registry IS '" + layout_comment() + "'", error))
        return rollback_with(conn, *error, error);
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

bool machine_bytes_of(const std::string &name, std::string *hex) {
    std::uint8_t bytes[3];
    if (!locality::hot_guid_machine(name.data(), name.size(), bytes)) return false;
    char out[7];
    locality::format_machine(bytes, out);
    *hex = out;
    return true;
}

// What a claim read back must be: a node value in range, a machine name
// a configuration file can carry whose MD5 bytes are the ones returned,
// and no other row of the registry with that node value, machine name or
// machine bytes (the registry's own constraints say so; this says so
// again for what this host will use).
bool check_claim(PgConnection &conn, const Claim &c, std::string *error) {
    std::string bytes;
    if (!valid_machine_name(c.machine_name)) {
        *error = "the registry returned machine name '" + c.machine_name + "' for node " + std::to_string(c.node) +
                 ", which cannot be written into a configuration file";
        return false;
    }
    if (!machine_bytes_of(c.machine_name, &bytes)) {
        *error = "MD5 is unavailable";
        return false;
    }
    if (bytes != c.machine_bytes) {
        *error = "the registry returned machine bytes " + c.machine_bytes + " for machine name " + c.machine_name +
                 ", whose bytes are " + bytes;
        return false;
    }
    PgResult r;
    if (!conn.exec("SELECT pg_catalog.count(*) FILTER (WHERE n.node_id OPERATOR(pg_catalog.=) $1::integer "
                   "  AND n.machine_name OPERATOR(pg_catalog.=) $3 AND n.host_id OPERATOR(pg_catalog.=) $4 "
                   "  AND n.data_directory OPERATOR(pg_catalog.=) $5 AND n.retired_at IS NULL), "
                   "pg_catalog.count(*) FROM locality_uuid_registry.nodes n "
                   "WHERE n.node_id OPERATOR(pg_catalog.=) $1::integer "
                   "   OR n.machine_bytes OPERATOR(pg_catalog.=) pg_catalog.decode($2, 'hex') "
                   "   OR n.machine_name OPERATOR(pg_catalog.=) $3",
                   {std::to_string(c.node), c.machine_bytes, c.machine_name, c.host_id, c.data_directory}, &r, error)) {
        *error = "could not check the claim: " + *error;
        return false;
    }
    long long own = 0, all = 0;
    if (!r.integer_at(0, 0, 0, 1, &own) || !r.integer_at(0, 1, 0, 1000000, &all) || own != 1 || all != 1) {
        *error = "the registry does not hold node value " + std::to_string(c.node) + " and machine name " +
                 c.machine_name + " once, for this host and data directory alone";
        return false;
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
        *error = "there is no registry in this database (locality-uuid node claim creates it)";
        return false;
    }
    // Made, or updated to this layout, only by its owner (or a member of
    // that role, acting as it); anything else is judged as it stands.
    if (create && (f.owner.empty() || (f.owner == trusted && f.is_owner && f.layout < kRegistryLayout))) {
        if (!make_registry(conn, trusted == current ? "" : trusted, error)) {
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
    if (!conn.exec(kTrustSql, {trusted}, &problems, error)) {
        *error = "could not check the registry: " + *error;
        return false;
    }
    if (problems.rows() > 0) {
        std::string list;
        for (int i = 0; i < problems.rows(); ++i) list += (i > 0 ? "; " : "") + problems.text(i, 0);
        *error = "refusing the registry: whoever may write it decides node values, and it is not role " + trusted +
                 "'s alone, or lacks what keeps a value from being handed out twice: " + list +
                 " (doc/fleets.md, \"Who may do what\")";
        return false;
    }
    if (f.layout < kRegistryLayout) {
        *error = "the registry has " + (f.layout == 0 ? std::string("no locality_uuid layout") : "layout " + std::to_string(f.layout)) +
                 ", this locality-uuid needs layout " + std::to_string(kRegistryLayout) +
                 ": run locality-uuid node claim once as role " + f.owner + " to update it";
        return false;
    }
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
    if (!check_claim(conn, *out, error)) return rollback_with(conn, *error, error);
    return conn.exec("COMMIT", error);
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
        if (!check_claim(conn, c, error)) return rollback_with(conn, *error, error);
    }
    return conn.exec("COMMIT", error);
}

bool read_registry(PgConnection &conn, std::vector<Registered> *out, std::string *error) {
    PgResult r;
    if (!conn.exec("SELECT n.node_id, n.machine_name, pg_catalog.encode(n.machine_bytes, 'hex'), n.host_id, "
                   "n.host_label, n.data_directory, n.retired_at IS NOT NULL FROM locality_uuid_registry.nodes n",
                   {}, &r, error))
        return false;
    for (int i = 0; i < r.rows(); ++i) {
        Registered g;
        if (!r.integer_at(i, 0, 1, 268435455, &g.node) || !r.text_at(i, 1, &g.machine_name) ||
            !r.text_at(i, 2, &g.machine) || !r.text_at(i, 3, &g.host_id) || !r.text_at(i, 4, &g.host_label) ||
            !r.text_at(i, 5, &g.data_directory) || !r.bool_at(i, 6, &g.retired)) {
            *error = "row " + std::to_string(i + 1) + " of locality_uuid_registry.nodes has a missing or malformed field";
            return false;
        }
        out->push_back(g);
    }
    return true;
}

namespace {

// A quoted element of a PostgreSQL array literal.
std::string array_element(const std::string &text) {
    std::string out = "\"";
    for (const char c : text) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
    }
    return out + "\"";
}

}  // namespace

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
    if (name.empty() || name.size() > 63) return false;
    for (std::size_t i = 0; i < name.size(); ++i) {
        const char c = name[i];
        const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        if (!alnum && (i == 0 || (c != '.' && c != '_' && c != '-'))) return false;
    }
    return true;
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

std::string normalized_directory(const std::string &dir) {
    // As PostgreSQL makes its data directory absolute and canonical
    // (make_absolute_path, canonicalize_path), without following links: the
    // path the server's binding shows.
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
