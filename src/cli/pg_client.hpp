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

    // Connects (at most 10 s unless the conninfo says otherwise); false and
    // *error on failure.
    bool connect(const std::string &conninfo, std::string *error);

    // Runs sql with $1.. as text parameters (an empty optional: NULL).
    // False and *error ("SQLSTATE: message") if it failed; *sqlstate, if
    // given, gets the SQLSTATE alone.
    bool exec(const std::string &sql, const std::vector<std::string> &params, PgResult *out, std::string *error,
              std::string *sqlstate = nullptr);
    // Runs sql without parameters, which may be several statements (the
    // simple query protocol).
    bool exec(const std::string &sql, std::string *error);

private:
    PGconn *conn_ = nullptr;
};

}  // namespace locality_cli
