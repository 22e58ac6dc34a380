/*
 * LD_PRELOAD fault shim for test/integration/state_faults.sh (and the
 * crash points of copies.sh, bench/replay_cost.sh's count): makes writes
 * to locality_uuid.state.tmp (the state file before its rename), or to
 * locality_uuid.state itself (which only a broken writer would write in
 * place), fail or hang, as the first byte of the file named by FAULT_SHIM_FILE says, read
 * at every write (the file is mapped shared, so the test switches faults
 * while the server runs):
 *   '0'  no fault
 *   'n'  write fails with ENOSPC (a full disk)
 *   'e'  write fails with EIO
 *   'h'  write hangs until the byte changes (at most 600 s), then goes on;
 *        the hung process's pid is appended to FAULT_SHIM_FILE.hung
 *   'c'  no fault; every write is counted (below), for bench/replay_cost.sh
 *   'd'  the fsync of a directory that follows a rename of
 *        locality_uuid.state.tmp in the same process fails with EIO (the
 *        file is in place, its directory entry cannot be made durable);
 *        no other fsync of the server is touched
 *   'o'  opening locality_uuid.state for reading (fopen, as AllocateFile
 *        does) hangs until the byte changes (at most 600 s)
 *   'b'  writes to locality_uuid.binding.tmp (the binding file before its
 *        rename) fail with ENOSPC; the state file is written as usual
 *   'm'  writes to the host's marks file before its rename (a name that
 *        holds "marks." and ends ".tmp": PATH.PID.tmp of
 *        locality_uuid.host_marks_file, not the data directory's note
 *        locality_uuid.host_marks.tmp) fail with ENOSPC; every other file
 *        is written as usual
 *   'A'..'I'  the process that makes the server's N-th write ('A': the
 *        first) of the state file or the binding file, whichever process
 *        it is (the postmaster's at its start included), is killed
 *        (SIGKILL) before it writes: a crash at that step of a start or
 *        its recovery; the writes are counted across the server's
 *        processes in FAULT_SHIM_FILE.writes (a byte each), and the killed
 *        process's pid is appended to FAULT_SHIM_FILE.killed, a line
 * Every other file is untouched. Each write that fails (or, in mode 'c',
 * each write; in modes 'A'..'I', the kill) is counted: one byte appended to
 * FAULT_SHIM_FILE.count, so a test can tell how often the server tried.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

static const char *const targets[] = {"locality_uuid.state.tmp", "locality_uuid.state"};
static const char binding_target[] = "locality_uuid.binding.tmp";
static const char pointer_target[] = "locality_uuid.host_marks.tmp";
/* watched[fd]: 0, or what fd is open on */
#define WATCHED_STATE 1
#define WATCHED_BINDING 2
#define WATCHED_MARKS 3
#define MAX_FD 4096

static volatile const char *mode;
static unsigned char watched[MAX_FD];
/* Opens FAULT_SHIM_FILE followed by suffix for appending (through the real
 * open): the files beside the fault file where the shim reports to the
 * test. -1 if there is no such name. */
static int open_beside(const char *suffix)
{
	static int (*real_open)(const char *, int, ...);
	char path[4096];
	const char *base = getenv("FAULT_SHIM_FILE");

	if (base == NULL || strlen(base) + strlen(suffix) >= sizeof(path))
		return -1;
	if (real_open == NULL)
		real_open = (int (*)(const char *, int, ...)) dlsym(RTLD_NEXT, "open");
	strcpy(path, base);
	strcat(path, suffix);
	return real_open(path, O_WRONLY | O_APPEND | O_CREAT, 0666);
}

/* Appends one byte to FAULT_SHIM_FILE.count. */
static void count_failure(ssize_t (*real_write)(int, const void *, size_t))
{
	int fd = open_beside(".count");

	if (fd < 0)
		return;
	(void) real_write(fd, "x", 1);
	close(fd);
}

/* Modes 'A'..'I': appends a byte to FAULT_SHIM_FILE.writes for this write
 * of the state or binding file, and returns how many the file then holds:
 * the server's writes so far, this one included (0 if it cannot tell). */
static long count_server_write(ssize_t (*real_write)(int, const void *, size_t))
{
	int fd = open_beside(".writes");
	long n = 0;

	if (fd < 0)
		return 0;
	/* (the offset after an O_APPEND write is this writer's own, where the
	 * file's size may already include another process's byte) */
	if (real_write(fd, "x", 1) == 1)
		n = (long) lseek(fd, 0, SEEK_CUR);
	close(fd);
	return n;
}

/* Appends this process's pid, a line, to FAULT_SHIM_FILE followed by
 * suffix: ".hung" as it starts to hang (mode 'h'), so that a test knows
 * which backend is the writer; ".killed" before it is killed ('A'..'I'). */
static void say_pid(ssize_t (*real_write)(int, const void *, size_t), const char *suffix)
{
	char line[32];
	int fd = open_beside(suffix), n;

	if (fd < 0)
		return;
	n = snprintf(line, sizeof(line), "%d\n", (int) getpid());
	(void) real_write(fd, line, (size_t) n);
	close(fd);
}

