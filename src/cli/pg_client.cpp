#include "pg_client.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace locality_cli {
namespace {

// libpq's message without its trailing newline.
std::string trimmed(const char *message) {
    std::string s = message != nullptr ? message : "";
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
    return s;
}

}  // namespace

bool PgConnection::connect(const std::string &conninfo, std::string *error) {
    // Defaults the conninfo may override (it is expanded last, and later
    // keywords win): 10 s to connect, so that an audit of many servers does
    // not hang on one that does not answer.
    const char *keywords[] = {"connect_timeout", "application_name", "dbname", nullptr};
    const char *values[] = {"10", "locality-uuid", conninfo.c_str(), nullptr};
    conn_ = PQconnectdbParams(keywords, values, /* expand_dbname */ 1);
    if (conn_ == nullptr || PQstatus(conn_) != CONNECTION_OK) {
        *error = conn_ != nullptr ? trimmed(PQerrorMessage(conn_)) : "out of memory";
        return false;
    }
    // The commands report what they found themselves; the server's NOTICEs
    // (CREATE ... IF NOT EXISTS) would only be noise. A WARNING is kept for
    // commit_durably (the connection does not move: it is not copyable).
    PQsetNoticeReceiver(
        conn_,
        [](void *self, const PGresult *notice) {
            const char *severity = PQresultErrorField(notice, PG_DIAG_SEVERITY_NONLOCALIZED);
            std::string &warning = static_cast<PgConnection *>(self)->warning_;
            if (severity != nullptr && std::strcmp(severity, "WARNING") == 0 && warning.empty())
                warning = trimmed(PQresultErrorField(notice, PG_DIAG_MESSAGE_PRIMARY));
        },
        this);
    // The path first (every name the commands use is schema-qualified
    // too; the simple protocol analyzes each statement after the one
    // before it ran). Then 30 s a statement unless the role, the database,
    // PGOPTIONS or the conninfo set a limit (a SET, not a startup option:
    // poolers such as PgBouncer refuse "options"), so that a server whose
    // disk does not answer cannot hold the audit (locality_uuid_binding()
    // waits for the counters' lock).
    {
        const PgResult path(PQexec(conn_, "SELECT pg_catalog.current_setting('search_path')"));
        if (PQresultStatus(path.get()) == PGRES_TUPLES_OK && path.has(0, 0)) user_path_ = path.text(0, 0);
    }
    return exec("SELECT pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', false); "
                "SELECT pg_catalog.set_config('statement_timeout', '30s', false) "
                "WHERE pg_catalog.current_setting('statement_timeout') OPERATOR(pg_catalog.=) '0'",
                error);
}

bool PgConnection::commit_durably(std::string *error) {
    warning_.clear();
    if (!exec("SELECT pg_catalog.set_config('synchronous_commit', 'on', true)", error) || !exec("COMMIT", error))
        return false;
    if (warning_.empty()) return true;
    *error = "the registry warned while it committed, so nothing it returned is used: " + warning_;
    return false;
}

std::string PgConnection::identifier(const std::string &name) const {
    char *quoted = PQescapeIdentifier(conn_, name.c_str(), name.size());
    if (quoted == nullptr) return "\"\"";  // never a valid name: the statement fails
    std::string out = quoted;
    PQfreemem(quoted);
    return out;
}

bool PgResult::text_at(int row, int col, std::string *out) const {
    if (!has(row, col)) return false;
    *out = PQgetvalue(r_, row, col);
    return true;
}

bool PgResult::integer_at(int row, int col, long long min, long long max, long long *out) const {
    if (!has(row, col)) return false;
    const char *text = PQgetvalue(r_, row, col);
    if (text[0] == '\0') return false;
    char *end = nullptr;
    errno = 0;
    const long long v = std::strtoll(text, &end, 10);
    if (errno != 0 || *end != '\0' || v < min || v > max) return false;
    *out = v;
    return true;
}

bool PgResult::bool_at(int row, int col, bool *out) const {
    if (!has(row, col)) return false;
    const std::string v = PQgetvalue(r_, row, col);
    if (v != "t" && v != "f") return false;
    *out = v == "t";
    return true;
}

namespace {

// True if r succeeded; else *error ("SQLSTATE: message") and *sqlstate.
bool succeeded(PGconn *conn, const PgResult &r, std::string *error, std::string *sqlstate);

}  // namespace

bool PgConnection::exec(const std::string &sql, std::string *error) {
    const PgResult r(PQexec(conn_, sql.c_str()));
    return succeeded(conn_, r, error, nullptr);
}

bool PgConnection::exec(const std::string &sql, const std::vector<std::string> &params, PgResult *out,
                        std::string *error, std::string *sqlstate) {
    std::vector<const char *> values;
    values.reserve(params.size());
    for (const std::string &p : params) values.push_back(p.c_str());
    *out = PgResult(PQexecParams(conn_, sql.c_str(), static_cast<int>(params.size()), nullptr,
                                 values.empty() ? nullptr : values.data(), nullptr, nullptr, 0));
    return succeeded(conn_, *out, error, sqlstate);
}

namespace {

bool succeeded(PGconn *conn, const PgResult &r, std::string *error, std::string *sqlstate) {
    PGresult *res = r.get();
    const ExecStatusType status = res != nullptr ? PQresultStatus(res) : PGRES_FATAL_ERROR;
    if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) return true;
    const char *state = res != nullptr ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : nullptr;
    if (sqlstate != nullptr) *sqlstate = state != nullptr ? state : "";
    const std::string message =
        res != nullptr ? trimmed(PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY)) : trimmed(PQerrorMessage(conn));
    *error = (state != nullptr ? std::string(state) + ": " : std::string()) +
             (message.empty() ? trimmed(PQerrorMessage(conn)) : message);
    // The server's DETAIL and HINT say which row, and what to do.
    for (const int field : {PG_DIAG_MESSAGE_DETAIL, PG_DIAG_MESSAGE_HINT}) {
        const char *text = res != nullptr ? PQresultErrorField(res, field) : nullptr;
        if (text == nullptr || text[0] == '\0') continue;
        if (error->back() != '.') *error += '.';
        *error += " " + trimmed(text);
    }
    return false;
}

}  // namespace

}  // namespace locality_cli
