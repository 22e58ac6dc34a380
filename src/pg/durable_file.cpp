#include "durable_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

extern "C" {
#include "storage/fd.h"
}

namespace locality_pg {

bool write_all(int fd, const char *buf, size_t len) {
    while (len > 0) {
        errno = 0;
        const ssize_t w = write(fd, buf, len);
        if (w <= 0) {
            if (w < 0 && errno == EINTR) continue;
            if (errno == 0) errno = ENOSPC;  // a short write without an error: the disk is full
            return false;
        }
        buf += w;
        len -= static_cast<size_t>(w);
    }
    return true;
}

bool write_durably(const char *temp_path, const char *path, const char *buf, size_t len, bool *renamed) {
    if (renamed != nullptr) *renamed = false;
    // The steps of durable_rename, done here so that errno is the failing
    // call's (fd.c logs in between and documents errno as not valid after
    // it), and without opening the old file for writing: a copy the server
    // may read but not write (left by root) is replaced, not an obstacle.
    const int fd = OpenTransientFile(temp_path, O_WRONLY | O_CREAT | O_TRUNC | PG_BINARY);
    if (fd < 0) return false;
    bool ok = write_all(fd, buf, len) && pg_fsync(fd) == 0;
    int saved = errno;
    if (CloseTransientFile(fd) != 0 && ok) {
        ok = false;
        saved = errno;
    }
    errno = saved;
    if (!ok) return false;
    if (rename(temp_path, path) != 0) return false;
    if (renamed != nullptr) *renamed = true;
    // The new directory entry, durable: until then a crash may bring back
    // the old file (itself written and fsynced this way).
    return sync_directory_of(path);
}

bool write_text_durably(const char *temp_path, const char *path, const char *buf, int len, size_t capacity) {
    if (len < 0 || static_cast<size_t>(len) >= capacity) {
        errno = ENAMETOOLONG;
        return false;
    }
    return write_durably(temp_path, path, buf, static_cast<size_t>(len));
}

bool close_after_reading(FILE *f) {
    // errno of the failed read, kept across FreeFile (EIO if it set none).
    const bool read_error = ferror(f) != 0;
    const int read_errno = read_error && errno != 0 ? errno : EIO;
    FreeFile(f);
    if (read_error) errno = read_errno;
    return !read_error;
}

bool sync_data_directory() { return sync_directory_of("."); }

bool sync_directory_of(const char *path) {
    // Its directory: "." for a name in the data directory (the current
    // one), else the path up to its last '/' ("/" itself for "/name").
    char parent[MAXPGPATH] = ".";
    const char *slash = strrchr(path, '/');
    if (slash != nullptr) {
        const size_t length = slash == path ? 1 : static_cast<size_t>(slash - path);
        strlcpy(parent, path, Min(sizeof parent, length + 1));
    }
    const int dir = OpenTransientFile(parent, O_RDONLY | PG_BINARY);
    if (dir < 0) return false;
    // As fd.c does: some file systems refuse to fsync a directory at all.
    const bool ok = pg_fsync(dir) == 0 || errno == EBADF || errno == EINVAL;
    const int saved = errno;
    CloseTransientFile(dir);
    errno = saved;
    return ok;
}

}  // namespace locality_pg
