/*
 * LD_PRELOAD clock shim for test/integration/restart.sh and ha.sh: shifts
 * CLOCK_REALTIME of the process (a PostgreSQL server and its backends) by a
 * number of milliseconds that the test changes while the server runs, or
 * holds it at one instant. The file named by CLOCK_SHIM_FILE holds two
 * signed 64-bit integers, mapped shared, so a write to the file takes
 * effect at once in every process: the offset, and a frozen time in Unix
 * milliseconds (0: not frozen). Only clock_gettime(CLOCK_REALTIME) is
 * changed: the clock locality_uuid reads.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static int (*real_clock_gettime)(clockid_t, struct timespec *);
static volatile const int64_t *shim;	/* [0] offset ms, [1] frozen ms */

static void attach(void)
{
	const char *path = getenv("CLOCK_SHIM_FILE");
	int fd;
	void *map;

	real_clock_gettime = (int (*)(clockid_t, struct timespec *)) dlsym(RTLD_NEXT, "clock_gettime");
	if (path == NULL || (fd = open(path, O_RDONLY)) < 0)
		return;
	map = mmap(NULL, 2 * sizeof(int64_t), PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (map != MAP_FAILED)
		shim = map;
}

int clock_gettime(clockid_t id, struct timespec *ts)
{
	int rc;
	int64_t ns;

	if (real_clock_gettime == NULL)
		attach();
	rc = real_clock_gettime(id, ts);
	if (rc != 0 || id != CLOCK_REALTIME || shim == NULL)
		return rc;
	if (shim[1] != 0)
		ns = shim[1] * 1000000;
	else
		ns = (int64_t) ts->tv_sec * 1000000000 + ts->tv_nsec + shim[0] * 1000000;
	ts->tv_sec = (time_t) (ns / 1000000000);
	ts->tv_nsec = (long) (ns % 1000000000);
	return rc;
}
