// Small files in the data directory, written and read through PostgreSQL's
// file layer (fd.c) without raising an ERROR, so that a caller may hold a
// lock: the state file and the binding (reservations/), the lease record
// (identity/).
#pragma once

#include <cstdio>

#include "pg_boundary.hpp"

namespace locality_pg {

// Writes all of buf to fd (a short write without an error counts as a full
// disk, ENOSPC). False, errno set, on failure.
bool write_all(int fd, const char *buf, size_t len);

// The data directory's entries made durable (fsync of "."). False, errno
// set, on failure.
bool sync_data_directory();

// The directory holding path made durable (fsync); "." for a bare name.
// False, errno set, on failure.
bool sync_directory_of(const char *path);

// Writes buf to path as write_state_file writes the state file: temp_path
// (in path's directory) written, fsynced, renamed over path, the directory
// fsynced. False, errno set; *renamed as there.
bool write_durably(const char *temp_path, const char *path, const char *buf, size_t len, bool *renamed = nullptr);

// write_durably for text formatted into buf with snprintf: len is the count
// snprintf gave, capacity buf's size; false, errno ENAMETOOLONG, if the text
// did not fit (nothing is written).
bool write_text_durably(const char *temp_path, const char *path, const char *buf, int len, size_t capacity);

// Closes a file read with AllocateFile; false, errno set (EIO if the read
// set none), if a read failed.
bool close_after_reading(FILE *f);

}  // namespace locality_pg
