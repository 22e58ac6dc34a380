#include "reservations/reservation_wal.hpp"

#include "reservations/restore.hpp"
#include "reservations/shared_counters.hpp"
#include "settings.hpp"

#if PG_VERSION_NUM >= 150000
extern "C" {
#include "access/xlog.h"
#include "access/xlog_internal.h"
#include "access/xloginsert.h"
#include "access/xlogreader.h"
#include "lib/stringinfo.h"
}
#endif

namespace locality_pg {

#if PG_VERSION_NUM >= 150000
namespace {

// Three kinds of record, each with every mark after the change
// (ReservedState, as in the file): a refill's, which replay merges by
// raising; a release of runs (locality_uuid_release_future_windows()),
// whose runs replay takes as they are; a release of clock Hot Guid seconds
// (hot_guid_release_future_seconds()), whose seconds bound replay takes.
constexpr uint8 kXlogReserve = 0x00;
constexpr uint8 kXlogRelease = 0x10;
constexpr uint8 kXlogReleaseHot = 0x20;
// A fourth, with the lineage (lineage.hpp) after a move or a rebind, logged
// before the next refill's marks. A library before 1.5 stops replay at it
// (as at any record it does not know): standbys first when upgrading.
constexpr uint8 kXlogLineage = 0x30;

ReplayKind replay_kind(uint8 kind) {
    return kind == kXlogRelease ? ReplayKind::release_runs
           : kind == kXlogReleaseHot ? ReplayKind::release_hot_seconds
                                     : ReplayKind::reserve;
}

uint8 kind_of(XLogReaderState *record) { return XLogRecGetInfo(record) & ~XLR_INFO_MASK; }

// A record of this layout? (A new layout needs a new info value.)
bool is_reservation(XLogReaderState *record) {
    return (kind_of(record) == kXlogReserve || kind_of(record) == kXlogRelease ||
            kind_of(record) == kXlogReleaseHot) &&
           XLogRecGetDataLen(record) == sizeof(ReservedState);
}

bool is_lineage(XLogReaderState *record) {
    return kind_of(record) == kXlogLineage && XLogRecGetDataLen(record) == sizeof(locality::Lineage);
}

locality::Lineage record_lineage(XLogReaderState *record) {
    locality::Lineage l;
    std::memcpy(&l, XLogRecGetData(record), sizeof l);
    return l;
}

ReservedState record_marks(XLogReaderState *record) {
    ReservedState marks;
    std::memcpy(&marks, XLogRecGetData(record), sizeof marks);
    return marks;
}

void reservation_redo(XLogReaderState *record) {
    if (is_lineage(record)) {
        replay_lineage(shared_counters(), record_lineage(record), record->ReadRecPtr);
        return;
    }
    // Replay cannot skip a record it does not know, as PostgreSQL's own
    // resource managers do not.
    if (!is_reservation(record))
        elog(PANIC, "locality_uuid: unknown WAL record (info 0x%02X, %u bytes)",
             static_cast<unsigned>(XLogRecGetInfo(record)), XLogRecGetDataLen(record));
    replay_reservation(shared_counters(), record_marks(record), replay_kind(kind_of(record)));
}

// Also called for pg_walinspect and pg_waldump: never an error there.
void reservation_desc(StringInfo buf, XLogReaderState *record) {
    if (is_lineage(record)) {
        const locality::Lineage l = record_lineage(record);
        appendStringInfo(buf, "lineage: node %u active, machine %u active", l.node.active, l.machine.active);
        return;
    }
    if (!is_reservation(record)) {
        appendStringInfo(buf, "not a locality_uuid record of this version (%u bytes)", XLogRecGetDataLen(record));
        return;
    }
    const ReservedState m = record_marks(record);
    if (kind_of(record) == kXlogRelease) appendStringInfoString(buf, "runs released; ");
    if (kind_of(record) == kXlogReleaseHot) appendStringInfoString(buf, "Hot Guid seconds released; ");
    appendStringInfo(buf,
                     "variable " UINT64_FORMAT "; explicit " UINT64_FORMAT "; hot " UINT64_FORMAT
                     "; hot seconds below " UINT64_FORMAT "; runs",
                     m.variable, m.explicit_sequential, m.hot_guid, m.hot_seconds);
    // Each held run as "window + 1:ids reserved", in slot order.
    for (uint64 r : m.runs)
        if (r != 0) appendStringInfo(buf, " " UINT64_FORMAT ":" UINT64_FORMAT, r >> 32, r & 0xFFFFFFFF);
    appendStringInfo(buf, "; timeline %u", m.timeline);
}

const char *reservation_identify(uint8 info) {
    switch (info & ~XLR_INFO_MASK) {
        case kXlogReserve: return "RESERVE";
        case kXlogRelease: return "RELEASE";
        case kXlogReleaseHot: return "RELEASE_HOT_SECONDS";
        case kXlogLineage: return "LINEAGE";
        default: return nullptr;
    }
}

// Replay ends (promotion, or the end of crash recovery): the replayed
// server's Hot Guids of this second are not all known.
void reservation_cleanup() { close_current_hot_second(shared_counters()); }

RmgrData reservation_rmgr = {
    "locality_uuid",    reservation_redo, reservation_desc, reservation_identify, nullptr,
    reservation_cleanup, nullptr,         nullptr,
};

}  // namespace

void register_reservation_wal() {
    RegisterCustomRmgr(static_cast<RmgrId>(setting_wal_rmgr_id), &reservation_rmgr);
}

namespace {

void log_marks(const ReservedState &marks, uint8 kind) {
    XLogBeginInsert();
    XLogRegisterData(reinterpret_cast<char *>(const_cast<ReservedState *>(&marks)), sizeof marks);
    const XLogRecPtr end = XLogInsert(static_cast<RmgrId>(setting_wal_rmgr_id), kind);
    XLogFlush(end);
}

}  // namespace

void log_reservation(const ReservedState &marks) { log_marks(marks, kXlogReserve); }
namespace {
XLogRecPtr insert_lineage(const locality::Lineage &lineage) {
    XLogBeginInsert();
    XLogRegisterData(reinterpret_cast<char *>(const_cast<locality::Lineage *>(&lineage)), sizeof lineage);
    return XLogInsert(static_cast<RmgrId>(setting_wal_rmgr_id), kXlogLineage);
}
}  // namespace
void log_lineage(const locality::Lineage &lineage) { (void) insert_lineage(lineage); }  // flushed with the refill's record
void log_lineage_flushed(const locality::Lineage &lineage) { XLogFlush(insert_lineage(lineage)); }
void log_release(const ReservedState &marks) { log_marks(marks, kXlogRelease); }
void log_hot_release(const ReservedState &marks) { log_marks(marks, kXlogReleaseHot); }

#else

void register_reservation_wal() {}
void log_reservation(const ReservedState &) {}
void log_lineage(const locality::Lineage &) {}
void log_lineage_flushed(const locality::Lineage &) {}
void log_release(const ReservedState &) {}
void log_hot_release(const ReservedState &) {}

#endif

}  // namespace locality_pg
