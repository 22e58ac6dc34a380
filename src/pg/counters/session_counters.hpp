// Counters of each session, and when they may be used: preloading lost
// (a conf.d file overwritten, an edit of shared_preload_libraries) must
// not quietly turn server-wide counters into counters per session.
#pragma once

#include "pg_boundary.hpp"

namespace locality_pg {

// Set in _PG_init: the library was loaded at server start.
extern bool library_preloaded;

// What a backend's first id with counters of its own is told, and when it
// is refused:
//  - preloaded with locality_uuid.shared_counter off, or not preloaded with
//    it set off explicitly: the chosen mode, nothing said;
//  - not preloaded, shared_counter set on: ERROR 55000 (what was asked for
//    is not there);
//  - not preloaded, shared_counter at its default, and the data directory
//    holds locality_uuid.state (this cluster made server-wide ids): ERROR
//    55000, as the session's counters would not continue past its marks;
//  - otherwise a WARNING, once per backend.
// Called before every draw from a backend's own counters; cheap after the
// first that passes.
void check_session_counters();

// The CREATE EXTENSION warning of a library that is not preloaded, unless
// counters per session were chosen.
void warn_not_preloaded_at_create();

}  // namespace locality_pg