static void attach(void)
{
	const char *path = getenv("FAULT_SHIM_FILE");
	int fd;
	void *map;

	if (mode != NULL || path == NULL || (fd = open(path, O_RDONLY)) < 0)
		return;
	map = mmap(NULL, 1, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (map != MAP_FAILED)
		mode = map;
}

static int watch(const char *path, int fd)
{
	size_t n = strlen(path), i, t;

	if (fd < 0 || fd >= MAX_FD)
		return fd;
	watched[fd] = 0;
	for (i = 0; i < sizeof(targets) / sizeof(targets[0]); i++)
	{
		t = strlen(targets[i]);
		if (n >= t && strcmp(path + n - t, targets[i]) == 0)
			watched[fd] = WATCHED_STATE;
	}
	t = strlen(binding_target);
	if (n >= t && strcmp(path + n - t, binding_target) == 0)
		watched[fd] = WATCHED_BINDING;
	t = strlen(pointer_target);
	if (n >= 4 && strcmp(path + n - 4, ".tmp") == 0 && strstr(path, "marks.") != NULL &&
		!(n >= t && strcmp(path + n - t, pointer_target) == 0))
		watched[fd] = WATCHED_MARKS;
	return fd;
}

#define OPEN_WRAPPER(name)                                                    \
	int name(const char *path, int flags, ...)                                \
	{                                                                         \
		static int (*real)(const char *, int, ...);                           \
		mode_t m = 0;                                                         \
		if (flags & (O_CREAT | O_TMPFILE))                                    \
		{                                                                     \
			va_list ap;                                                       \
			va_start(ap, flags);                                              \
			m = va_arg(ap, mode_t);                                           \
			va_end(ap);                                                       \
		}                                                                     \
		if (real == NULL)                                                     \
			real = (int (*)(const char *, int, ...)) dlsym(RTLD_NEXT, #name); \
		return watch(path, real(path, flags, m));                             \
	}
OPEN_WRAPPER(open)
OPEN_WRAPPER(open64)

int close(int fd)
{
	static int (*real)(int);

	if (real == NULL)
		real = (int (*)(int)) dlsym(RTLD_NEXT, "close");
	if (fd >= 0 && fd < MAX_FD)
		watched[fd] = 0;
	return real(fd);
}

ssize_t write(int fd, const void *buf, size_t len)
{
	static ssize_t (*real)(int, const void *, size_t);
	int waited;

	if (real == NULL)
		real = (ssize_t (*)(int, const void *, size_t)) dlsym(RTLD_NEXT, "write");
	/* (The kills count the state file's and the binding file's writes.) */
	if (fd >= 0 && fd < MAX_FD && (watched[fd] == WATCHED_STATE || watched[fd] == WATCHED_BINDING))
	{
		attach();
		if (mode != NULL && *mode >= 'A' && *mode <= 'I' && count_server_write(real) == *mode - 'A' + 1)
		{
			count_failure(real);
			say_pid(real, ".killed");
			kill(getpid(), SIGKILL);
		}
	}
	if (fd >= 0 && fd < MAX_FD && watched[fd] == WATCHED_MARKS)
	{
		attach();
		if (mode != NULL && *mode == 'm')
		{
			count_failure(real);
			errno = ENOSPC;
			return -1;
		}
	}
	if (fd >= 0 && fd < MAX_FD && watched[fd] == WATCHED_BINDING)
	{
		attach();
		if (mode != NULL && *mode == 'b')
		{
			count_failure(real);
			errno = ENOSPC;
			return -1;
		}
	}
	if (fd >= 0 && fd < MAX_FD && watched[fd] == WATCHED_STATE)
	{
		attach();
		if (mode != NULL && *mode == 'h')
			say_pid(real, ".hung");
		for (waited = 0; mode != NULL && *mode == 'h' && waited < 6000; waited++)
			usleep(100000);
		if (mode != NULL && *mode == 'c')
			count_failure(real);
		if (mode != NULL && (*mode == 'n' || *mode == 'e'))
		{
			count_failure(real);
			errno = *mode == 'n' ? ENOSPC : EIO;
			return -1;
		}
	}
	return real(fd, buf, len);
}

/* Set by a rename of the state file's temporary file in this process. */
static int state_renamed;

int rename(const char *from, const char *to)
{
	static int (*real)(const char *, const char *);
	static const char tmp[] = "locality_uuid.state.tmp";
	size_t n = strlen(from), t = strlen(tmp);
	int rc;

	if (real == NULL)
		real = (int (*)(const char *, const char *)) dlsym(RTLD_NEXT, "rename");
	rc = real(from, to);
	if (rc == 0 && n >= t && strcmp(from + n - t, tmp) == 0)
		state_renamed = 1;
	return rc;
}

int fsync(int fd)
{
	static int (*real)(int);
	struct stat st;

	if (real == NULL)
		real = (int (*)(int)) dlsym(RTLD_NEXT, "fsync");
	attach();
	if (state_renamed && fstat(fd, &st) == 0 && S_ISDIR(st.st_mode))
	{
		state_renamed = 0;
		if (mode != NULL && *mode == 'd')
		{
			errno = EIO;
			return -1;
		}
	}
	return real(fd);
}

/* Hangs an open of the state file for reading while the mode is 'o'. */
static void hang_reader(const char *path)
{
	static const char name[] = "/locality_uuid.state";
	size_t n = strlen(path), t = strlen(name) - 1;
	int waited;

	if (!(n == t && strcmp(path, name + 1) == 0) && !(n > t && strcmp(path + n - t - 1, name) == 0))
		return;
	attach();
	for (waited = 0; mode != NULL && *mode == 'o' && waited < 6000; waited++)
		usleep(100000);
}

#define FOPEN_WRAPPER(name)                                                          \
	FILE *name(const char *path, const char *how)                                    \
	{                                                                                \
		static FILE *(*real)(const char *, const char *);                            \
		if (real == NULL)                                                            \
			real = (FILE * (*) (const char *, const char *)) dlsym(RTLD_NEXT, #name); \
		hang_reader(path);                                                           \
		return real(path, how);                                                      \
	}
FOPEN_WRAPPER(fopen)
FOPEN_WRAPPER(fopen64)
