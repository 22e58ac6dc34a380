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

namespace locality_cli {
namespace {

// Created once, under a transaction-scoped advisory lock so that claimers
// starting together on a new registry do not race on CREATE ... IF NOT
// EXISTS. Values are never reused: the sequence does not cycle, and rows
// are retired, never deleted (retired_at), so no node value, machine name
// or machine bytes comes back.
const char kSchemaSql[] = R"SQL(
CREATE SCHEMA IF NOT EXISTS locality_uuid_registry;
CREATE SEQUENCE IF NOT EXISTS locality_uuid_registry.node_values
    AS integer MINVALUE 1 MAXVALUE 268435455 NO CYCLE;
CREATE TABLE IF NOT EXISTS locality_uuid_registry.nodes (
    node_id integer PRIMARY KEY CHECK (node_id BETWEEN 1 AND 268435455),
    machine_name text NOT NULL UNIQUE CHECK (machine_name ~ '^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$'),
    machine_bytes bytea NOT NULL CHECK (octet_length(machine_bytes) = 3),
    host_id text NOT NULL CHECK (host_id ~ '^[0-9a-f]{32}$'),
    host_label text NOT NULL,
    data_directory text NOT NULL,
    claimed_at timestamptz NOT NULL DEFAULT now(),
    last_seen timestamptz,
    retired_at timestamptz,
    CONSTRAINT nodes_machine_bytes_key UNIQUE (machine_bytes));
CREATE UNIQUE INDEX IF NOT EXISTS nodes_live_claim
    ON locality_uuid_registry.nodes (host_id, data_directory) WHERE retired_at IS NULL;
CREATE TABLE IF NOT EXISTS locality_uuid_registry.claims (
    one boolean PRIMARY KEY DEFAULT true CHECK (one),
    claims bigint NOT NULL DEFAULT 0,
    last_claim_at timestamptz);
INSERT INTO locality_uuid_registry.claims DEFAULT VALUES ON CONFLICT DO NOTHING;
COMMENT ON TABLE locality_uuid_registry.nodes IS
    'locality_uuid node values and Hot Guid machine names, claimed once per host and data directory, never reused';
)SQL";

// Claimers take turns: the lock conflicts with itself, not with readers
// (an audit reads while claims go on).
const char kLockSql[] = "LOCK TABLE locality_uuid_registry.nodes IN SHARE ROW EXCLUSIVE MODE";

const char kFindSql[] =
    "SELECT node_id, machine_name, encode(machine_bytes, 'hex'), host_id, host_label, data_directory "
    "FROM locality_uuid_registry.nodes WHERE host_id = $1 AND data_directory = $2 AND retired_at IS NULL";

// The first machine name of node N whose bytes no row has: "lu-<hex>",
// then "lu-<hex>-1", ... A conflict on the bytes (or the name) inserts
// nothing, and the next name is tried.
const char kInsertSql[] =
    "INSERT INTO locality_uuid_registry.nodes (node_id, machine_name, machine_bytes, host_id, host_label, data_directory) "
    "VALUES ($1, $2, decode($3, 'hex'), $4, $5, $6) ON CONFLICT DO NOTHING RETURNING node_id";

const char kCountSql[] =
    "UPDATE locality_uuid_registry.claims SET claims = claims + 1, last_claim_at = now()";

std::string machine_name_of(long long node, int k) {
    char name[64];
    if (k == 0)
        std::snprintf(name, sizeof name, "lu-%llx", node);
    else
        std::snprintf(name, sizeof name, "lu-%llx-%d", node, k);
    return name;
}

bool machine_bytes_of(const std::string &name, std::string *hex) {
    std::uint8_t bytes[3];
    if (!locality::hot_guid_machine(name.data(), name.size(), bytes)) return false;
    char out[7];
    locality::format_machine(bytes, out);
    *hex = out;
    return true;
}

bool rollback_with(PgConnection &conn, const std::string &message, std::string *error) {
    std::string ignored;
    conn.exec("ROLLBACK", &ignored);
    *error = message;
    return false;
}

// Inserts node `node` for the host, with the first free machine name.
bool insert_claim(PgConnection &conn, long long node, const std::string &host_id, const std::string &label,
                  const std::string &dir, Claim *out, std::string *error) {
    for (int k = 0; k < 10000; ++k) {
        const std::string name = machine_name_of(node, k);
        std::string bytes;
        if (!machine_bytes_of(name, &bytes)) return rollback_with(conn, "MD5 is unavailable", error);
        PgResult r;
        if (!conn.exec(kInsertSql, {std::to_string(node), name, bytes, host_id, label, dir}, &r, error)) return false;
        if (r.rows() == 1) {
            *out = Claim{node, name, bytes, host_id, label, dir, false};
            return true;
        }
    }
    return rollback_with(conn, "no free machine name for node " + std::to_string(node), error);
}

// The next value of the sequence that no row holds (rows may have been
// added by hand, or imported).
bool next_node(PgConnection &conn, long long *node, std::string *error) {
    for (;;) {
        PgResult r;
        if (!conn.exec("SELECT v, EXISTS (SELECT 1 FROM locality_uuid_registry.nodes WHERE node_id = v) "
                       "FROM nextval('locality_uuid_registry.node_values') v",
                       {}, &r, error))
            return false;
        if (r.text(0, 1) == "f") {
            *node = std::stoll(r.text(0, 0));
            return true;
        }
    }
}

bool read_claims(const PgResult &r, std::vector<Claim> *out) {
    for (int i = 0; i < r.rows(); ++i)
        out->push_back(Claim{std::stoll(r.text(i, 0)), r.text(i, 1), r.text(i, 2), r.text(i, 3), r.text(i, 4),
                             r.text(i, 5), true});
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

bool ensure_registry(PgConnection &conn, std::string *error) {
    PgResult r;
    if (!conn.exec("SELECT to_regclass('locality_uuid_registry.nodes') IS NOT NULL "
                   "AND to_regclass('locality_uuid_registry.claims') IS NOT NULL",
                   {}, &r, error))
        return false;
    if (r.text(0, 0) == "t") return true;
    if (!conn.exec("BEGIN", error)) return false;
    if (!conn.exec("SELECT pg_advisory_xact_lock(hashtext('locality_uuid_registry'))", error) ||
        !conn.exec(kSchemaSql, error))
        return rollback_with(conn, *error, error);
    return conn.exec("COMMIT", error);
}

bool claim_node(PgConnection &conn, const std::string &host_identity, const std::string &host_label,
                const std::string &data_directory, Claim *out, std::string *error) {
    std::string host_id;
    if (!host_digest(host_identity, &host_id)) {
        *error = "MD5 is unavailable";
        return false;
    }
    if (!conn.exec("BEGIN", error)) return false;
    PgResult r;
    if (!conn.exec(kLockSql, error) || !conn.exec(kFindSql, {host_id, data_directory}, &r, error))
        return rollback_with(conn, *error, error);
    if (r.rows() == 1) {
        std::vector<Claim> found;
        read_claims(r, &found);
        *out = found[0];
        PgResult ignored;
        if (!conn.exec("UPDATE locality_uuid_registry.nodes SET last_seen = now() WHERE node_id = $1",
                       {std::to_string(out->node)}, &ignored, error))
            return rollback_with(conn, *error, error);
        return conn.exec("COMMIT", error);
    }
    long long node = 0;
    PgResult ignored;
    if (!next_node(conn, &node, error) || !insert_claim(conn, node, host_id, host_label, data_directory, out, error) ||
        !conn.exec(kCountSql, {}, &ignored, error))
        return rollback_with(conn, *error, error);
    return conn.exec("COMMIT", error);
}

bool claim_block(PgConnection &conn, const std::string &label, const std::string &data_directory, int count,
                 std::vector<Claim> *out, std::string *error) {
    std::vector<std::string> ids(static_cast<std::size_t>(count)), labels(static_cast<std::size_t>(count));
    std::string array = "{";
    for (int i = 0; i < count; ++i) {
        labels[static_cast<std::size_t>(i)] = label + "/" + std::to_string(i);
        if (!host_digest(labels[static_cast<std::size_t>(i)], &ids[static_cast<std::size_t>(i)])) {
            *error = "MD5 is unavailable";
            return false;
        }
        array += (i > 0 ? "," : "") + ids[static_cast<std::size_t>(i)];
    }
    array += "}";
    if (!conn.exec("BEGIN", error)) return false;
    PgResult r;
    if (!conn.exec(kLockSql, error) ||
        !conn.exec("SELECT node_id, machine_name, encode(machine_bytes, 'hex'), host_id, host_label, data_directory "
                   "FROM locality_uuid_registry.nodes WHERE host_id = ANY ($1::text[]) AND data_directory = $2 "
                   "AND retired_at IS NULL ORDER BY node_id",
                   {array, data_directory}, &r, error))
        return rollback_with(conn, *error, error);
    if (r.rows() == count) {
        read_claims(r, out);
        return conn.exec("COMMIT", error);
    }
    if (r.rows() != 0)
        return rollback_with(conn,
                             "the registry holds " + std::to_string(r.rows()) + " of the " + std::to_string(count) +
                                 " claims of block '" + label + "': claim the block with its original size",
                             error);
    // Consecutive values: the claimers' lock keeps other claims out
    // between these nextval calls; a value taken outside it is refused.
    long long base = 0;
    for (int i = 0; i < count; ++i) {
        long long node = 0;
        if (!next_node(conn, &node, error)) return rollback_with(conn, *error, error);
        if (i == 0) base = node;
        if (node != base + i)
            return rollback_with(conn, "the node values of a block must be consecutive; try again", error);
        Claim c;
        if (!insert_claim(conn, node, ids[static_cast<std::size_t>(i)], labels[static_cast<std::size_t>(i)],
                          data_directory, &c, error))
            return rollback_with(conn, *error, error);
        out->push_back(c);
    }
    PgResult ignored;
    if (!conn.exec(kCountSql, {}, &ignored, error)) return rollback_with(conn, *error, error);
    return conn.exec("COMMIT", error);
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
