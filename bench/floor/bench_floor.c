/*
 * Floors for bench/cost.sh: the least any C function returning a fresh uuid
 * can cost per call, so the table shows what locality_uuid() adds on top.
 *
 *   bench_floor_uuid()       palloc a 16-byte uuid, zero it, return it
 *   bench_floor_clock_uuid() the same, after reading CLOCK_REALTIME, as an
 *                            id stamped with the current time must
 *
 * Built into a temporary directory by bench/cost.sh and loaded by absolute
 * path; never installed, never part of the extension.
 */
#include "postgres.h"

#include <time.h>

#include "fmgr.h"
#include "utils/uuid.h"

PG_MODULE_MAGIC;

PG_FUNCTION_INFO_V1(bench_floor_uuid);
PG_FUNCTION_INFO_V1(bench_floor_clock_uuid);

Datum
bench_floor_uuid(PG_FUNCTION_ARGS)
{
	pg_uuid_t  *out = palloc0(sizeof(pg_uuid_t));

	PG_RETURN_UUID_P(out);
}

Datum
bench_floor_clock_uuid(PG_FUNCTION_ARGS)
{
	struct timespec now;
	pg_uuid_t  *out;

	clock_gettime(CLOCK_REALTIME, &now);
	out = palloc0(sizeof(pg_uuid_t));
	/* Keep the clock read: its result goes into the id. */
	memcpy(out->data, &now.tv_nsec, sizeof(now.tv_nsec));
	PG_RETURN_UUID_P(out);
}
