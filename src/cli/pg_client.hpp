// A small libpq client for the fleet commands (fleet.cpp): a connection,
// statements with text parameters, and errors as "SQLSTATE: message". The
// CLI's only run-time dependency on PostgreSQL; the id commands need none.
#pragma once

#include <libpq-fe.h>

#include <string>
#include <vector>

namespace locality_cli {

// One result, cleared when it goes.
class PgResult {
public:
    PgResult() = default;
    explicit PgResult(PGresult *r) : r_(r) {}
    PgResult(const PgResult &) = delete;
    PgResult &operator=(const PgResult &) = delete;
    PgResult(PgResult &&o) noexcept : r_(o.r_) { o.r_ = nullptr; }
    PgResult &operator=(PgResult &&o) noexcept {
        if (this != &o) {
            if (r_ != nullptr) PQclear(r_);
            r_ = o.r_;
            o.r_ = nullptr;
        }
        return *this;
    }
    ~PgResult() {
        if (r_ != nullptr) PQclear(r_);
    }
    PGresult *get() const { return r_; }
    int rows() const { return r_ != nullptr ? PQntuples(r_) : 0; }
    bool is_null(int row, int col) const { return PQgetisnull(r_, row, col) != 0; }
    std::string text(int row, int col) const { return is_null(row, col) ? std::string() : PQgetvalue(r_, row, col); }
    // Whether the result has that field and it is not NULL.
    bool has(int row, int col) const {
        return r_ != nullptr && row >= 0 && row < PQntuples(r_) && col >= 0 && col < PQnfields(r_) &&
               !is_null(row, col);
    }
    // The field as text; false if it is missing or NULL.
    bool text_at(int row, int col, std::string *out) const;
    // The field as a whole decimal number in [min, max] (all of it: no
    // sign tricks, no trailing text); false if missing, NULL or not one.
    bool integer_at(int row, int col, long long min, long long max, long long *out) const;
    // The field as a boolean ("t" or "f"); false if missing or NULL.
    bool bool_at(int row, int col, bool *out) const;

private:
    PGresult *r_ = nullptr;
};

// One connection, closed when it goes.
class PgConnection {
public:
    PgConnection() = default;
    PgConnection(const PgConnection &) = delete;
    PgConnection &operator=(const PgConnection &) = delete;
    ~PgConnection() {
        if (conn_ != nullptr) PQfinish(conn_);
    }

    // Connects (at most 10 s unless the conninfo says otherwise) and pins
    // the session's search_path to pg_catalog, pg_temp, so that no object
    // another role created in a schema of the role's own path ("$user",
    // public) is ever found by an unqualified name; false and *error on
    // failure.
    bool connect(const std::string &conninfo, std::string *error);

    // Runs sql with $1.. as text parameters (an empty optional: NULL).
    // False and *error ("SQLSTATE: message") if it failed; *sqlstate, if
    // given, gets the SQLSTATE alone.
    bool exec(const std::string &sql, const std::vector<std::string> &params, PgResult *out, std::string *error,
              std::string *sqlstate = nullptr);
    // Runs sql without parameters, which may be several statements (the
    // simple query protocol).
    bool exec(const std::string &sql, std::string *error);

    // Commits the open transaction as the lease worker commits a lease:
    // synchronous_commit on for it (SET LOCAL: whatever the role, the
    // database or a pooler says), and a WARNING during the COMMIT (a wait
    // for synchronous replication cancelled: committed on the registry's
    // primary alone, which its failover may lose and hand out again) makes
    // it fail. False and *error if it failed or warned.
    bool commit_durably(std::string *error);

    // name as an SQL identifier, quoted where needed (PQescapeIdentifier).
    std::string identifier(const std::string &name) const;

    // The search_path the session had before connect() pinned it (the
    // role's, the database's or the conninfo's), for a name the user gives
    // (fleet scan's table), resolved as the user would resolve it.
    const std::string &user_search_path() const { return user_path_; }

private:
    PGconn *conn_ = nullptr;
    std::string user_path_;
    std::string warning_;  // the first WARNING since commit_durably began ("" none)
};

}  // namespace locality_cli
