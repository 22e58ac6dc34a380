/*
 * LD_PRELOAD clock shim for test/integration/restart.sh: shifts
 * CLOCK_REALTIME of the process (a PostgreSQL server and its backends) by a
 * number of milliseconds that the test changes while the server runs. The
 * offset is a signed 64-bit integer at the start of the file named by
 * CLOCK_SHIM_FILE, mapped shared, so a write to the file takes effect at
 * once in every process. Only clock_gettime(CLOCK_REALTIME) is shifted: the
 * clock locality_uuid reads.
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
static volatile const int64_t *offset_ms;

static void attach(void)
{
	const char *path = getenv("CLOCK_SHIM_FILE");
	int fd;
	void *map;

	real_clock_gettime = (int (*)(clockid_t, struct timespec *)) dlsym(RTLD_NEXT, "clock_gettime");
	if (path == NULL || (fd = open(path, O_RDONLY)) < 0)
		return;
	map = mmap(NULL, sizeof(int64_t), PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (map != MAP_FAILED)
		offset_ms = map;
}

int clock_gettime(clockid_t id, struct timespec *ts)
{
	int rc;
	int64_t ns;

	if (real_clock_gettime == NULL)
		attach();
	rc = real_clock_gettime(id, ts);
	if (rc != 0 || id != CLOCK_REALTIME || offset_ms == NULL)
		return rc;
	ns = (int64_t) ts->tv_sec * 1000000000 + ts->tv_nsec + *offset_ms * 1000000;
	ts->tv_sec = (time_t) (ns / 1000000000);
	ts->tv_nsec = (long) (ns % 1000000000);
	return rc;
}
