# PGXS build of the locality_uuid extension.  The C++ core (src/core) and
# the PostgreSQL glue (src/pg) are linked into one module; the unit tests,
# CLI and fuzzers are built by CMake (CMakeLists.txt), see README.md.

EXTENSION = locality_uuid
MODULE_big = locality_uuid
DATA = $(wildcard locality_uuid--*.sql)
OBJS = $(patsubst %.cpp,%.o,$(sort $(wildcard src/core/*.cpp src/pg/*.cpp)))

# The extension's version, for the module's magic block (shown by
# pg_get_loaded_modules() on PostgreSQL 18+).
EXTVERSION = $(shell sed -n "s/^default_version *= *'\(.*\)'/\1/p" $(srcdir)/locality_uuid.control)

# pg_regress suites in sql/ + expected/, isolation specs in specs/. Each
# suite's database gets the extension from pg_regress itself, so any one
# suite runs alone: make installcheck REGRESS=modes
REGRESS = layout generate modes extract uuid_v1 uuid_v1_seed uuid_v1_backfill bad_input \
          reserved_prefix privileges core_uuid_functions
REGRESS_OPTS = --load-extension=locality_uuid
ISOLATION = concurrent_generation
ISOLATION_OPTS = --load-extension=locality_uuid

# PostgreSQL's headers are included as system headers (-isystem wins over
# PGXS's -I for the same directory), so the warning flags below judge only
# this project's code.
PG_CPPFLAGS = -I$(srcdir)/src/core -isystem $(includedir_server) -isystem $(includedir_internal) \
              -DLOCALITY_UUID_VERSION='"$(EXTVERSION)"'
# No exceptions or RTTI anywhere in the module: see src/pg/pg_boundary.hpp.
# -fvisibility=hidden: see src/pg/pg_boundary.hpp.
# -Wno-register: PostgreSQL's port/atomics/arch-x86.h uses 'register', which
# C++17 removed (clang makes it an error).
# WERROR=-Werror (set by scripts/test.sh) turns every warning into an error.
WERROR ?=
LOCALITY_CXXFLAGS = -std=c++17 -fno-exceptions -fno-rtti -Wno-register -fvisibility=hidden \
                    -Wall -Wextra $(WERROR)
PG_CXXFLAGS = $(LOCALITY_CXXFLAGS)
SHLIB_LINK = -lcrypto -lstdc++

# The command-line tool (below); set before PGXS, whose clean rule tests
# EXTRA_CLEAN when it is read.
CLI = locality-uuid
EXTRA_CLEAN = $(CLI)

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# PGXS tracks no header dependencies; every object depends on every header
# (a small tree, so a header change rebuilds the module).
HEADERS = $(wildcard src/core/*.hpp src/pg/*.hpp)
$(OBJS) $(OBJS:.o=.bc): $(HEADERS)

# Debian's PGXS also compiles every object to LLVM bitcode with clang, whose
# default dialect is C++14.
override BITCODE_CXXFLAGS += $(LOCALITY_CXXFLAGS)

# The locality-uuid command-line tool: same core, no PostgreSQL at run time,
# built by `make` and installed by `make install` into $(PREFIX)/bin.
CLI_SOURCES = src/cli/main.cpp $(sort $(wildcard src/core/*.cpp))
PREFIX ?= /usr/local

all: $(CLI)

$(CLI): $(CLI_SOURCES) $(wildcard src/core/*.hpp)
	$(CXX) -std=c++17 -O2 -Wall -Wextra $(WERROR) -I$(srcdir)/src/core -o $@ $(CLI_SOURCES) -lcrypto

install: install-cli

install-cli: $(CLI)
	install -d '$(DESTDIR)$(PREFIX)/bin'
	install -m 755 $(CLI) '$(DESTDIR)$(PREFIX)/bin/$(CLI)'

.PHONY: install-cli
